"""python-gitlab 8.6.0, unchanged, on merging (issue 39, reference gitlab-merge-requests.md
§1.4, §1.5) against both hosts: mr.merge() with its GitLab merge commit, a 405 for a
conflicting merge request, mr.rebase() and the poll of rebase_in_progress, each checked with
the git CLI on the fixture repository of tests/fixtures/merges.sh."""


import gitlab
import pytest

from conftest import build_fixture, git_out, start_either, stop_server


@pytest.fixture(scope="module", params=["python", "go"])
def server(request, tmp_path_factory):
    data_dir = tmp_path_factory.mktemp(f"merges-{request.param}")
    running = start_either(request.param, data_dir)
    yield running
    stop_server(running)


@pytest.fixture(scope="module")
def work(server, tmp_path_factory):
    path = tmp_path_factory.mktemp("merges-fixture") / "r"
    build_fixture("merges.sh", path)
    server.admin("group", "add", "mg", "--visibility", "public")
    server.admin("project", "add", "mg/m", "--repo", path, "--visibility", "public")
    server.admin("user", "add", "devi")
    server.admin("member", "add", "--group", "mg", "--user", "devi", "--access-level", "30")
    return path


@pytest.fixture(scope="module")
def developer(server, work):
    token = server.admin("token", "add", "devi").json["token"]
    gl = gitlab.Gitlab(server.url, private_token=token)
    gl.auth()
    return gl


def tip(work, branch):
    return git_out(work, "rev-parse", f"refs/heads/{branch}").strip()


def open_mr(project, case, title):
    return project.mergerequests.create(
        {"source_branch": f"{case}-source", "target_branch": f"{case}-target", "title": title})


def test_merge(developer, work):
    project = developer.projects.get("mg/m")
    mr = open_mr(project, "clean", "Edit line 18")
    assert (mr.merge_status, mr.detailed_merge_status) == ("can_be_merged", "mergeable")
    target, head = tip(work, "clean-target"), tip(work, "clean-source")
    mr.merge(sha=head, should_remove_source_branch=True)
    assert mr.state == "merged"
    assert mr.merged_by["username"] == "devi"
    commit = tip(work, "clean-target")
    assert mr.merge_commit_sha == commit
    assert git_out(work, "log", "-1", "--format=%P", commit).split() == [target, head]
    message = git_out(work, "log", "-1", "--format=%B", commit).strip()
    assert message == (f"Merge branch 'clean-source' into 'clean-target'\n\nEdit line 18\n\n"
                       f"See merge request mg/m!{mr.iid}")
    assert git_out(work, "branch", "--list", "clean-source").strip() == ""
    assert project.mergerequests.get(mr.iid).state == "merged"

    conflicting = open_mr(project, "conflict", "Edit line 5")
    assert conflicting.has_conflicts is True
    with pytest.raises(gitlab.exceptions.GitlabMRClosedError) as refused:
        conflicting.merge()
    assert refused.value.response_code == 405


def test_rebase(developer, work):
    project = developer.projects.get("mg/m")
    mr = open_mr(project, "rename", "Rename f")
    before, target = tip(work, "rename-source"), tip(work, "rename-target")
    answer = mr.rebase()
    assert answer == {"rebase_in_progress": True}
    polled = project.mergerequests.get(mr.iid, include_rebase_in_progress=True)
    assert polled.rebase_in_progress is False
    after = tip(work, "rename-source")
    assert after != before
    assert git_out(work, "merge-base", target, after).strip() == target
    assert polled.sha == after
    mr = project.mergerequests.get(mr.iid)
    mr.merge(squash=True, squash_commit_message="Rename f, squashed")
    squash = mr.squash_commit_sha
    assert git_out(work, "log", "-1", "--format=%s|%P", squash).strip() == f"Rename f, squashed|{target}"


def test_merge_when_pipeline_succeeds(developer, work):
    """Issues 39/42: python-gitlab's auto-merge calls against a pipeline of commit statuses:
    queued while it runs, cancelled, queued again, merged by the status that makes it succeed."""
    project = developer.projects.get("mg/m")
    mr = open_mr(project, "binary-one", "Binary, when green")
    target, head = tip(work, "binary-one-target"), tip(work, "binary-one-source")
    commit = project.commits.get(head)
    running = commit.statuses.create({"state": "running", "name": "ci"})
    mr.merge(merge_when_pipeline_succeeds=True)
    assert (mr.state, mr.merge_when_pipeline_succeeds) == ("opened", True)
    assert mr.merge_user["username"] == "devi"
    assert tip(work, "binary-one-target") == target
    pipelines = mr.pipelines.list()
    assert [(p.id, p.sha, p.status) for p in pipelines] == [(running.pipeline_id, head, "running")]

    assert mr.cancel_merge_when_pipeline_succeeds() == {"status": "success"}
    assert project.mergerequests.get(mr.iid).merge_when_pipeline_succeeds is False
    mr = project.mergerequests.get(mr.iid)
    mr.merge(merge_when_pipeline_succeeds=True)
    assert mr.merge_when_pipeline_succeeds is True

    commit.statuses.create({"state": "success", "name": "ci"})
    merged = project.mergerequests.get(mr.iid)
    assert merged.state == "merged"
    assert merged.merge_when_pipeline_succeeds is False
    assert git_out(work, "log", "-1", "--format=%P", merged.merge_commit_sha).split() == [target, head]
    assert tip(work, "binary-one-target") == merged.merge_commit_sha
    bodies = [n.body for n in mr.notes.list(get_all=True) if n.system]
    assert f"enabled an automatic merge when all merge checks for {head} pass" in bodies
    assert "canceled the automatic merge" in bodies
