"""python-gitlab, unchanged, on the merge requests of both hosts (the Python host and the Go
host; issue 39): project.mergerequests.create/list/get, mr.save() (PUT), mr.changes(),
mr.commits() and mr.diffs.list() (the versions), compared with the git CLI on the fixture
repository of tests/fixtures/mr_review.sh."""


import gitlab
import pytest

from conftest import build_fixture, git_out, start_either, stop_server


@pytest.fixture(scope="module", params=["python", "go"])
def host(request, tmp_path_factory):
    data_dir = tmp_path_factory.mktemp(f"mrs-{request.param}")
    server = start_either(request.param, data_dir)
    fixtures = tmp_path_factory.mktemp(f"mrs-fixtures-{request.param}")
    build_fixture("mr_review.sh", fixtures)
    server.admin("group", "add", "fx", "--visibility", "public")
    server.admin("project", "add", "fx/review", "--repo", fixtures / "review.git", "--visibility", "public")
    server.admin("user", "add", "devon")
    server.admin("member", "add", "--project", "fx/review", "--user", "devon", "--access-level", "30")
    server.dev_token = server.admin("token", "add", "devon").json["token"]
    server.repo = fixtures / "review.git"
    yield server
    stop_server(server)


def test_create_list_get_save_and_read(host):
    repo = host.repo
    gl = gitlab.Gitlab(host.url, private_token=host.dev_token)
    project = gl.projects.get("fx/review")
    mr = project.mergerequests.create({"source_branch": "feature", "target_branch": "main",
                                       "title": "Add the feature", "labels": ["deps"]})
    head = git_out(repo, "rev-parse", "feature")
    base = git_out(repo, "merge-base", "main", "feature")
    assert (mr.iid, mr.state, mr.sha, mr.labels) == (1, "opened", head, ["deps"])
    assert mr.diff_refs == {"base_sha": base, "head_sha": head, "start_sha": git_out(repo, "rev-parse", "main")}
    assert mr.changes_count == str(len(git_out(repo, "diff", "--name-only", f"{base}...{head}").split("\n")))
    assert mr.web_url == f"{host.url}/fx/review/-/merge_requests/1"
    # The sub-managers take project_id and iid from the answer.
    assert mr.project_id == project.id

    with pytest.raises(gitlab.exceptions.GitlabCreateError) as twice:
        project.mergerequests.create({"source_branch": "feature", "target_branch": "main", "title": "x"})
    assert twice.value.response_code == 409

    listed = project.mergerequests.list(state="opened", order_by="updated_at", sort="desc", get_all=True)
    assert [m.iid for m in listed] == [1]
    assert [m.iid for m in project.mergerequests.list(iids=[1], get_all=True)] == [1]
    assert project.mergerequests.list(source_branch="other", get_all=True) == []
    assert [m.iid for m in gl.mergerequests.list(scope="created_by_me", get_all=True)] == [1]

    got = project.mergerequests.get(1)
    assert got.title == "Add the feature"
    got.title = "Draft: Add the feature"
    got.description = "Reviewed by python-gitlab"
    got.save()
    again = project.mergerequests.get(1)
    assert (again.title, again.draft, again.description) == ("Draft: Add the feature", True,
                                                             "Reviewed by python-gitlab")

    commits = [c.id for c in again.commits()]
    assert commits == git_out(repo, "log", "--format=%H", f"{base}..{head}").split("\n")
    changes = again.changes()
    paths = sorted(c["new_path"] for c in changes["changes"])
    assert paths == sorted(git_out(repo, "diff", "--name-only", "-M", f"{base}...{head}").split("\n"))
    versions = again.diffs.list(get_all=True)
    assert [(v.head_commit_sha, v.base_commit_sha) for v in versions] == [(head, base)]
    version = again.diffs.get(versions[0].id)
    assert len(version.commits) == len(commits)

    again.state_event = "close"
    again.save()
    assert project.mergerequests.get(1).state == "closed"
