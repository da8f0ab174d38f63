"""python-gitlab 8.6.0, unchanged, on the routes of issue 28: gl.auth() (GET /user), projects
list and get, branches, tags and protected branches, through the Python host, each write
checked with the git CLI."""

import subprocess

import gitlab
import pytest

from conftest import build_fixture, git_out


@pytest.fixture(scope="module")
def fixture_dir(server, tmp_path_factory):
    path = tmp_path_factory.mktemp("fixtures")
    build_fixture("repo.sh", path)
    server.admin("group", "add", "refs", "--visibility", "public")
    server.admin("project", "add", "refs/work", "--repo", path / "work", "--visibility", "public")
    server.admin("group", "add", "hidden")
    server.admin("project", "add", "hidden/app", "--repo", path / "bare.git")
    return path


@pytest.fixture(scope="module")
def admin(server, fixture_dir):
    gl = gitlab.Gitlab(server.url, private_token=server.token)
    gl.auth()
    return gl


@pytest.fixture(scope="module")
def developer(server, fixture_dir):
    server.admin("user", "add", "devon")
    token = server.admin("token", "add", "devon").json["token"]
    server.admin("member", "add", "--group", "refs", "--user", "devon", "--access-level", "30")
    return gitlab.Gitlab(server.url, private_token=token)


def refs(repo, prefix):
    return git_out(repo, "for-each-ref", "--format=%(refname:short)", prefix).split()


def test_auth_and_projects(admin, developer, server):
    assert admin.user.username == "root"
    assert admin.user.is_admin is True
    assert admin.user.web_url == f"{server.url}/root"
    developer.auth()
    assert developer.user.username == "devon"
    with pytest.raises(gitlab.exceptions.GitlabAuthenticationError):
        gitlab.Gitlab(server.url).auth()

    project = admin.projects.get("refs/work")
    assert project.http_url_to_repo == f"{server.url}/refs/work.git"
    assert project.namespace["full_path"] == "refs"
    assert project.empty_repo is False
    assert not hasattr(project, "forked_from_project")
    mine = [p.path_with_namespace for p in developer.projects.list(membership=True, get_all=True)]
    assert mine == ["refs/work"]
    everything = {p.path_with_namespace for p in admin.projects.list(get_all=True)}
    assert {"refs/work", "hidden/app"} <= everything
    anonymous = {p.path_with_namespace for p in gitlab.Gitlab(server.url).projects.list(get_all=True)}
    assert "refs/work" in anonymous and "hidden/app" not in anonymous
    with pytest.raises(gitlab.exceptions.GitlabGetError) as missing:
        developer.projects.get("hidden/app")
    assert missing.value.response_code == 404


def test_branches(developer, fixture_dir):
    work = fixture_dir / "work"
    project = developer.projects.get("refs/work", lazy=True)
    listed = [b.name for b in project.branches.list(get_all=True, per_page=1)]
    assert listed == refs(work, "refs/heads")
    created = project.branches.create({"branch": "py/topic", "ref": "feature"})
    assert created.commit["id"] == git_out(work, "rev-parse", "feature").strip()
    assert git_out(work, "rev-parse", "refs/heads/py/topic").strip() == created.commit["id"]
    assert project.branches.get("py/topic").can_push is True
    main = project.branches.get("main")
    assert (main.protected, main.default, main.can_push) == (True, True, False)
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as exists:
        project.branches.create({"branch": "py/topic", "ref": "main"})
    assert exists.value.response_code == 400
    project.branches.delete("py/topic")
    assert "py/topic" not in refs(work, "refs/heads")
    with pytest.raises(gitlab.exceptions.GitlabDeleteError) as default:
        project.branches.delete("main")
    assert default.value.response_code == 400


def test_tags(developer, fixture_dir):
    work = fixture_dir / "work"
    project = developer.projects.get("refs/work", lazy=True)
    names = [t.name for t in project.tags.list(order_by="name", sort="asc", get_all=True)]
    assert names == refs(work, "refs/tags")
    tag = project.tags.create({"tag_name": "py-1.0", "ref": "main", "message": "From Python"})
    assert tag.message == "From Python"
    assert git_out(work, "cat-file", "-t", "py-1.0").strip() == "tag"
    assert "tagger devon <" in git_out(work, "cat-file", "-p", "py-1.0")
    light = project.tags.create({"tag_name": "py-light", "ref": "main"})
    assert git_out(work, "cat-file", "-t", "py-light").strip() == "commit"
    assert light.target == light.commit["id"]
    project.tags.delete("py-1.0")
    project.tags.delete("py-light")
    assert refs(work, "refs/tags/py-*") == []
    subprocess.run(["git", "-C", str(work), "fsck", "--strict", "--no-dangling"], check=True)


def test_protected_branches(admin, developer, fixture_dir):
    work = fixture_dir / "work"
    project = admin.projects.get("refs/work", lazy=True)
    assert [p.name for p in project.protectedbranches.list()] == ["main"]
    project.protectedbranches.create({"name": "stable-*", "push_access_level": 40, "merge_access_level": 30})
    rule = project.protectedbranches.get("stable-*")
    assert rule.push_access_levels[0]["access_level"] == 40
    as_developer = developer.projects.get("refs/work", lazy=True)
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as refused:
        as_developer.branches.create({"branch": "stable-1", "ref": "main"})
    assert refused.value.response_code == 400
    assert "protected" in str(refused.value)
    with pytest.raises(gitlab.exceptions.GitlabListError) as forbidden:
        as_developer.protectedbranches.list()
    assert forbidden.value.response_code == 403
    project.branches.create({"branch": "stable-1", "ref": "main"})
    assert "stable-1" in refs(work, "refs/heads")
    project.protectedbranches.delete("stable-*")
    as_developer.branches.delete("stable-1")
    assert "stable-1" not in refs(work, "refs/heads")
