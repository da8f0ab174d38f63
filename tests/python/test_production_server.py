"""The production setup the README recommends: gunicorn (`-k gthread --workers 2 --threads 8`,
the command the README shows) behind nginx with examples/nginx/forgecore.conf (a buffering
proxy, as gunicorn's own documentation says). gunicorn alone stops answering while clients hold
half-sent requests (issue #25: 40 of them, each holding one of its 16 threads while the app
waits for a body that never comes; how many it takes depends on how its two workers share
them out, so that is not a test here); behind nginx it answers throughout, because nginx reads
every request whole before passing it on. And chunked request
bodies reach the core, through nginx and from gunicorn directly (the WSGI app reads what
gunicorn decoded), never taken for empty ones.

The core is configured as the README says for this pair (`requests.trusted_proxies` naming
nginx's address), so a request through nginx is the client's, not nginx's: clients connect
from other loopback addresses (127.0.0.2, ...), and /-/metrics, allowed here to 127.0.0.1
only, refuses them while each has an anonymous rate-limit bucket of its own. A git push of
more than nginx's 2 MB API body cap goes through.

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


# The core's configuration (FORGECORE_CONFIG): nginx's address trusted, as the README says; the
# probes and metrics for 127.0.0.1 only, and a small anonymous rate limit, so that what address
# a request is taken for can be seen.
CONFIG = {
    "requests": {"trusted_proxies": ["127.0.0.1/32"]},
    "monitoring": {"ip_allowlist": ["127.0.0.1/32"]},
    "rate_limits": {"unauthenticated_api": {"limit": 2, "period_seconds": 3600}},
}
# A push bigger than nginx's cap on API bodies (2 MB).
PUSH_BYTES = 3 << 20


def wait_for(port, process, name):
    deadline = time.monotonic() + START_TIMEOUT
    while True:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", "/-/health")
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
    seed, bare = root / "seed", root / "repo.git"
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "-q", str(seed)], check=True)
    (seed / "README.md").write_text("hello\n")
    subprocess.run([*git, "-C", str(seed), "add", "README.md"], check=True)
    subprocess.run([*git, "-C", str(seed), "commit", "-q", "-m", "first"], check=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(seed), str(bare)], check=True)
    cli(data, "group", "add", "prod", "--visibility", "public")
    cli(data, "project", "add", "prod/repo", "--repo", bare, "--visibility", "public")
    (root / "config.json").write_text(json.dumps(CONFIG))
    upstream, front = free_port(), free_port()
    gunicorn = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{upstream}", "-k", "gthread",
         "--workers", "2", "--threads", "8", "--keep-alive", "5", "forgecore.wsgi:app_from_env()"],
        env=dict(_env(), FORGECORE_DATA_DIR=str(data), FORGECORE_CONFIG=str(root / "config.json"),
                 FORGECORE_REQUEST_LOG="0"), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
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
        yield upstream, front, token, root
    finally:
        outputs = []
        for process in started:
            if process.poll() is None:
                process.terminate()
            outputs.append(process.communicate(timeout=30)[0])
    for output in outputs:
        assert "Traceback" not in output, output


def version_status(port, timeout, token):
    """GET /api/v4/version's status, or None when nothing answers within `timeout` seconds."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("GET", "/api/v4/version", headers={"Private-Token": token})
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
    _, front, token, _ = setup
    sockets = half_sent(front, kinds=2)
    try:
        started = time.monotonic()
        for _ in range(20):
            assert version_status(front, 5, token) == 200
        assert time.monotonic() - started < 5
    finally:
        for sock in sockets:
            sock.close()


@pytest.mark.parametrize("through", ["nginx", "gunicorn"])
def test_chunked_bodies_reach_the_core(setup, through):
    upstream, front, token, _ = setup
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


def status_from(address, port, target, headers=None):
    """The status of GET `target` on 127.0.0.1:`port`, connecting from `address` (any loopback
    address is this machine's)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10, source_address=(address, 0))
    try:
        connection.request("GET", target, headers=headers or {})
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()


def test_behind_nginx_the_client_is_its_own_address_not_nginxs(setup):
    _, front, _, _ = setup
    # /-/metrics is for 127.0.0.1 only: nginx's own address must not lend it to everyone.
    assert status_from("127.0.0.1", front, "/-/metrics") == 200
    assert status_from("127.0.0.2", front, "/-/metrics") == 404
    # A client's own X-Forwarded-For is replaced by nginx, never believed.
    assert status_from("127.0.0.2", front, "/-/metrics", {"X-Forwarded-For": "127.0.0.1"}) == 404


def test_behind_nginx_each_anonymous_client_has_its_own_bucket(setup):
    _, front, _, _ = setup
    # 2 anonymous requests an hour for each address (CONFIG).
    assert [status_from("127.0.0.3", front, "/api/v4/version") for _ in range(3)] == [200, 200, 429]
    assert status_from("127.0.0.4", front, "/api/v4/version") == 200


def test_a_push_bigger_than_the_api_body_cap_goes_through_nginx(setup):
    _, front, token, root = setup
    into = root / "push"
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null", GIT_TERMINAL_PROMPT="0")
    url = f"http://oauth2:{token}@127.0.0.1:{front}/prod/repo.git"
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    run = lambda *args: subprocess.run([*git, *args], env=env, capture_output=True, text=True, timeout=300)  # noqa: E731
    out = run("clone", "-q", url, str(into))
    assert out.returncode == 0, out.stderr
    (into / "noise.bin").write_bytes(os.urandom(PUSH_BYTES))
    assert run("-C", str(into), "add", "noise.bin").returncode == 0
    assert run("-C", str(into), "commit", "-q", "-m", "noise").returncode == 0
    out = run("-C", str(into), "push", "-q", url, "HEAD:refs/heads/big")
    assert out.returncode == 0, out.stderr
    head = run("-C", str(into), "rev-parse", "HEAD").stdout.strip()
    assert run("-C", str(root / "repo.git"), "rev-parse", "big").stdout.strip() == head
