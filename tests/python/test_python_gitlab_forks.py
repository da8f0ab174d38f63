"""python-gitlab, unchanged, on forks, transfer and sharing (issue 38) through both hosts (the
Python host and the Go host): project.forks.create / list (the fork's repository checked with
the git CLI, and a push to it leaving the source untouched), project.transfer(namespace),
project.share / unshare and group.share / unshare (which send "expires_at": null), and the
access a share gives, as git over HTTP sees it."""

import subprocess

import gitlab
import pytest

from conftest import git_out, start_either, stop_server


@pytest.fixture(scope="module", params=["python", "go"])
def host(request, tmp_path_factory):
    data_dir = tmp_path_factory.mktemp(f"forks-{request.param}")
    server = start_either(request.param, data_dir)
    server.tokens = {}
    for user in ["ann", "ben", "cid"]:
        server.admin("user", "add", user)
        server.tokens[user] = server.admin("token", "add", user).json["token"]
    yield server
    stop_server(server)


def client(host, user):
    gl = gitlab.Gitlab(host.url, private_token=host.tokens[user] if user != "root" else host.token)
    gl.auth()
    return gl


def remote(host, user, path):
    token = host.tokens[user]
    return host.url.replace("http://", f"http://oauth2:{token}@", 1) + f"/{path}.git"


def git(*args, cwd=None, check=True):
    env = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_TERMINAL_PROMPT": "0",
           "HOME": "/nonexistent", "PATH": "/usr/bin:/bin", "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@x.org"}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=check, capture_output=True, text=True)


def test_fork_list_push_and_unlink(host, tmp_path):
    ann, ben = client(host, "ann"), client(host, "ben")
    source = ann.projects.create({"name": "lib", "visibility": "public", "initialize_with_readme": True})
    # python-gitlab answers a ProjectFork; the project itself is one get away.
    created = ben.projects.get(source.id, lazy=True).forks.create({})
    ben_fork = ben.projects.get(created.id)
    assert ben_fork.path_with_namespace == "ben/lib"
    assert ben_fork.forked_from_project["id"] == source.id
    assert ben_fork.visibility == "public"
    forks = {p.path_with_namespace for p in source.forks.list(get_all=True)}
    assert "ben/lib" in forks
    assert ann.projects.get(source.id).forks_count == len(forks)

    with pytest.raises(gitlab.exceptions.GitlabCreateError) as taken:
        ben.projects.get(source.id, lazy=True).forks.create({})
    assert taken.value.response_code == 409
    assert "Path has already been taken" in str(taken.value)
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as nowhere:
        ben.projects.get(source.id, lazy=True).forks.create({"namespace_path": "ann"})
    assert nowhere.value.response_code == 404
    assert "Target Namespace" in str(nowhere.value)

    work = tmp_path / "ben-lib"
    git("clone", "-q", remote(host, "ben", "ben/lib"), str(work))
    (work / "new.txt").write_text("ben's\n")
    git("add", "new.txt", cwd=work)
    git("commit", "-q", "-m", "Ben's change", cwd=work)
    git("push", "-q", "origin", "main", cwd=work)
    pushed = git_out(work, "rev-parse", "HEAD")
    assert ben.projects.get(ben_fork.id).branches.get("main").commit["id"] == pushed
    assert ann.projects.get(source.id).branches.get("main").commit["id"] != pushed

    ben_fork.delete_fork_relation()
    assert not hasattr(ben.projects.get(ben_fork.id), "forked_from_project")
    # And back, as an administrator does it.
    client(host, "root").projects.get(ben_fork.id).create_fork_relation(source.id)
    assert ben.projects.get(ben_fork.id).forked_from_project["id"] == source.id


def test_transfer(host):
    ann, root = client(host, "ann"), client(host, "root")
    group = root.groups.create({"name": "Moved", "path": "moved", "visibility": "private"})
    group.members.create({"user_id": ann.user.id, "access_level": 40})
    project = ann.projects.create({"name": "tool", "visibility": "internal"})
    project.transfer("moved")
    moved = ann.projects.get(project.id)
    assert moved.path_with_namespace == "moved/tool"
    assert moved.web_url == f"{host.url}/moved/tool"
    assert moved.visibility == "private"
    with pytest.raises(gitlab.exceptions.GitlabGetError):
        ann.projects.get("ann/tool")
    with pytest.raises(gitlab.exceptions.GitlabTransferProjectError) as refused:
        moved.transfer("moved")
    assert refused.value.response_code == 400
    assert "Project is already in this namespace." in str(refused.value)


def test_share_and_unshare(host, tmp_path):
    ann, ben, cid, root = (client(host, u) for u in ["ann", "ben", "cid", "root"])
    team = root.groups.create({"name": "Team", "path": "team", "visibility": "private"})
    team.members.create({"user_id": ann.user.id, "access_level": 10})
    team.members.create({"user_id": ben.user.id, "access_level": 30})
    project = ann.projects.create({"name": "secret", "initialize_with_readme": True})
    with pytest.raises(gitlab.exceptions.GitlabGetError):
        ben.projects.get(project.id)
    project.share(team.id, 20)
    seen = ben.projects.get(project.id)
    assert seen.shared_with_groups == [{"group_id": team.id, "group_name": "Team", "group_full_path": "team",
                                        "group_access_level": 20, "expires_at": None}]
    levels = {m.username: m.access_level for m in project.members_all.list(get_all=True)}
    assert levels["ben"] == 20
    work = tmp_path / "secret"
    git("clone", "-q", remote(host, "ben", "ann/secret"), str(work))
    assert git("push", "-q", "origin", "HEAD:refs/heads/ben", cwd=work, check=False).returncode != 0
    project.unshare(team.id)
    with pytest.raises(gitlab.exceptions.GitlabGetError):
        ben.projects.get(project.id)
    project.share(team.id, 30, expires_at="2999-12-31")
    assert git("push", "-q", "origin", "HEAD:refs/heads/ben", cwd=work, check=False).returncode == 0

    # A group shared with the team: its projects are reached too.
    platform = root.groups.create({"name": "Platform", "path": "platform", "visibility": "private"})
    inside = root.projects.create({"name": "core", "namespace_id": platform.id})
    with pytest.raises(gitlab.exceptions.GitlabGetError):
        ben.projects.get(inside.id)
    platform.share(team.id, 20)
    assert root.groups.get(platform.id).shared_with_groups[0]["group_id"] == team.id
    assert ben.projects.get(inside.id).path_with_namespace == "platform/core"
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as denied:
        cid.groups.get(team.id, lazy=True).share(platform.id, 20)
    assert denied.value.response_code == 404
    platform.unshare(team.id)
    with pytest.raises(gitlab.exceptions.GitlabGetError):
        ben.projects.get(inside.id)
