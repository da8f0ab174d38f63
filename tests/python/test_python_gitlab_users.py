"""python-gitlab 8.6.0, unchanged, on the Users API of both hosts (issue 38, reference
gitlab-administration.md §2): gl.users.create, list(username=), get, save() (PUT), delete,
and User.block/unblock/deactivate/activate with the values and states python-gitlab takes
from the answers; a blocked user's own client is refused."""


import gitlab
import pytest

from conftest import start_either, stop_server


@pytest.fixture(scope="module", params=["python", "go"])
def server(request, tmp_path_factory):
    data_dir = tmp_path_factory.mktemp(f"users-{request.param}")
    running = start_either(request.param, data_dir)
    yield running
    stop_server(running)


@pytest.fixture(scope="module")
def admin(server):
    gl = gitlab.Gitlab(server.url, private_token=server.token)
    gl.auth()
    return gl


def test_create_list_get_update_delete(admin, server):
    user = admin.users.create({"username": "pyuser", "name": "Py User", "email": "py@example.com",
                               "password": "correct horse", "bio": "made by python-gitlab"})
    assert (user.username, user.state, user.bio, user.is_admin) == ("pyuser", "active", "made by python-gitlab", False)
    assert user.web_url == f"{server.url}/pyuser"
    found = admin.users.list(username="PYUSER")
    assert [u.id for u in found] == [user.id]
    assert admin.users.list(username="nobody") == []
    fetched = admin.users.get(user.id)
    assert (fetched.email, fetched.highest_role) == ("py@example.com", 0)

    fetched.bio = "edited"
    fetched.location = "Porto"
    fetched.save()
    again = admin.users.get(user.id)
    assert (again.bio, again.location, again.name) == ("edited", "Porto", "Py User")

    with pytest.raises(gitlab.exceptions.GitlabCreateError) as taken:
        admin.users.create({"username": "PyUser", "name": "X", "email": "other@example.com",
                            "force_random_password": True})
    assert taken.value.response_code == 409
    assert "Username has already been taken" in str(taken.value)
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as short:
        admin.users.create({"username": "shorty", "name": "X", "email": "s@example.com", "password": "short"})
    assert short.value.response_code == 400

    again.delete()
    with pytest.raises(gitlab.exceptions.GitlabGetError) as gone:
        admin.users.get(user.id)
    assert gone.value.response_code == 404


def test_block_unblock_deactivate_activate(admin, server):
    user = admin.users.create({"username": "pystate", "name": "Py State", "email": "state@example.com",
                               "reset_password": True})
    token = server.admin("token", "add", "pystate").json["token"]
    own = gitlab.Gitlab(server.url, private_token=token)
    own.auth()
    assert own.user.username == "pystate"

    assert user.block() is True
    assert user.state == "blocked"
    assert user.block() is None
    with pytest.raises(gitlab.exceptions.GitlabGetError) as refused:
        own.auth()
    assert refused.value.response_code == 403
    assert "Your account has been blocked." in str(refused.value)
    assert admin.users.list(username="pystate")[0].state == "blocked"
    assert user.unblock() is True
    assert user.state == "active"
    assert user.unblock() is False

    assert user.deactivate() is True
    assert user.state == "deactivated"
    with pytest.raises(gitlab.exceptions.GitlabGetError) as deactivated:
        own.auth()
    assert "Your account has been deactivated by your administrator." in str(deactivated.value)
    with pytest.raises(gitlab.exceptions.GitlabUnblockError):
        user.unblock()
    assert user.activate() is True
    assert user.state == "active"
    own.auth()
    assert admin.users.get(user.id).state == "active"

    me = admin.users.get(admin.user.id)
    with pytest.raises(gitlab.exceptions.GitlabBlockError) as self_block:
        me.block()
    assert "The API initiating user cannot be blocked by the API" in str(self_block.value)
