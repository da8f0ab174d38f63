"""The admin command line: every subcommand prints the core's JSON answer, failures exit 1
with the core's message on stderr and nothing on stdout, and its changes are seen by a host
serving the same data directory (a revoked token is a 401 at once)."""

import json
import subprocess
import sys

import pytest

from conftest import _env, cli, start_server, stop_server


def test_user_add(server):
    user = server.admin("user", "add", "alice", "--admin", "--email", "alice@example.com").json
    assert user["username"] == "alice"
    assert user["is_admin"] is True
    assert user["email"] == "alice@example.com"
    plain = server.admin("user", "add", "bob").json
    assert (plain["username"], plain["is_admin"], plain["email"]) == ("bob", False, None)


def test_token_add_and_revoke(server):
    server.admin("user", "add", "carol", "--admin")
    token = server.admin("token", "add", "carol").json["token"]
    assert token.startswith("glpat-")
    assert server.json("GET", "/api/v4/member_roles", token=token)[0] == 200
    assert server.admin("token", "revoke", token).json == {"revoked": True}
    # GitLab's answer to a revoked token (rack-oauth2's invalid_token).
    assert server.json("GET", "/api/v4/member_roles", token=token) == (401, {
        "error": "invalid_token",
        "error_description": "Token was revoked. You have to re-authorize from the user.",
    })
    failed = server.admin("token", "revoke", token, check=False)
    assert failed.returncode == 1
    assert "404 Token Not Found" in failed.stderr


def test_group_add(server):
    group = server.admin("group", "add", "clig", "--visibility", "public").json
    assert (group["full_path"], group["visibility"], group["parent_id"]) == ("clig", "public", None)
    sub = server.admin("group", "add", "clig/sub").json
    assert (sub["full_path"], sub["parent_id"], sub["visibility"]) == ("clig/sub", group["id"], "private")


def test_project_add_and_fork(server, git_repo):
    server.admin("group", "add", "projg")
    project = server.admin("project", "add", "projg/app", "--repo", git_repo, "--visibility", "public").json
    assert project["path_with_namespace"] == "projg/app"
    assert project["visibility"] == "public"
    fork = server.admin("project", "add", "projg/fork", "--repo", git_repo, "--forked-from", "projg/app").json
    assert fork["forked_from_project"] == {"id": project["id"]}
    assert fork["visibility"] == "private"
    status, seen = server.json("GET", "/api/v4/projects/projg%2Fapp")
    assert (status, seen["id"]) == (200, project["id"])


def test_member_add(server, git_repo):
    server.admin("user", "add", "dave")
    server.admin("group", "add", "memg")
    member = server.admin("member", "add", "--group", "memg", "--user", "dave", "--access-level", 50).json
    assert (member["group"], member["username"], member["access_level"]) == ("memg", "dave", 50)
    server.admin("project", "add", "memg/p", "--repo", git_repo)
    status, role = server.json("POST", "/api/v4/member_roles", {"name": "cli-role", "base_access_level": 10},
                               token=server.token)
    assert status == 201
    member = server.admin("member", "add", "--project", "memg/p", "--user", "dave", "--access-level", 10,
                          "--member-role-id", role["id"]).json
    assert (member["project"], member["member_role_id"]) == ("memg/p", role["id"])


def test_job_token_add(server, git_repo):
    server.admin("project", "add", "jobp", "--repo", git_repo)
    assert server.admin("job-token", "add", "--project", "jobp").json["token"].startswith("glcbt-")


@pytest.mark.parametrize("args, message", [
    (("user", "add", "root"), "Username has already been taken"),
    (("user", "add", "bad!name"), "can contain only letters, digits"),
    (("group", "add", "nosuchparent/child"), "404 Group Not Found"),
    (("member", "add", "--group", "anygroup", "--user", "nobody", "--access-level", "30"), "404 User Not Found"),
    (("member", "add", "--group", "x", "--user", "root", "--access-level", "7"),
     "access_level does not have a valid value"),
    (("project", "add", "p404", "--repo", "/nonexistent/repo"), "does not exist"),
    (("job-token", "add", "--project", "missing"), "404 Project Not Found"),
])
def test_errors_exit_1_with_message_on_stderr(server, args, message):
    result = server.admin(*args, check=False)
    assert result.returncode == 1
    assert message in result.stderr
    assert result.stdout == ""


def test_usage_errors(tmp_path):
    result = cli(tmp_path, "member", "add", "--user", "x", "--access-level", "30", check=False)
    assert result.returncode == 2  # neither --group nor --project
    assert "one of the arguments --group --project is required" in result.stderr


def test_bad_data_dir(tmp_path):
    (tmp_path / "file").write_text("")
    result = cli(tmp_path / "file", "user", "add", "x", check=False)
    assert result.returncode == 1
    assert "data_dir" in result.stderr


def test_serve_registers_repos_and_restarts(tmp_path, git_repo):
    repos = tmp_path / "repos"
    (repos / "demo").mkdir(parents=True)
    (repos / "forgecore").symlink_to(git_repo)
    (repos / "demo" / "tool").symlink_to(git_repo)
    data = tmp_path / "data"
    first = start_server(data, "--repos", repos)
    try:
        output = "".join(first.output)
        assert first.port != 0
        assert "created the administrator root" in output
        assert "project: demo/tool (new)" in output and "project: forgecore (new)" in output
        assert f'curl -H "PRIVATE-TOKEN: {first.token}" {first.url}/api/v4/member_roles' in output
        assert f"{first.url}/api/v4/projects/forgecore/repository/tree" in output
        status, project = first.json("GET", "/api/v4/projects/demo%2Ftool")
        assert (status, project["visibility"], project["web_url"]) == (200, "public", f"{first.url}/demo/tool")
    finally:
        assert stop_server(first)[0] == 0
    second = start_server(data, "--repos", repos)
    try:
        output = "".join(second.output)
        assert "created the administrator" not in output
        assert "project: forgecore\n" in output  # already registered
        assert second.token and second.token != first.token
        for token in (first.token, second.token):
            assert second.json("GET", "/api/v4/member_roles", token=token)[0] == 200
    finally:
        assert stop_server(second)[0] == 0


def test_serve_config_file_sets_rate_limits(tmp_path):
    """--config merges its object over the built configuration: two API requests a minute
    make the third a 429 in GitLab's shape, with Retry-After."""
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"rate_limits": {"api_requests": {"limit": 2, "period_seconds": 60}}}))
    running = start_server(tmp_path / "data", "--config", config)
    try:
        answers = [running.request("GET", "/api/v4/version") for _ in range(3)]
        assert [status for status, _, _ in answers] == [200, 200, 429]
        _, headers, body = answers[2]
        assert json.loads(body) == {"message": {"error": "This endpoint has been requested too many times. Try again later."}}
        assert int(headers["retry-after"]) > 0
    finally:
        assert stop_server(running)[0] == 0


def _serve(*args):
    return subprocess.run([sys.executable, "-m", "forgecore", "serve", "--listen", "127.0.0.1:0", *map(str, args)],
                          capture_output=True, text=True, env=_env(), timeout=60)


def test_serve_config_file_may_name_the_data_dir(tmp_path):
    data = tmp_path / "from-config"
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"data_dir": str(data)}))
    process = subprocess.Popen([sys.executable, "-m", "forgecore", "serve", "--listen", "127.0.0.1:0",
                                "--config", str(config)], stdout=subprocess.PIPE, text=True, env=_env())
    try:
        assert process.stdout.readline().startswith("created the administrator root")
        assert data.is_dir()
    finally:
        process.terminate()
        process.wait(15)
        process.stdout.close()


@pytest.mark.parametrize("text", ["[]", "null", '{"rate_limits":', None])
def test_serve_config_file_not_an_object_is_a_usage_error(tmp_path, text):
    config = tmp_path / "config.json"
    if text is not None:
        config.write_text(text)
    result = _serve("--data-dir", tmp_path / "data", "--config", config)
    assert result.returncode == 2
    assert "--config" in result.stderr


def test_serve_config_file_unknown_key_is_refused_by_the_core(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"rate_limits": {"api_request": {"limit": 1, "period_seconds": 1}}}))
    result = _serve("--data-dir", tmp_path / "data", "--config", config)
    assert result.returncode == 1
    assert "api_request" in result.stderr
    assert _serve().returncode == 2  # neither --data-dir nor a config naming data_dir
