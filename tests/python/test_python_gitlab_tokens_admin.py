"""python-gitlab 8.6.0, unchanged, on project and group access tokens and deploy tokens of
both hosts (issue 38, reference gitlab-administration.md §5-§6): project.access_tokens and
group.access_tokens create/list/get/rotate/delete, project.deploytokens and gl.deploytokens,
and a git clone with a deploy token."""

import datetime
import subprocess

import gitlab
import pytest

from conftest import start_either, stop_server


@pytest.fixture(scope="module", params=["python", "go"])
def server(request, tmp_path_factory):
    data_dir = tmp_path_factory.mktemp(f"tokens-admin-{request.param}")
    running = start_either(request.param, data_dir)
    yield running
    stop_server(running)


@pytest.fixture(scope="module")
def admin(server, git_repo):
    server.admin("group", "add", "tokgrp")
    server.admin("project", "add", "tokgrp/app", "--repo", git_repo, "--visibility", "private")
    server.admin("user", "add", "mia")
    server.admin("member", "add", "--project", "tokgrp/app", "--user", "mia", "--access-level", "40")
    gl = gitlab.Gitlab(server.url, private_token=server.token)
    gl.auth()
    return gl


def days(n):
    return (datetime.datetime.now(datetime.timezone.utc).date() + datetime.timedelta(days=n)).isoformat()


def test_project_access_tokens(admin, server):
    project = admin.projects.get("tokgrp/app")
    made = project.access_tokens.create({"name": "ci", "scopes": ["read_api"], "access_level": 30})
    assert made.token.startswith("glpat-")
    assert (made.access_level, made.resource_type, made.resource_id) == (30, "project", project.id)
    assert made.expires_at == days(365)
    bot = gitlab.Gitlab(server.url, private_token=made.token)
    bot.auth()
    assert bot.user.username.startswith(f"project_{project.id}_bot_")
    assert bot.projects.get("tokgrp/app").id == project.id
    # A read_api token may not write.
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as refused:
        bot.projects.get("tokgrp/app").access_tokens.create({"name": "x", "scopes": ["api"]})
    assert refused.value.response_code == 403
    assert [t.id for t in project.access_tokens.list(get_all=True)] == [made.id]
    got = project.access_tokens.get(made.id)
    assert got.name == "ci" and not hasattr(got, "token")
    # The maintainer may not make an Owner token.
    mia_token = server.admin("token", "add", "mia").json["token"]
    mia = gitlab.Gitlab(server.url, private_token=mia_token)
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as escalated:
        mia.projects.get("tokgrp/app").access_tokens.create({"name": "o", "scopes": ["api"], "access_level": 50})
    assert escalated.value.response_code == 400
    assert "not held by the creating user" in escalated.value.error_message
    rotated = project.access_tokens.rotate(made.id)
    assert rotated["token"] != made.token and rotated["expires_at"] == days(7)
    with pytest.raises(gitlab.exceptions.GitlabAuthenticationError):
        bot.auth()
    project.access_tokens.delete(rotated["id"])
    with pytest.raises(gitlab.exceptions.GitlabGetError):
        project.access_tokens.get(rotated["id"])


def test_group_access_tokens(admin):
    group = admin.groups.get("tokgrp")
    made = group.access_tokens.create({"name": "g", "scopes": ["api"], "expires_at": days(20)})
    assert (made.access_level, made.resource_type, made.expires_at) == (40, "group", days(20))
    assert made.id in [t.id for t in group.access_tokens.list(get_all=True)]
    members = [m.username for m in group.members.list(get_all=True)]
    assert any(name.startswith(f"group_{group.id}_bot_") for name in members)
    group.access_tokens.delete(made.id)
    assert made.id not in [t.id for t in group.access_tokens.list(get_all=True)]


def test_deploy_tokens_and_a_clone(admin, server, tmp_path):
    project = admin.projects.get("tokgrp/app")
    made = project.deploytokens.create({"name": "deploy", "scopes": ["read_repository"], "username": "shipper"})
    assert made.token.startswith("gldt-")
    assert (made.username, made.scopes, made.expires_at, made.revoked) == ("shipper", ["read_repository"], None, False)
    assert [t.id for t in project.deploytokens.list(get_all=True)] == [made.id]
    assert made.id in [t.id for t in admin.deploytokens.list(get_all=True)]
    remote = server.url.replace("http://", f"http://shipper:{made.token}@") + "/tokgrp/app.git"
    env = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_TERMINAL_PROMPT": "0",
           "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    cloned = subprocess.run(["git", "clone", "-q", remote, str(tmp_path / "c")], env=env, capture_output=True, text=True)
    assert cloned.returncode == 0, cloned.stderr
    assert (tmp_path / "c" / "README.md").read_text() == "hello\n"
    # No API access with it.
    with pytest.raises(gitlab.exceptions.GitlabAuthenticationError):
        gitlab.Gitlab(server.url, private_token=made.token).auth()
    project.deploytokens.delete(made.id)
    again = subprocess.run(["git", "clone", "-q", remote, str(tmp_path / "d")], env=env, capture_output=True, text=True)
    assert again.returncode != 0
