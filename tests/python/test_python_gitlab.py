"""python-gitlab 8.6.0, unchanged, against the host: version, instance member roles and a
group's member roles as its owner, and the exceptions it raises for 400, 401 and 403."""

import gitlab
import pytest


@pytest.fixture(scope="module")
def gl(server):
    return gitlab.Gitlab(server.url, private_token=server.token)


@pytest.fixture(scope="module")
def owner_and_outsider(server):
    server.admin("user", "add", "owner1")
    owner = server.admin("token", "add", "owner1").json["token"]
    server.admin("user", "add", "dev1")
    dev = server.admin("token", "add", "dev1").json["token"]
    server.admin("group", "add", "g1")
    server.admin("member", "add", "--group", "g1", "--user", "owner1", "--access-level", 50)
    server.admin("member", "add", "--group", "g1", "--user", "dev1", "--access-level", 30)
    return owner, dev


def test_version(gl):
    version, revision = gl.version()
    assert version == "18.1.0-forgecore"
    assert revision not in ("unknown", "")


def test_instance_member_roles(gl):
    before = [role.id for role in gl.member_roles.list()]
    role = gl.member_roles.create({"name": "pg-role", "base_access_level": 20, "admin_web_hook": True})
    assert role.id > 0
    assert role.admin_web_hook is True and role.base_access_level == 20
    listed = {r.id: r for r in gl.member_roles.list()}
    assert set(listed) == set(before) | {role.id}
    assert listed[role.id].name == "pg-role"
    gl.member_roles.delete(role.id)
    assert role.id not in [r.id for r in gl.member_roles.list()]
    with pytest.raises(gitlab.GitlabDeleteError) as raised:
        gl.member_roles.delete(role.id)
    assert raised.value.response_code == 404


def test_invalid_base_access_level(gl):
    with pytest.raises(gitlab.GitlabCreateError) as raised:
        gl.member_roles.create({"name": "bad", "base_access_level": 1})
    assert raised.value.response_code == 400
    assert "does not have a valid value" in raised.value.error_message


def test_group_member_roles_as_owner(server, owner_and_outsider):
    owner, _ = owner_and_outsider
    roles = gitlab.Gitlab(server.url, private_token=owner).groups.get("g1", lazy=True).member_roles
    assert roles.list() == []
    role = roles.create({"name": "group-role", "base_access_level": 10, "read_code": True})
    assert role.id > 0 and role.group_id is not None and role.read_code is True
    assert [r.id for r in roles.list()] == [role.id]
    roles.delete(role.id)
    assert roles.list() == []


def test_group_member_roles_non_owner_is_403(server, owner_and_outsider):
    _, dev = owner_and_outsider
    roles = gitlab.Gitlab(server.url, private_token=dev).groups.get("g1", lazy=True).member_roles
    with pytest.raises(gitlab.GitlabListError) as raised:
        roles.list()
    assert raised.value.response_code == 403
    with pytest.raises(gitlab.GitlabCreateError) as raised:
        roles.create({"name": "x", "base_access_level": 10})
    assert raised.value.response_code == 403


def test_group_member_roles_anonymous_is_401(server, owner_and_outsider):
    roles = gitlab.Gitlab(server.url).groups.get("g1", lazy=True).member_roles
    with pytest.raises(gitlab.GitlabAuthenticationError) as raised:
        roles.list()
    assert raised.value.response_code == 401
