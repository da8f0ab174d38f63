"""python-gitlab, unchanged, on push rules of both hosts (the Python host and the Go host):
project.pushrules.create/get/save/delete, and a `git push` the rule refuses showing GitLab's
text on the client's terminal, then accepted once it follows the rule (issue #42, D12)."""

import subprocess
import sys

import gitlab
import pytest

from conftest import REPO, start_host, stop_server

GO_HOST = REPO / "target" / "debug" / "forgecore-http"


def git(cwd, *args, check=True):
    env = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "HOME": str(cwd), "PATH": "/usr/bin:/bin",
           "GIT_TERMINAL_PROMPT": "0"}
    return subprocess.run(["git", "-c", "user.name=Py", "-c", "user.email=py@example.com", *args], cwd=cwd,
                          check=check, capture_output=True, text=True, env=env)


@pytest.fixture(scope="module", params=["python", "go"])
def host(request, tmp_path_factory):
    data_dir = tmp_path_factory.mktemp(f"push-rules-{request.param}")
    if request.param == "go":
        assert GO_HOST.exists(), f"{GO_HOST} is missing: make build"
        command = [GO_HOST, "-listen", "127.0.0.1:0", "-data-dir", data_dir, "-print-admin-token"]
    else:
        command = [sys.executable, "-m", "forgecore", "serve", "--listen", "127.0.0.1:0",
                   "--data-dir", data_dir, "--print-admin-token"]
    server = start_host(command, data_dir)
    work = tmp_path_factory.mktemp(f"push-rules-work-{request.param}")
    git(work, "init", "-q", "-b", "main")
    (work / "README.md").write_text("hello\n")
    git(work, "add", ".")
    git(work, "commit", "-q", "-m", "first")
    bare = work.parent / f"push-rules-{request.param}.git"
    git(work, "clone", "-q", "--bare", str(work), str(bare))
    server.admin("group", "add", "pr", "--visibility", "private")
    server.admin("project", "add", "pr/app", "--repo", bare, "--visibility", "private")
    server.work = work
    yield server
    stop_server(server)


def test_push_rules_crud_and_a_refused_push(host):
    gl = gitlab.Gitlab(host.url, private_token=host.token)
    project = gl.projects.get("pr/app")
    rule = project.pushrules.create({"commit_message_regex": "^JIRA-\\d+", "deny_delete_tag": True})
    assert (rule.commit_message_regex, rule.deny_delete_tag, rule.project_id) == ("^JIRA-\\d+", True, project.id)
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as exists:
        project.pushrules.create({"member_check": True})
    assert exists.value.response_code == 422
    got = project.pushrules.get()
    assert got.id == rule.id
    got.max_file_size = 2
    got.save()
    assert project.pushrules.get().max_file_size == 2

    remote = host.url.replace("http://", f"http://oauth2:{host.token}@") + "/pr/app.git"
    (host.work / "more.txt").write_text("more\n")
    git(host.work, "add", ".")
    git(host.work, "commit", "-q", "-m", "no ticket")
    refused = git(host.work, "push", remote, "HEAD:main", check=False)
    assert refused.returncode != 0
    assert "remote: GitLab: Commit message does not follow the pattern '^JIRA-\\d+'" in refused.stderr
    assert "pre-receive hook declined" in refused.stderr
    git(host.work, "commit", "-q", "--amend", "-m", "JIRA-1 with a ticket")
    git(host.work, "push", "-q", remote, "HEAD:main")
    assert project.commits.get("main").title == "JIRA-1 with a ticket"

    project.pushrules.get().delete()
    assert gl.http_get(f"/projects/{project.id}/push_rule") is None
