"""B10 repository health through the real Python host: python-gitlab 8.6.0 has no method for it,
so callers use `gl.http_get(".../repository/health", query_data={"generate": True})`, which sends
`generate=True`. The 404 -> generate -> 200 flow, who may see and generate a report, and the
default rate limit (5 generations an hour per project) with its 429 and Retry-After."""

import json
import subprocess
from urllib.parse import quote

import gitlab
import pytest

from conftest import git_out

RATE_LIMITED = {"message": {"error": "Repository health has been requested too many times. Try again later."}}


def health_path(project):
    return f"/projects/{quote(project, safe='')}/repository/health"


@pytest.fixture(scope="module")
def users(server):
    tokens = {}
    for name in ("hmaint", "hdev", "houtsider"):
        server.admin("user", "add", name)
        tokens[name] = server.admin("token", "add", name).json["token"]
    tokens["root"] = server.token
    return tokens


@pytest.fixture(scope="module")
def projects(server, users, git_repo):
    server.admin("group", "add", "hg", "--visibility", "private")
    for name, visibility in (("secret", "private"), ("open", "public"), ("limited", "private"), ("other", "private")):
        server.admin("project", "add", f"hg/{name}", "--repo", git_repo, "--visibility", visibility)
    server.admin("member", "add", "--group", "hg", "--user", "hmaint", "--access-level", 40)
    server.admin("member", "add", "--group", "hg", "--user", "hdev", "--access-level", 30)
    return git_repo


def get(server, project, query="", token=None):
    status, _, body = server.request("GET", f"/api/v4{health_path(project)}{query}", token=token)
    return status, json.loads(body)


def test_404_until_generated_then_the_stored_report(server, users, projects):
    gl = gitlab.Gitlab(server.url, private_token=users["hmaint"])
    with pytest.raises(gitlab.GitlabHttpError) as raised:
        gl.http_get(health_path("hg/secret"))
    assert raised.value.response_code == 404
    assert get(server, "hg/secret", token=users["hmaint"]) == (404, {"message": "404 Not Found"})

    report = gl.http_get(health_path("hg/secret"), query_data={"generate": True})
    assert isinstance(report, dict)
    assert list(report) == ["size", "references", "objects", "commit_graph", "bitmap", "multi_pack_index",
                            "multi_pack_index_bitmap", "alternates", "is_object_pool", "last_full_repack",
                            "updated_at", "maintenance"]
    counts = dict(line.split(": ", 1) for line in git_out(projects, "count-objects", "-v").splitlines())
    assert report["objects"]["loose_objects_count"] == int(counts["count"])
    assert report["objects"]["packfile_count"] == int(counts["packs"])
    assert report["references"]["reference_backend"] == "REFERENCE_BACKEND_FILES"
    assert report["size"] > report["objects"]["size"] > 0
    assert report["updated_at"].endswith("Z") and len(report["updated_at"]) == 24
    # The stored report, for any maintainer or administrator.
    assert gl.http_get(health_path("hg/secret")) == report
    root = gitlab.Gitlab(server.url, private_token=users["root"])
    assert root.http_get(health_path("hg/secret")) == report


@pytest.mark.parametrize("project, user, status", [
    ("hg/secret", None, 404),
    ("hg/secret", "houtsider", 404),
    ("hg/secret", "hdev", 403),
    ("hg/open", None, 403),
    ("hg/open", "houtsider", 403),
    ("hg/open", "hdev", 403),
])
def test_who_may_not(server, users, projects, project, user, status):
    token = users[user] if user else None
    expected = {"message": "404 Project Not Found"} if status == 404 else {"message": "403 Forbidden"}
    for query in ("", "?generate=true"):
        assert get(server, project, query, token) == (status, expected)
    gl = gitlab.Gitlab(server.url, private_token=token)
    with pytest.raises(gitlab.GitlabHttpError) as raised:
        gl.http_get(health_path(project), query_data={"generate": True})
    assert raised.value.response_code == status


def test_generation_is_limited_to_5_an_hour_per_project(server, users, projects):
    # Refused attempts do not count.
    assert get(server, "hg/limited", "?generate=true", users["hdev"])[0] == 403
    for token in (users["hmaint"], users["root"]) * 2 + (users["hmaint"],):
        assert get(server, "hg/limited", "?generate=true", token)[0] == 200
    status, headers, body = server.request("GET", f"/api/v4{health_path('hg/limited')}?generate=true",
                                           token=users["root"])
    assert (status, json.loads(body)) == (429, RATE_LIMITED)
    assert 1 <= int(headers["retry-after"]) <= 3600
    assert "ratelimit-limit" not in headers
    # python-gitlab sees the 429 too (without waiting out Retry-After).
    gl = gitlab.Gitlab(server.url, private_token=users["hmaint"])
    with pytest.raises(gitlab.GitlabHttpError) as raised:
        gl.http_get(health_path("hg/limited"), query_data={"generate": True}, obey_rate_limit=False)
    assert raised.value.response_code == 429
    # Reading the stored report is not limited, and the other project has its own budget.
    for _ in range(3):
        assert get(server, "hg/limited", token=users["hmaint"])[0] == 200
    assert get(server, "hg/other", "?generate=true", users["hmaint"])[0] == 200


def test_a_new_report_sees_a_new_commit(server, users, projects, tmp_path):
    work = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", str(projects), str(work)], check=True)
    subprocess.run(["git", "init", "-q", "--bare", str(tmp_path / "fresh.git")], check=True)
    server.admin("project", "add", "hg/fresh", "--repo", tmp_path / "fresh.git", "--visibility", "private")
    status, empty = get(server, "hg/fresh", "?generate=true", users["root"])
    assert status == 200 and empty["objects"]["size"] == 0 and empty["references"]["loose_count"] == 0
    subprocess.run(["git", "-C", str(work), "push", "-q", str(tmp_path / "fresh.git"), "HEAD:refs/heads/main"],
                   check=True)
    status, pushed = get(server, "hg/fresh", "?generate=true", users["root"])
    assert status == 200
    assert pushed["objects"]["size"] > 0 and pushed["references"]["loose_count"] == 1
    assert pushed["updated_at"] > empty["updated_at"]
