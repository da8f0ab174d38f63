"""The production setup the README recommends: gunicorn (`-k gthread --workers 2 --threads 8`,
the command the README shows) behind nginx with examples/nginx/forgecore.conf (a buffering
proxy, as gunicorn's own documentation says). gunicorn alone stops answering while clients hold
half-sent requests (issue #25: 40 of them, each holding one of its 16 threads while the app
waits for a body that never comes; how many it takes depends on how its two workers share
them out, so that is not a test here); behind nginx it answers throughout, because nginx reads
every request whole before passing it on. And chunked request
bodies reach the core, through nginx and from gunicorn directly (the WSGI app reads what
gunicorn decoded), never taken for empty ones.

nginx comes from Debian (make test-python installs it when missing, as make test does
PostgreSQL).
"""

import http.client
import json
import os
import shutil
import socket
import subprocess
import sys
import time

import pytest

from conftest import REPO, _env, cli

START_TIMEOUT = 60
HALF_SENT = 40
# Half-sent requests, by halves: a body that never comes (gunicorn's thread waits for it
# in the app's read), and a head that never ends.
PARTIAL = [b"POST /api/v4/member_roles HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
           b"Content-Length: 100\r\n\r\n",
           b"GET /api/v4/version HTTP/1.1\r\nHost: x\r\nX-Slow: "]


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(port, process, name):
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", "/api/v4/version")
            if connection.getresponse().status == 200:
                return
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"{name} did not start: {process.communicate()[0]}")
        time.sleep(0.1)


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    nginx = shutil.which("nginx") or ("/usr/sbin/nginx" if os.path.exists("/usr/sbin/nginx") else None)
    assert nginx, "nginx is not installed (make test-python installs Debian's nginx)"
    root = tmp_path_factory.mktemp("production")
    data = root / "data"
    cli(data, "user", "add", "root", "--admin")
    token = cli(data, "token", "add", "root").json["token"]
    upstream, front = free_port(), free_port()
    gunicorn = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{upstream}", "-k", "gthread",
         "--workers", "2", "--threads", "8", "--keep-alive", "5", "forgecore.wsgi:app_from_env()"],
        env=dict(_env(), FORGECORE_DATA_DIR=str(data), FORGECORE_REQUEST_LOG="0"), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    started = [gunicorn]
    try:
        wait_for(upstream, gunicorn, "gunicorn")
        conf = (REPO / "examples" / "nginx" / "forgecore.conf").read_text()
        conf = (conf.replace("@LISTEN@", f"127.0.0.1:{front}").replace("@UPSTREAM@", f"127.0.0.1:{upstream}")
                .replace("@PREFIX@", str(root)))
        (root / "nginx.conf").write_text(conf)
        directives = "daemon off;" + (" user root;" if os.geteuid() == 0 else "")
        proxy = subprocess.Popen([nginx, "-p", str(root), "-c", str(root / "nginx.conf"), "-g", directives],
                                 stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        started.insert(0, proxy)
        wait_for(front, proxy, "nginx")
        yield upstream, front, token
    finally:
        outputs = []
        for process in started:
            if process.poll() is None:
                process.terminate()
            outputs.append(process.communicate(timeout=30)[0])
    for output in outputs:
        assert "Traceback" not in output, output


def version_status(port, timeout):
    """GET /api/v4/version's status, or None when nothing answers within `timeout` seconds."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("GET", "/api/v4/version")
        return connection.getresponse().status
    except TimeoutError:
        return None
    finally:
        connection.close()


def half_sent(port, kinds):
    sockets = []
    for n in range(HALF_SENT):
        sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        sock.sendall(PARTIAL[n % kinds])
        sockets.append(sock)
    time.sleep(0.5)
    return sockets


def test_behind_nginx_half_sent_requests_hold_no_thread(setup):
    _, front, _ = setup
    sockets = half_sent(front, kinds=2)
    try:
        started = time.monotonic()
        for _ in range(20):
            assert version_status(front, 5) == 200
        assert time.monotonic() - started < 5
    finally:
        for sock in sockets:
            sock.close()


@pytest.mark.parametrize("through", ["nginx", "gunicorn"])
def test_chunked_bodies_reach_the_core(setup, through):
    upstream, front, token = setup
    port = front if through == "nginx" else upstream
    name = f"chunked via {through}"
    body = json.dumps({"name": name, "base_access_level": 10}).encode()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        connection.request("POST", "/api/v4/member_roles", body=iter([body[:9], body[9:]]), encode_chunked=True,
                           headers={"Content-Type": "application/json", "Private-Token": token,
                                    "Transfer-Encoding": "chunked"})
        response = connection.getresponse()
        answer = response.read()
    finally:
        connection.close()
    assert response.status == 201, answer
    assert json.loads(answer)["name"] == name
