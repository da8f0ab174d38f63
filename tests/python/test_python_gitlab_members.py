"""python-gitlab 8.6.0, unchanged, on the members routes of issue 38 through the Python host:
project.members.create / list / get, project.members_all.list, member.save() (which always
resends access_level), member.delete(), group.members.create with a member_role_id, and the
errors it raises for GitLab's texts."""

import subprocess

import gitlab
import pytest


@pytest.fixture(scope="module")
def world(server, tmp_path_factory):
    repo = tmp_path_factory.mktemp("repos") / "app.git"
    subprocess.run(["git", "init", "-q", "--bare", str(repo)], check=True)
    server.admin("group", "add", "crew")
    server.admin("group", "add", "crew/team")
    server.admin("project", "add", "crew/team/app", "--repo", repo)
    tokens, ids = {}, {}
    for user in ["cap", "mate", "deck", "hand"]:
        ids[user] = server.admin("user", "add", user).json["id"]
        tokens[user] = server.admin("token", "add", user).json["token"]
    server.admin("member", "add", "--group", "crew", "--user", "cap", "--access-level", 50)
    server.admin("member", "add", "--group", "crew/team", "--user", "mate", "--access-level", 40)
    admin = gitlab.Gitlab(server.url, private_token=server.token)
    clients = {user: gitlab.Gitlab(server.url, private_token=token) for user, token in tokens.items()}
    return admin, clients, ids


def test_project_members(world):
    admin, clients, ids = world
    project = clients["mate"].projects.get("crew/team/app")
    created = project.members.create({"user_id": ids["deck"], "access_level": 30})
    assert (created.username, created.access_level, created.expires_at) == ("deck", 30, None)
    assert created.created_by["username"] == "mate"
    assert [m.username for m in project.members.list(get_all=True)] == ["deck"]
    everyone = {m.username: m.access_level for m in project.members_all.list(get_all=True)}
    assert everyone == {"cap": 50, "mate": 40, "deck": 30}

    member = project.members.get(ids["deck"])
    member.access_level = 20
    member.expires_at = "2099-06-30"
    member.save()
    again = project.members.get(ids["deck"])
    assert (again.access_level, again.expires_at) == (20, "2099-06-30")

    # A Maintainer may not make an Owner.
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as refused:
        project.members.create({"user_id": ids["hand"], "access_level": 50})
    assert refused.value.response_code == 403
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as exists:
        project.members.create({"user_id": ids["deck"], "access_level": 30})
    assert exists.value.response_code == 409
    assert "Member already exists" in str(exists.value)
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as missing:
        project.members.create({"username": "nobody", "access_level": 30})
    assert missing.value.response_code == 404

    # The member leaves by themself.
    clients["deck"].projects.get("crew/team/app", lazy=True).members.delete(ids["deck"])
    assert project.members.list(get_all=True) == []
    with pytest.raises(gitlab.exceptions.GitlabGetError) as gone:
        clients["deck"].projects.get("crew/team/app")
    assert gone.value.response_code == 404


def test_group_members_with_a_custom_role(world):
    admin, clients, ids = world
    group = clients["cap"].groups.get("crew")
    role = group.member_roles.create({"name": "Helper", "base_access_level": 20, "admin_group_member": True})
    created = group.members.create({"user_id": ids["hand"], "access_level": 20, "member_role_id": role.id})
    assert created.member_role["id"] == role.id
    assert created.member_role["admin_group_member"] is True

    # save() resends access_level: unchanged, it passes with the role kept.
    member = group.members.get(ids["hand"])
    member.expires_at = "2099-01-01"
    member.save()
    assert group.members.get(ids["hand"]).member_role["id"] == role.id
    # A level change while the role stays is GitLab's validation error.
    member.access_level = 30
    with pytest.raises(gitlab.exceptions.GitlabUpdateError) as locked:
        member.save()
    assert locked.value.response_code == 400
    assert "existing association with a custom role" in str(locked.value)

    # The helper (a Reporter with admin_group_member) adds Reporters, not Developers.
    helper_group = clients["hand"].groups.get("crew")
    helper_group.members.create({"user_id": ids["deck"], "access_level": 20})
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as higher:
        helper_group.members.create({"user_id": ids["mate"], "access_level": 30})
    assert higher.value.response_code == 400
    assert "can't be higher than the current user's one" in str(higher.value)

    all_of_team = {m.username: m.access_level for m in clients["cap"].groups.get("crew/team").members_all.list(get_all=True)}
    assert all_of_team == {"cap": 50, "mate": 40, "hand": 20, "deck": 20}
    group.members.delete(ids["deck"])
    assert ids["deck"] not in [m.id for m in group.members.list(get_all=True)]
    # The last Owner stays.
    with pytest.raises(gitlab.exceptions.GitlabDeleteError) as last:
        group.members.delete(ids["cap"])
    assert last.value.response_code == 403
