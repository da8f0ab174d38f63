"""Fixtures for the Python tests: the real host (`python -m forgecore serve` on 127.0.0.1:0
with a temporary data directory) started as a subprocess and stopped after the module, the
admin command line against the same data directory, and a raw `http.client` helper.

The marker `cluster` names the tests of many hosts on one PostgreSQL server
(`test_cluster.py`): `make test-cluster` runs them with a server of their own, `make
test-python` deselects them.
"""

import contextlib
import http.client
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

REPO = Path(__file__).resolve().parents[2]
PYTHONPATH = str(REPO / "bindings" / "python")
START_TIMEOUT = 30
# A committed binary file larger than one 64 KiB chunk, with NULs and every byte value.
BINARY = bytes(range(256)) * 800 + b"\x00tail"


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = PYTHONPATH + os.pathsep + env.get("PYTHONPATH", "")
    return env


def cli(data_dir, *args, check=True):
    """Runs `python -m forgecore admin --data-dir DIR ARGS...`; check: exit 0 and one JSON line."""
    result = subprocess.run(
        [sys.executable, "-m", "forgecore", "admin", "--data-dir", str(data_dir), *map(str, args)],
        capture_output=True, text=True, env=_env(), timeout=60,
    )
    if check:
        assert result.returncode == 0, f"admin {args} failed: {result.stderr}"
        result.json = json.loads(result.stdout)
    return result


class Server:
    """A running host: its URL, admin token, data directory and a raw HTTP helper."""

    def __init__(self, process, url, token, data_dir, output):
        self.process = process
        self.url = url
        self.token = token
        self.data_dir = data_dir
        self.output = output
        parts = urlsplit(url)
        self.host, self.port = parts.hostname, parts.port

    def admin(self, *args, check=True):
        return cli(self.data_dir, *args, check=check)

    def request(self, method, target, headers=None, body=None, token=None):
        """(status, headers dict with lower-case names, body bytes) over a new connection."""
        headers = dict(headers or {})
        if token:
            headers["PRIVATE-TOKEN"] = token
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            connection.request(method, target, body=body, headers=headers)
            response = connection.getresponse()
            data = response.read()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, data
        finally:
            connection.close()

    def json(self, method, target, value=None, token=None, headers=None):
        body = None if value is None else json.dumps(value).encode()
        all_headers = {"Content-Type": "application/json", **(headers or {})}
        status, response_headers, data = self.request(method, target, all_headers, body, token)
        return status, (json.loads(data) if data else None)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "cluster: many hosts on one PostgreSQL server (make test-cluster provides it)")


def start_server(data_dir, *extra):
    """The Python host on 127.0.0.1:0 with a fresh administrator token, once it is listening."""
    return start_host([sys.executable, "-m", "forgecore", "serve", "--listen", "127.0.0.1:0",
                       "--data-dir", str(data_dir), "--print-admin-token", *extra], data_dir)


GO_HOST = REPO / "target" / "debug" / "forgecore-http"


def start_either(kind, data_dir, *extra):
    """The Go host (`kind == "go"`) or the Python host on 127.0.0.1:0, once it is listening."""
    if kind != "go":
        return start_server(data_dir, *extra)
    assert GO_HOST.exists(), f"{GO_HOST} is missing: make build"
    return start_host([GO_HOST, "-listen", "127.0.0.1:0", "-data-dir", data_dir,
                       "-print-admin-token", *extra], data_dir)


def start_host(command, data_dir):
    """Runs a host's `command` (either host: both print "admin token: T", then "listening on
    URL" when ready) and answers its Server once it listens."""
    process = subprocess.Popen(
        [str(part) for part in command],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(),
    )
    lines, found = [], {}

    def read_until_listening():
        for line in process.stdout:
            lines.append(line)
            if line.startswith("admin token: "):
                found["token"] = line.split(": ", 1)[1].strip()
            if line.startswith("listening on "):
                found["url"] = line.split("listening on ", 1)[1].strip()
                return

    reader = threading.Thread(target=read_until_listening, daemon=True)
    reader.start()
    reader.join(START_TIMEOUT)
    if "url" not in found:
        process.kill()
        raise RuntimeError(f"host did not start: {''.join(lines)}{process.stderr.read()}")
    # Keep draining stdout and stderr (a JSON line per request) so the host never blocks on a
    # full pipe.
    threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True).start()
    errors = []
    drain = threading.Thread(target=lambda: errors.extend(process.stderr), daemon=True)
    drain.start()
    server = Server(process, found["url"], found.get("token"), data_dir, lines)
    server.errors, server.drain = errors, drain
    return server


def stop_server(server):
    """Stops the host with SIGTERM; returns (exit code, stderr)."""
    server.process.terminate()
    try:
        code = server.process.wait(15)
    except subprocess.TimeoutExpired:
        server.process.kill()
        code = server.process.wait()
    server.drain.join(15)
    return code, "".join(server.errors)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    running = start_server(tmp_path_factory.mktemp("data"))
    yield running
    code, stderr = stop_server(running)
    assert code == 0, f"host exited with {code}: {stderr}"
    assert "Traceback" not in stderr, stderr


@pytest.fixture(scope="session")
def git_repo(tmp_path_factory):
    """A small git work tree with one commit: README.md and the binary data.bin."""
    path = tmp_path_factory.mktemp("repo")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q", str(path)], check=True)
    (path / "README.md").write_text("hello\n")
    (path / "data.bin").write_bytes(BINARY)
    subprocess.run([*git, "-C", str(path), "add", "README.md", "data.bin"], check=True)
    subprocess.run([*git, "-C", str(path), "commit", "-q", "-m", "first"], check=True)
    return path


def build_fixture(script, directory):
    """Runs tests/fixtures/SCRIPT (a shell script) to build its repositories in `directory`,
    and answers `directory`."""
    subprocess.run(["bash", str(REPO / "tests" / "fixtures" / script), str(directory)], check=True)
    return directory


def git_out(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


@contextlib.contextmanager
def maintenance_held(git_dir, timeout=120):
    """Holds the repository's maintenance lock (`objects/maintenance.lock`, git's own, which
    every host takes for a maintenance run) while git reads the repository whole: `git fsck`
    lists the loose objects and then reads them, and a repack after the host's writes packs and
    removes them meanwhile ("unable to mmap ... No such file"). A lock whose forgecore holder
    is gone (a killed host) is broken, as the hosts break it."""
    lock = Path(git_dir) / "objects" / "maintenance.lock"
    deadline = time.monotonic() + timeout
    while True:
        try:
            os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
            break
        except FileExistsError:
            if _holder_gone(lock):
                lock.unlink(missing_ok=True)
                continue
            if time.monotonic() > deadline:
                raise TimeoutError(f"{lock} stays held")
            time.sleep(0.05)
    try:
        yield
    finally:
        lock.unlink(missing_ok=True)


def _holder_gone(lock):
    """Whether `lock` says a forgecore process of this machine holds it that no longer runs."""
    try:
        fields = lock.read_text().split()
    except FileNotFoundError:
        return False
    if len(fields) < 3 or fields[0] != "forgecore" or not fields[2].isdigit():
        return False
    try:
        os.kill(int(fields[2]), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def unique(prefix):
    return f"{prefix}-{time.monotonic_ns()}"
