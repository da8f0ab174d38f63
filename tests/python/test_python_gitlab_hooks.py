"""python-gitlab, unchanged, on project webhooks (issue #41) through both hosts: project.hooks
create, list, get, save and delete, and a push through real git reaching a receiver on
loopback (the hosts run with hooks.allow_local_requests) as GitLab's Push Hook."""

import http.server
import json
import queue
import subprocess
import sys
import threading

import gitlab
import pytest

from conftest import REPO, start_host, stop_server

GO_HOST = REPO / "target" / "debug" / "forgecore-http"


class Receiver(http.server.BaseHTTPRequestHandler):
    got = None

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        type(self).got.put((dict(self.headers), json.loads(body)))
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def receiver():
    Receiver.got = queue.Queue()
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    httpd.url = f"http://127.0.0.1:{httpd.server_address[1]}/hook"
    yield httpd
    httpd.shutdown()


def git(cwd, *args):
    env = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "HOME": str(cwd), "PATH": "/usr/bin:/bin",
           "GIT_TERMINAL_PROMPT": "0"}
    return subprocess.run(["git", "-c", "user.name=Py", "-c", "user.email=py@example.com", *args], cwd=cwd,
                          check=True, capture_output=True, text=True, env=env).stdout.strip()


@pytest.fixture(scope="module", params=["python", "go"])
def host(request, tmp_path_factory):
    data_dir = tmp_path_factory.mktemp(f"hooks-{request.param}")
    config = data_dir.parent / f"hooks-{request.param}.json"
    config.write_text(json.dumps({"hooks": {"allow_local_requests": True, "poll_millis": 50}}))
    if request.param == "go":
        assert GO_HOST.exists(), f"{GO_HOST} is missing: make build"
        command = [GO_HOST, "-listen", "127.0.0.1:0", "-data-dir", data_dir, "-print-admin-token",
                   "-config", config]
    else:
        command = [sys.executable, "-m", "forgecore", "serve", "--listen", "127.0.0.1:0",
                   "--data-dir", data_dir, "--print-admin-token", "--config", config]
    server = start_host(command, data_dir)
    work = tmp_path_factory.mktemp(f"hooks-work-{request.param}")
    git(work, "init", "-q", "-b", "main")
    (work / "README.md").write_text("hello\n")
    git(work, "add", ".")
    git(work, "commit", "-q", "-m", "first")
    bare = work.parent / f"hooks-{request.param}.git"
    git(work, "clone", "-q", "--bare", str(work), str(bare))
    server.admin("group", "add", "web", "--visibility", "public")
    server.admin("project", "add", "web/app", "--repo", bare, "--visibility", "public")
    server.work = work
    yield server
    stop_server(server)


def test_hooks_crud_and_a_push_delivered(host, receiver):
    gl = gitlab.Gitlab(host.url, private_token=host.token)
    project = gl.projects.get("web/app")
    hook = project.hooks.create({"url": receiver.url, "push_events": True, "tag_push_events": True,
                                 "token": "py-secret", "push_events_branch_filter": "main"})
    assert (hook.url, hook.push_events, hook.tag_push_events) == (receiver.url, True, True)
    assert not hasattr(hook, "token")
    assert hook.alert_status == "executable"
    assert [h.id for h in project.hooks.list(get_all=True)] == [hook.id]
    fetched = project.hooks.get(hook.id)
    assert fetched.push_events_branch_filter == "main"
    fetched.name = "renamed"
    fetched.save()
    assert project.hooks.get(hook.id).name == "renamed"
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as refused:
        project.hooks.create({"url": "ftp://example.com/"})
    assert refused.value.response_code == 422

    # A push through real git reaches the receiver as a Push Hook.
    remote = host.url.replace("http://", f"http://oauth2:{host.token}@") + "/web/app.git"
    (host.work / "more.txt").write_text("more\n")
    git(host.work, "add", ".")
    git(host.work, "commit", "-q", "-m", "Second")
    git(host.work, "push", "-q", remote, "HEAD:main")
    headers, body = Receiver.got.get(timeout=20)
    assert headers["X-Gitlab-Event"] == "Push Hook"
    assert headers["X-Gitlab-Token"] == "py-secret"
    assert body["after"] == git(host.work, "rev-parse", "HEAD")
    assert body["ref"] == "refs/heads/main"
    assert [c["added"] for c in body["commits"]] == [["more.txt"]]
    assert body["project"]["path_with_namespace"] == "web/app"

    fetched.delete()
    assert project.hooks.list(get_all=True) == []
