"""python-gitlab, unchanged, on releases and commit statuses of both hosts (the Python host and
the Go host): project.releases.create/list/get/save/delete (a release made from `ref` creates
its tag, checked with the git CLI), release links, and project.commits.get(sha).statuses
create/list with GitLab's state-machine refusal, then the commit's last_pipeline and the
pipelines it made (issue #42)."""


import gitlab
import pytest

from conftest import build_fixture, git_out, start_either, stop_server


@pytest.fixture(scope="module", params=["python", "go"])
def host(request, tmp_path_factory):
    data_dir = tmp_path_factory.mktemp(f"releases-{request.param}")
    server = start_either(request.param, data_dir)
    fixtures = tmp_path_factory.mktemp(f"releases-fixtures-{request.param}")
    build_fixture("repo.sh", fixtures)
    server.repo = fixtures / "bare.git"
    server.admin("group", "add", "rel", "--visibility", "public")
    server.admin("project", "add", "rel/app", "--repo", server.repo, "--visibility", "public")
    for user, level in [("devi", "30"), ("rory", "20")]:
        server.admin("user", "add", user)
        setattr(server, user, server.admin("token", "add", user).json["token"])
        server.admin("member", "add", "--group", "rel", "--user", user, "--access-level", level)
    yield server
    stop_server(server)


def test_releases(host):
    dev = gitlab.Gitlab(host.url, private_token=host.devi)
    project = dev.projects.get("rel/app")
    made = project.releases.create({"tag_name": "v5.0.0", "ref": "main", "name": "Five",
                                    "description": "notes",
                                    "assets": {"links": [{"name": "bin", "url": "https://example.com/bin"}]}})
    assert made.tag_name == "v5.0.0"
    assert git_out(host.repo, "cat-file", "-t", "v5.0.0") == "commit"
    assert git_out(host.repo, "rev-parse", "v5.0.0") == git_out(host.repo, "rev-parse", "main")
    assert made.commit["id"] == git_out(host.repo, "rev-parse", "main")
    assert [s["format"] for s in made.assets["sources"]] == ["zip", "tar.gz", "tar.bz2", "tar"]
    project.releases.create({"tag_name": "v1.0.0", "description": "old", "released_at": "2001-01-01T00:00:00Z"})
    assert [r.tag_name for r in project.releases.list(get_all=True)] == ["v5.0.0", "v1.0.0"]
    assert [r.tag_name for r in project.releases.list(sort="asc", get_all=True)] == ["v1.0.0", "v5.0.0"]

    got = project.releases.get("v5.0.0")
    assert (got.name, got.description, got.author["username"]) == ("Five", "notes", "devi")
    got.description = "better notes"
    got.save()
    assert project.releases.get("v5.0.0").description == "better notes"

    link = got.links.create({"name": "docs", "url": "https://example.com/docs", "link_type": "runbook"})
    assert sorted(l.name for l in got.links.list(get_all=True)) == ["bin", "docs"]
    assert got.links.get(link.id).link_type == "runbook"
    got.links.delete(link.id)
    assert [l.name for l in got.links.list(get_all=True)] == ["bin"]

    with pytest.raises(gitlab.exceptions.GitlabCreateError) as exists:
        project.releases.create({"tag_name": "v5.0.0"})
    assert (exists.value.response_code, exists.value.error_message) == (409, "Release already exists")
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as no_ref:
        project.releases.create({"tag_name": "v6.0.0"})
    assert (no_ref.value.response_code, no_ref.value.error_message) == (422, "Ref is not specified")
    reporter = gitlab.Gitlab(host.url, private_token=host.rory).projects.get("rel/app", lazy=True)
    assert reporter.releases.get("v5.0.0").tag_name == "v5.0.0"
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as denied:
        reporter.releases.create({"tag_name": "v1.0.0", "ref": "main"})
    assert denied.value.response_code == 403

    project.releases.delete("v1.0.0")
    assert [r.tag_name for r in project.releases.list(get_all=True)] == ["v5.0.0"]
    assert git_out(host.repo, "cat-file", "-t", "v1.0.0") == "tag", "the tag stays"


def test_commit_statuses(host):
    dev = gitlab.Gitlab(host.url, private_token=host.devi)
    project = dev.projects.get("rel/app", lazy=True)
    sha = git_out(host.repo, "rev-parse", "main")
    commit = project.commits.get(sha)
    assert commit.last_pipeline is None
    made = commit.statuses.create({"state": "pending", "name": "ci/build", "ref": "main",
                                   "target_url": "https://ci.example.com/1", "description": "queued"})
    assert (made.status, made.name, made.ref) == ("pending", "ci/build", "main")
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as again:
        commit.statuses.create({"state": "pending", "name": "ci/build", "ref": "main"})
    assert again.value.response_code == 400
    assert again.value.error_message.startswith("Cannot transition status via :enqueue from :pending")
    commit.statuses.create({"state": "success", "name": "ci/build", "ref": "main", "coverage": 91.5})
    listed = commit.statuses.list(get_all=True)
    assert [(s.name, s.status, s.coverage) for s in listed] == [("ci/build", "success", 91.5)]
    commit = project.commits.get(sha)
    assert commit.last_pipeline["status"] == "success"
    assert commit.status == "success"
    pipelines = project.pipelines.list(sha=sha, get_all=True)
    assert [p.id for p in pipelines] == [commit.last_pipeline["id"]]
    assert project.pipelines.get(commit.last_pipeline["id"]).source == "external"
    reporter = gitlab.Gitlab(host.url, private_token=host.rory).projects.get("rel/app", lazy=True)
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as denied:
        reporter.commits.get(sha).statuses.create({"state": "failed"})
    assert denied.value.response_code == 403
