"""Changelogs (B8, B9) through the real Python host, as the clients call them.

python-gitlab 8.6.0 has no changelog method: users call `gl.http_get` / `gl.http_post`, which
parse JSON only when the response says `application/json`. GitLab's Go client calls
`Repositories.GenerateChangelogData` (GET, query `version`, `config_file`, `date` as
`YYYY-MM-DD`, `from`, `to`, `trailer`; reads `{"notes": string}`) and `Repositories.AddChangelog`
(POST, JSON body `version`, `branch`, `config_file`, `date` as `"YYYY-MM-DD"`, `file`, `from`,
`message`, `to`, `trailer`, all omitempty; needs a status in {200, 201, 202, 204}); those exact
requests are sent here as raw HTTP with the Go client's headers.
"""

import json
import subprocess
from urllib.parse import urlencode

import gitlab
import pytest

from conftest import build_fixture, git_out

PATH = "/projects/fx%2Flog/repository/changelog"


@pytest.fixture(scope="module")
def repo(server, tmp_path_factory):
    base = tmp_path_factory.mktemp("changelog")
    build_fixture("changelog.sh", base)
    git_dir = base / "log.git"
    server.admin("group", "add", "fx", "--visibility", "public")
    server.admin("project", "add", "fx/log", "--repo", git_dir, "--visibility", "public")
    server.admin("user", "add", "alice", "--email", "alice@example.com")
    server.admin("member", "add", "--project", "fx/log", "--user", "alice", "--access-level", "40")
    return git_dir


@pytest.fixture(scope="module")
def token(server, repo):
    return server.admin("token", "add", "alice").json["token"]


@pytest.fixture(scope="module")
def job_token(server, repo):
    return server.admin("job-token", "add", "--project", "fx/log").json["token"]


def test_python_gitlab_http_get(server, repo, token, job_token):
    gl = gitlab.Gitlab(server.url, private_token=token)
    data = gl.http_get(PATH, query_data={"version": "2.1.0", "date": "2024-01-02T00:00:00Z"})
    assert isinstance(data, dict) and list(data) == ["notes"]
    notes = data["notes"]
    assert notes.startswith("## 2.1.0 (2024-01-02)\n\n### performance (1 change)\n\n- [Speed up](")
    assert f"([merge request]({server.url}/fx/log/-/merge_requests/7))" in notes
    assert notes.endswith(")\n")
    # A CI job token of the project reads it too, and a leading v changes nothing.
    by_job = gitlab.Gitlab(server.url, job_token=job_token)
    assert by_job.http_get(PATH, query_data={"version": "v2.1.0", "date": "2024-01-02"}) == data


def test_python_gitlab_errors(server, repo, token):
    gl = gitlab.Gitlab(server.url, private_token=token)
    with pytest.raises(gitlab.GitlabHttpError) as raised:
        gl.http_get(PATH, query_data={"version": "1.0.0"})
    assert raised.value.response_code == 422
    assert raised.value.error_message == (
        "Failed to generate the changelog: The commit start range is unspecified, "
        "and no previous tag could be found to use instead"
    )
    with pytest.raises(gitlab.GitlabHttpError) as raised:
        gl.http_get(PATH, query_data={"version": "1.2"})
    assert raised.value.response_code == 400
    assert raised.value.error_message == "version is invalid"


def test_python_gitlab_http_post_commits_once(server, repo, token):
    gl = gitlab.Gitlab(server.url, private_token=token)
    before = git_out(repo, "rev-parse", "main")
    result = gl.http_post(PATH, post_data={"version": "2.1.0", "branch": "main", "date": "2024-01-02"})
    assert isinstance(result, dict)
    after = git_out(repo, "rev-parse", "main")
    assert result["commit"]["id"] == after
    assert result["commit"]["parent_ids"] == [before]
    assert result["commit"]["title"] == "Add changelog for version 2.1.0"
    file = subprocess.run(["git", "-C", str(repo), "show", "main:CHANGELOG.md"], check=True,
                          capture_output=True, text=True).stdout
    assert file == result["notes"]
    again = gl.http_post(PATH, post_data={"version": "2.1.0", "date": "2024-01-02"})
    assert again["commit"] is None and again["notes"] == result["notes"]
    assert git_out(repo, "rev-parse", "main") == after


def go_headers(token):
    return {"Accept": "application/json", "User-Agent": "go-gitlab", "Private-Token": token}


def test_go_generate_changelog_data_shape(server, repo, token):
    # go-querystring: keys sorted, date as YYYY-MM-DD.
    query = urlencode(sorted({
        "version": "2.1.0", "config_file": ".gitlab/changelog_config.yml", "date": "2024-01-02",
        "from": "v2.0.0", "to": "main", "trailer": "Changelog",
    }.items()))
    status, headers, body = server.request("GET", f"/api/v4{PATH}?{query}", go_headers(token))
    assert status == 200
    assert headers["content-type"].split(";")[0] == "application/json"
    data = json.loads(body)
    assert isinstance(data["notes"], str)
    assert data["notes"].startswith("## 2.1.0 (2024-01-02)\n\n### performance (1 change)")


def test_go_add_changelog_shape(server, repo, token):
    body = json.dumps({
        "version": "3.0.0", "branch": "main", "config_file": ".gitlab/changelog_config.yml",
        "date": "2024-01-02", "file": "CHANGELOG.md", "from": "v2.0.0",
        "message": "Add changelog for version 3.0.0", "to": "main", "trailer": "Changelog",
    }).encode()
    headers = {**go_headers(token), "Content-Type": "application/json"}
    status, response_headers, data = server.request("POST", f"/api/v4{PATH}", headers, body)
    assert status in (200, 201, 202, 204)
    assert response_headers["content-type"].split(";")[0] == "application/json"
    result = json.loads(data)
    assert result["commit"]["message"] == "Add changelog for version 3.0.0"
    file = subprocess.run(["git", "-C", str(repo), "show", "main:CHANGELOG.md"], check=True,
                          capture_output=True, text=True).stdout
    assert [line for line in file.splitlines() if line.startswith("## ")] == [
        "## 3.0.0 (2024-01-02)", "## 2.1.0 (2024-01-02)"]
    # Anonymous and job-token writers are refused; nothing moves.
    tip = git_out(repo, "rev-parse", "main")
    status, _, data = server.request("POST", f"/api/v4{PATH}", {"Content-Type": "application/json"}, body)
    assert status == 403
    assert json.loads(data) == {"message": "403 Forbidden - You are not allowed to commit a changelog on this branch"}
    assert git_out(repo, "rev-parse", "main") == tip
