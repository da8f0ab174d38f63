"""python-gitlab 8.6.0, unchanged, on personal access tokens (issue 38, decisions D9) through the
Python host: list, get("self"), rotate (by id and self), user.personal_access_tokens.create,
delete, and a read_api token refused on a write with GitLab's insufficient_scope 403."""

import datetime

import gitlab
import pytest


@pytest.fixture(scope="module")
def admin(server, git_repo):
    server.admin("group", "add", "toks")
    server.admin("project", "add", "toks/app", "--repo", git_repo)
    server.admin("user", "add", "tina")
    server.admin("member", "add", "--group", "toks", "--user", "tina", "--access-level", "30")
    gl = gitlab.Gitlab(server.url, private_token=server.token)
    gl.auth()
    return gl


def days(n):
    return (datetime.datetime.now(datetime.timezone.utc).date() + datetime.timedelta(days=n)).isoformat()


def test_the_bootstrap_token_is_api_and_sudo(admin):
    own = admin.personal_access_tokens.get("self")
    assert own.scopes == ["api", "sudo"]
    assert own.active is True and own.revoked is False
    assert own.expires_at == days(365)
    assert not hasattr(own, "token")


def test_create_list_rotate_delete(admin, server):
    tina = admin.users.get(2)
    assert tina.username == "tina"
    made = tina.personal_access_tokens.create(
        {"name": "ci", "scopes": ["read_api", "write_repository"], "expires_at": days(30)})
    assert made.token.startswith("glpat-")
    assert (made.name, made.scopes, made.expires_at, made.user_id) == (
        "ci", ["read_api", "write_repository"], days(30), tina.id)
    listed = [t.name for t in admin.personal_access_tokens.list(user_id=tina.id, get_all=True)]
    assert listed == ["ci"]
    # The token itself sees itself, and only its own tokens.
    as_tina = gitlab.Gitlab(server.url, private_token=made.token)
    assert as_tina.personal_access_tokens.get("self").id == made.id
    assert [t.id for t in as_tina.personal_access_tokens.list(get_all=True)] == [made.id]
    # Rotate by id: a new secret, the old one refused at once.
    rotated = admin.personal_access_tokens.rotate(made.id, expires_at=days(10))
    assert rotated["token"] != made.token and rotated["expires_at"] == days(10)
    with pytest.raises(gitlab.exceptions.GitlabAuthenticationError) as refused:
        as_tina.personal_access_tokens.get("self")
    assert refused.value.response_code == 401
    # Self-rotation through the object (self_rotate=True), as a rotation job does it.
    fresh = gitlab.Gitlab(server.url, private_token=rotated["token"])
    own = fresh.personal_access_tokens.get("self")
    with pytest.raises(gitlab.exceptions.GitlabError):
        # read_api + write_repository: neither api nor self_rotate.
        own.rotate(self_rotate=True)
    full = tina.personal_access_tokens.create({"name": "rotating", "scopes": ["self_rotate", "read_api"]})
    mine = gitlab.Gitlab(server.url, private_token=full.token).personal_access_tokens.get("self")
    mine.rotate(self_rotate=True)
    assert mine.token != full.token and mine.name == "rotating"
    assert gitlab.Gitlab(server.url, private_token=mine.token).personal_access_tokens.get("self").id == mine.id
    # Delete (revoke).
    admin.personal_access_tokens.delete(mine.id)
    with pytest.raises(gitlab.exceptions.GitlabAuthenticationError):
        gitlab.Gitlab(server.url, private_token=mine.token).personal_access_tokens.get("self")
    # Only administrators create for others.
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as forbidden:
        as_other = gitlab.Gitlab(server.url, private_token=rotated["token"])
        as_other.users.get(1, lazy=True).personal_access_tokens.create({"name": "x", "scopes": ["api"]})
    assert forbidden.value.response_code == 403


def test_a_read_api_token_reads_but_may_not_write(admin):
    tina = admin.users.get(2)
    reader = tina.personal_access_tokens.create({"name": "reader", "scopes": ["read_api"]})
    gl = gitlab.Gitlab(server_url(admin), private_token=reader.token)
    project = gl.projects.get("toks/app")
    assert [b.name for b in project.branches.list(get_all=True)] == ["main"]
    with pytest.raises(gitlab.exceptions.GitlabHttpError) as refused:
        gl.http_post("/projects/toks%2Fapp/repository/branches", post_data={"branch": "x", "ref": "main"})
    assert refused.value.response_code == 403
    assert "insufficient_scope" in refused.value.error_message or "insufficient_scope" in str(refused.value.response_body)
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as create:
        project.branches.create({"branch": "x", "ref": "main"})
    assert create.value.response_code == 403


def server_url(gl):
    return gl.url
