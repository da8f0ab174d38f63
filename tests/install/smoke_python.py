#!/usr/bin/env python3
"""python-gitlab against the forgecore package as a user installed it (make test-install runs
this with the Python of a fresh venv that has the wheel, python-gitlab and gunicorn, without
FORGECORE_LIB or PYTHONPATH, from a directory outside the checkout).

It checks that `import forgecore` is the installed package with its bundled library, then
serves a small repository with `python -m forgecore serve` and makes real python-gitlab calls
(version, member roles, project, tree, raw blob, compare) and, with --gunicorn, does the same
through gunicorn (`forgecore.wsgi:app_from_env()`, gthread workers) and checks that it keeps
the connection alive between requests. Exits non-zero on any wrong answer.
"""

import argparse
import http.client
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import gitlab

import forgecore
from forgecore import _native

START_TIMEOUT = 60


def git(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


def make_repo(path):
    path.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "-b", "main", str(path)], check=True)
    for key, value in (("user.name", "Ada"), ("user.email", "ada@example.com")):
        git(path, "config", key, value)
    (path / "README.md").write_text("# demo\n")
    git(path, "add", "README.md")
    git(path, "commit", "-q", "-m", "first")
    git(path, "tag", "v1")
    (path / "src").mkdir()
    (path / "src" / "main.c").write_text("int main(void) { return 0; }\n")
    git(path, "add", "src")
    git(path, "commit", "-q", "-m", "second")


def start_serve(data_dir, repos, cwd):
    process = subprocess.Popen(
        [sys.executable, "-m", "forgecore", "serve", "--listen", "127.0.0.1:0", "--data-dir", str(data_dir),
         "--repos", str(repos), "--print-admin-token"],
        cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    found, lines = {}, []

    def read():
        for line in process.stdout:
            lines.append(line)
            if match := re.match(r"admin token: (\S+)", line):
                found["token"] = match.group(1)
            if match := re.match(r"listening on (\S+)", line):
                found["url"] = match.group(1)
                break
        for line in process.stdout:  # keep draining
            lines.append(line)

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + START_TIMEOUT
    while "url" not in found and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.05)
    if "url" not in found or "token" not in found:
        process.kill()
        raise SystemExit(f"python -m forgecore serve did not start:\n{''.join(lines)}")
    return process, found["url"], found["token"]


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_gunicorn(data_dir, repos, cwd):
    port = free_port()
    env = dict(os.environ, FORGECORE_DATA_DIR=str(data_dir), FORGECORE_REPOS=str(repos))
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--bind", f"127.0.0.1:{port}", "--worker-class", "gthread",
         "--workers", "2", "--threads", "4", "--keep-alive", "5", "forgecore.wsgi:app_from_env()"],
        cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline and process.poll() is None:
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", "/api/v4/version")
            if connection.getresponse().status == 200:
                connection.close()
                return process, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise SystemExit(f"gunicorn did not start:\n{process.communicate()[0]}")


def stop(process):
    process.terminate()
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def check_gitlab(url, token, label):
    gl = gitlab.Gitlab(url, private_token=token)
    version, revision = gl.version()
    assert revision == forgecore.__version__, (version, revision, forgecore.__version__)
    name = f"installed {label}"
    role = gl.member_roles.create({"name": name, "base_access_level": 10, "read_code": True})
    assert role.name == name and role.base_access_level == 10, role.attributes
    assert name in [r.name for r in gl.member_roles.list(get_all=True)]
    project = gl.projects.get("demo")
    assert project.path_with_namespace == "demo", project.attributes
    tree = {entry["name"]: entry for entry in project.repository_tree(ref="main", get_all=True)}
    assert set(tree) == {"README.md", "src"}, tree
    assert project.repository_raw_blob(tree["README.md"]["id"]) == b"# demo\n"
    compare = project.repository_compare("v1", "main")
    assert [d["new_path"] for d in compare["diffs"]] == ["src/main.c"], compare
    print(f"  {label}: python-gitlab {gitlab.__version__} against forgecore {revision}: version, member roles, "
          "project, tree, raw blob, compare as expected")


def check_keep_alive(url):
    host, port = url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    connection.request("GET", "/api/v4/version")
    first = connection.getresponse()
    first.read()
    sock = connection.sock
    connection.request("GET", "/api/v4/version")
    second = connection.getresponse()
    second.read()
    assert first.status == second.status == 200
    assert sock is not None and connection.sock is sock, "the server closed the connection between requests"
    connection.close()
    print("  gunicorn: two requests on one kept-alive connection")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gunicorn", action="store_true", help="also serve through gunicorn")
    parser.add_argument("--checkout", help="the checkout, which forgecore must not be imported from")
    args = parser.parse_args()
    assert "FORGECORE_LIB" not in os.environ and "PYTHONPATH" not in os.environ
    package = Path(forgecore.__file__).resolve().parent
    if args.checkout:
        assert not package.is_relative_to(Path(args.checkout).resolve()), f"forgecore imported from {package}"
    library = _native.library_path()
    assert library == package / "libforgecore.so", library
    print(f"  import forgecore {forgecore.__version__}: {package}, library {library.name} bundled")

    with tempfile.TemporaryDirectory(prefix="forgecore-install-py-") as tmp:
        tmp = Path(tmp)
        make_repo(tmp / "repos" / "demo")
        process, url, token = start_serve(tmp / "data", tmp / "repos", tmp)
        try:
            check_gitlab(url, token, "python -m forgecore serve")
        finally:
            stop(process)
        if args.gunicorn:
            process, url = start_gunicorn(tmp / "data", tmp / "repos", tmp)
            try:
                check_gitlab(url, token, "gunicorn")
                check_keep_alive(url)
            finally:
                stop(process)
    return 0


if __name__ == "__main__":
    sys.exit(main())
