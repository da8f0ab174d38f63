"""The package as users run it: one version (Cargo.toml's, forgecore.__version__, the
library's GET /version), and the WSGI app under gunicorn (`forgecore.wsgi:app_from_env()`, a
real gunicorn process with gthread workers) answering python-gitlab on kept-alive connections.
make test-install does the same from the installed wheel; these run on the checkout."""

import http.client
import re
import socket
import subprocess
import sys
import time

import gitlab
import pytest

import forgecore
from forgecore import wsgi
from forgecore.core import Forgecore

from conftest import REPO, _env, cli

START_TIMEOUT = 60


def cargo_version():
    text = (REPO / "Cargo.toml").read_text(encoding="utf-8")
    section = text[text.index("[workspace.package]"):]
    return re.search(r'^version = "([^"]+)"', section, re.M).group(1)


def test_one_version(tmp_path):
    assert forgecore.__version__ == cargo_version()
    with Forgecore({"data_dir": str(tmp_path)}) as core:
        answer = core.request("GET", "/api/v4/version")
        assert answer.status == 200
        assert answer.json()["revision"] == forgecore.__version__


def test_config_from_env(tmp_path):
    config = tmp_path / "config.json"
    config.write_text('{"limits": {"per_page_max": 50}}')
    assert wsgi.config_from_env({"FORGECORE_DATA_DIR": "/d", "FORGECORE_CONFIG": str(config)}) == {
        "data_dir": "/d", "limits": {"per_page_max": 50}}
    config.write_text('{"data_dir": "/e"}')
    assert wsgi.config_from_env({"FORGECORE_DATA_DIR": "/d", "FORGECORE_CONFIG": str(config)}) == {"data_dir": "/e"}
    with pytest.raises(ValueError, match="FORGECORE_DATA_DIR"):
        wsgi.config_from_env({})


@pytest.fixture(scope="module")
def gunicorn(tmp_path_factory):
    """gunicorn serving app_from_env() on a data directory with an administrator, and the
    repository of git_repo's shape registered as the public project `demo`."""
    root = tmp_path_factory.mktemp("gunicorn")
    repo = root / "repos" / "demo"
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q", str(repo)], check=True)
    (repo / "README.md").write_text("hello\n")
    subprocess.run([*git, "-C", str(repo), "add", "README.md"], check=True)
    subprocess.run([*git, "-C", str(repo), "commit", "-q", "-m", "first"], check=True)
    data = root / "data"
    cli(data, "user", "add", "root", "--admin")
    token = cli(data, "token", "add", "root").json["token"]
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    # Nobody reads gunicorn's output while it serves: no request lines to fill the pipe.
    env = dict(_env(), FORGECORE_DATA_DIR=str(data), FORGECORE_REPOS=str(root / "repos"), FORGECORE_REQUEST_LOG="0")
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--worker-class", "gthread",
         "--workers", "2", "--threads", "4", "--keep-alive", "5", "forgecore.wsgi:app_from_env()"],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", "/api/v4/version")
            if connection.getresponse().status == 200:
                break
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"gunicorn did not start: {process.communicate()[0]}")
        time.sleep(0.1)
    yield f"http://127.0.0.1:{port}", token, port
    process.terminate()
    output = process.communicate(timeout=30)[0]
    assert process.returncode == 0, output
    assert "Traceback" not in output, output


def test_gunicorn_answers_python_gitlab(gunicorn):
    url, token, _ = gunicorn
    gl = gitlab.Gitlab(url, private_token=token)
    assert gl.version()[1] == forgecore.__version__
    role = gl.member_roles.create({"name": "under gunicorn", "base_access_level": 10, "read_code": True})
    assert role.name == "under gunicorn"
    assert "under gunicorn" in [r.name for r in gl.member_roles.list(get_all=True)]
    project = gl.projects.get("demo")
    tree = project.repository_tree(ref="main", get_all=True)
    assert [entry["name"] for entry in tree] == ["README.md"]
    assert project.repository_raw_blob(tree[0]["id"]) == b"hello\n"
    with pytest.raises(gitlab.GitlabAuthenticationError):
        gitlab.Gitlab(url, private_token="glpat-wrong").member_roles.list()


def test_gunicorn_keeps_connections_alive(gunicorn):
    _, token, port = gunicorn
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    sock = None
    for _ in range(5):
        connection.request("GET", "/api/v4/member_roles", headers={"PRIVATE-TOKEN": token})
        response = connection.getresponse()
        assert response.status == 200 and response.getheader("Content-Type") == "application/json"
        response.read()
        assert sock is None or connection.sock is sock, "gunicorn closed the connection between requests"
        sock = connection.sock
    connection.close()
