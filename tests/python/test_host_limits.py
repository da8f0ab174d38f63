"""The Python host against clients that hold connections: idle ones (half a request line, or a
Content-Length whose body never comes), trickling ones, and more of them than the host takes.
It runs with a read timeout of 2 s and a cap of 8 connections: its threads stay bounded, every
such client is cut off within the timeout plus a margin, those over the cap get a 503 at once,
and normal requests are served throughout; a limit that is not above 0 is a usage error. And a
token header spelled with `_` is no token: a proxy that filters `Private-Token` must not be
bypassed by `PRIVATE_TOKEN`.
"""

import json
import select
import socket
import subprocess
import sys
import time

import pytest

from conftest import _env, start_server, stop_server

READ_TIMEOUT = 2
MAX_CONNECTIONS = 8
# How long past the read timeout the host may take to close a connection it cut off.
MARGIN = 2.0

PARTIAL_LINE = b"GET /api/v4/vers"
UNSENT_BODY = (b"POST /api/v4/member_roles HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
               b"Content-Length: 100\r\n\r\n")
TOO_MANY = {"message": "503 Service Unavailable - too many connections"}


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    running = start_server(tmp_path_factory.mktemp("data"), "--read-timeout", str(READ_TIMEOUT),
                           "--max-connections", str(MAX_CONNECTIONS))
    yield running
    code, stderr = stop_server(running)
    assert code == 0, f"host exited with {code}: {stderr}"
    assert "Traceback" not in stderr, stderr


def threads(pid):
    with open(f"/proc/{pid}/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("Threads:"))


def read_until_closed(connection, deadline):
    """Everything the host sends until it closes the connection, or None if it is still open
    at `deadline` (a monotonic time)."""
    data = b""
    while (remaining := deadline - time.monotonic()) > 0:
        connection.settimeout(remaining)
        try:
            chunk = connection.recv(65536)
        except ConnectionResetError:
            return data
        except TimeoutError:
            return None
        if not chunk:
            return data
        data += chunk
    return None


def answer_body(answer):
    head, _, body = answer.partition(b"\r\n\r\n")
    return head.split(b"\r\n", 1)[0], json.loads(body)


def test_idle_clients_are_bounded_and_cut_off(host):
    """Five times more idle clients than the cap, half of them with half a request line, half
    with a body that never comes."""
    pid = host.process.pid
    baseline = threads(pid)
    opened = time.monotonic()
    idle = []
    try:
        for n in range(5 * MAX_CONNECTIONS):
            connection = socket.create_connection((host.host, host.port), timeout=5)
            idle.append(connection)
            connection.sendall(PARTIAL_LINE if n % 2 else UNSENT_BODY)
        time.sleep(0.5)
        # One thread per connection the host took, none for those it refused.
        assert threads(pid) <= baseline + MAX_CONNECTIONS
        # With the cap full, a request is refused at once rather than queued.
        started = time.monotonic()
        status, headers, body = host.request("GET", "/api/v4/version")
        assert (status, json.loads(body)) == (503, TOO_MANY)
        assert headers["content-type"] == "application/json"
        assert time.monotonic() - started < 1

        answers = [read_until_closed(connection, opened + READ_TIMEOUT + MARGIN) for connection in idle]
        still_open = [n for n, answer in enumerate(answers) if answer is None]
        assert still_open == [], f"still open {READ_TIMEOUT + MARGIN} s after connecting: {still_open}"
        refused = [answer for answer in answers if answer]
        assert len(refused) == len(idle) - MAX_CONNECTIONS
        assert all(answer_body(answer) == (b"HTTP/1.0 503 Service Unavailable", TOO_MANY) for answer in refused)
    finally:
        for connection in idle:
            connection.close()
    status, role = host.json("POST", "/api/v4/member_roles", {"name": "after", "base_access_level": 10},
                             token=host.token)
    assert status == 201, role
    assert threads(pid) <= baseline + 1


def test_a_body_that_keeps_coming_is_read_past_the_read_timeout(host):
    """The read timeout bounds the head and then each 64 KiB of the body, not the whole body: a
    body sent steadily for longer than the timeout (a large git push) is read to its end."""
    payload = json.dumps({"name": "steady", "base_access_level": 10}).encode()
    body = b" " * (10 * 65536 - len(payload)) + payload
    head = (b"POST /api/v4/member_roles HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Private-Token: %s\r\nContent-Length: %d\r\n\r\n" % (host.token.encode(), len(body)))
    with socket.create_connection((host.host, host.port), timeout=10) as connection:
        started = time.monotonic()
        connection.sendall(head)
        for start in range(0, len(body), 65536):
            time.sleep(READ_TIMEOUT / 4)
            connection.sendall(body[start:start + 65536])
        answer = read_until_closed(connection, time.monotonic() + 10)
        elapsed = time.monotonic() - started
    assert elapsed > 2 * READ_TIMEOUT
    assert answer, f"cut off after {elapsed:.1f} s"
    status, role = answer_body(answer)
    assert (status.split()[1], role["name"]) == (b"201", "steady"), answer[:300]


@pytest.mark.parametrize("head, trickle", [
    (b"GET /api/v4/version HTTP/1.1\r\nHost: x\r\nX-Slow: ", b"a"),
    (UNSENT_BODY, b" "),
], ids=["head", "body"])
def test_trickling_client_is_cut_off_at_the_deadline(host, head, trickle):
    """One byte a second keeps every single read short: the head's deadline stops it, and in
    the body, the deadline of its first 64 KiB."""
    with socket.create_connection((host.host, host.port), timeout=5) as connection:
        started = time.monotonic()
        connection.sendall(head)
        while time.monotonic() - started < READ_TIMEOUT + MARGIN:
            try:
                connection.sendall(trickle)
                if select.select([connection], [], [], 1.0)[0] and not connection.recv(65536):
                    break
            except ConnectionError:
                break
        else:
            pytest.fail(f"a trickling client is still connected after {READ_TIMEOUT + MARGIN} s")
        elapsed = time.monotonic() - started
    assert elapsed >= READ_TIMEOUT - 0.2, f"cut off after {elapsed:.1f} s, before the deadline"
    assert host.json("GET", "/api/v4/version")[0] == 200


@pytest.mark.parametrize("flag, value", [("--read-timeout", "0"), ("--read-timeout", "nan"), ("--read-timeout", "soon"),
                                         ("--max-connections", "0"), ("--max-connections", "2.5")])
def test_bad_limit_is_a_usage_error(tmp_path, flag, value):
    result = subprocess.run([sys.executable, "-m", "forgecore", "serve", "--listen", "127.0.0.1:0",
                             "--data-dir", str(tmp_path / "data"), flag, value],
                            capture_output=True, text=True, env=_env(), timeout=60)
    assert result.returncode == 2
    assert flag in result.stderr
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("name", ["PRIVATE_TOKEN", "Private_Token", "private_token"])
def test_private_token_with_underscore_is_no_token(host, name):
    assert host.request("GET", "/api/v4/member_roles", {name: host.token})[0] == 401
    assert host.request("GET", "/api/v4/member_roles", {"Private-Token": host.token})[0] == 200


def test_job_token_with_underscore_is_not_read(host):
    # A bad job token is a 401, never anonymous: so a 200 shows the header was not read at all.
    bogus = "glcbt-" + "x" * 20
    assert host.request("GET", "/api/v4/version", {"Job-Token": bogus})[0] == 401
    assert host.request("GET", "/api/v4/version", {"JOB_TOKEN": bogus})[0] == 200
