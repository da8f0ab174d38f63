"""python-gitlab, unchanged, on issue #38's administration finish, on both hosts (the Python host
and the Go host): gl.groups.list() lists the groups shared with the caller's group (and those
below them) at the link's level, and User.bot is true for a project access token's bot only."""


import gitlab
import pytest

from conftest import start_either, stop_server


@pytest.fixture(scope="module", params=["python", "go"])
def host(request, tmp_path_factory):
    data_dir = tmp_path_factory.mktemp(f"admin-shares-{request.param}")
    server = start_either(request.param, data_dir)
    server.admin("user", "add", "bob")
    server.bob = server.admin("token", "add", "bob").json["token"]
    server.admin("group", "add", "devs")
    server.admin("group", "add", "platform")
    server.admin("group", "add", "platform/inner")
    server.admin("member", "add", "--group", "devs", "--user", "bob", "--access-level", 40)
    yield server
    stop_server(server)


def test_groups_shared_with_the_callers_group_are_listed_at_the_links_level(host):
    admin = gitlab.Gitlab(host.url, private_token=host.token)
    bob = gitlab.Gitlab(host.url, private_token=host.bob)
    devs, platform = admin.groups.get("devs"), admin.groups.get("platform")
    assert [g.full_path for g in bob.groups.list(get_all=True)] == ["devs"]
    platform.share(devs.id, gitlab.const.AccessLevel.DEVELOPER)
    assert [g.full_path for g in bob.groups.list(get_all=True)] == ["devs", "platform/inner", "platform"]
    assert [g.full_path for g in bob.groups.list(min_access_level=30, get_all=True)] == \
        ["devs", "platform/inner", "platform"]
    assert [g.full_path for g in bob.groups.list(min_access_level=40, get_all=True)] == ["devs"]
    assert bob.groups.get("platform/inner").full_path == "platform/inner"
    platform.unshare(devs.id)
    assert [g.full_path for g in bob.groups.list(get_all=True)] == ["devs"]


def test_a_project_access_tokens_bot_is_a_bot(host):
    admin = gitlab.Gitlab(host.url, private_token=host.token)
    group = admin.groups.get("devs")
    project = admin.projects.create({"name": "tool", "namespace_id": group.id})
    token = project.access_tokens.create({"name": "ci", "scopes": ["api"], "access_level": 30})
    assert admin.users.get(token.user_id).bot is True
    bot = gitlab.Gitlab(host.url, private_token=token.token)
    bot.auth()
    assert (bot.user.id, bot.user.bot) == (token.user_id, True)
    assert admin.users.get(admin.users.list(username="bob")[0].id).bot is False
