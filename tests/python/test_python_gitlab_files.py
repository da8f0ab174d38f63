"""python-gitlab, unchanged, on the repository files API of both hosts (the Python host and
the Go host): files.get/head/raw/blame compared with the git CLI, and files.create, f.save()
and f.delete() each making one commit, as git log sees it."""

import base64
import hashlib
import subprocess

import gitlab
import pytest

from conftest import build_fixture, git_out, maintenance_held, start_either, stop_server


@pytest.fixture(scope="module", params=["python", "go"])
def host(request, tmp_path_factory):
    data_dir = tmp_path_factory.mktemp(f"files-{request.param}")
    server = start_either(request.param, data_dir)
    fixtures = tmp_path_factory.mktemp(f"files-fixtures-{request.param}")
    build_fixture("repo.sh", fixtures)
    server.admin("group", "add", "fx", "--visibility", "public")
    server.admin("project", "add", "fx/files", "--repo", fixtures / "bare.git", "--visibility", "public")
    server.repo = fixtures / "bare.git"
    yield server
    stop_server(server)


def blobs(repo):
    """(mode, path) of every regular file at main whose name is UTF-8."""
    out = subprocess.run(["git", "-C", str(repo), "ls-tree", "-r", "-z", "main"], check=True,
                         capture_output=True).stdout
    rows = []
    for record in filter(None, out.split(b"\0")):
        meta, path = record.split(b"\t", 1)
        mode, kind, _ = meta.decode().split()
        try:
            rows.append((mode, path.decode("utf-8"))) if kind == "blob" else None
        except UnicodeDecodeError:
            pass
    return rows


def cat(repo, spec):
    return subprocess.run(["git", "-C", str(repo), "cat-file", "blob", spec], check=True,
                          capture_output=True).stdout


def test_reads_match_git(host):
    project = gitlab.Gitlab(host.url).projects.get("fx/files")
    rows = blobs(host.repo)
    assert len(rows) >= 8
    for mode, path in rows:
        content = cat(host.repo, f"main:{path}")
        f = project.files.get(path, ref="main")
        assert f.decode() == content, path
        assert f.file_path == path and f.ref == "main"
        assert f.last_commit_id == git_out(host.repo, "log", "-1", "--format=%H", "main", "--", path)
        assert f.content_sha256 == hashlib.sha256(content).hexdigest()
        assert f.execute_filemode == (mode == "100755")
        assert project.files.raw(path, ref="main") == content
        headers = project.files.head(path, ref="main")
        assert headers["X-Gitlab-Blob-Id"] == f.blob_id
    blame = project.files.blame("README.md", ref="main")
    lines = [line for group in blame for line in group["lines"]]
    assert lines == cat(host.repo, "main:README.md").decode().splitlines()
    with pytest.raises(gitlab.GitlabGetError) as missing:
        project.files.get("no/such/file", ref="main")
    assert missing.value.response_code == 404


def test_writes_commit_once_each(host):
    gl = gitlab.Gitlab(host.url, private_token=host.token)
    project = gl.projects.get("fx/files")
    before = git_out(host.repo, "rev-parse", "main")
    created = project.files.create({"file_path": "dir/new file.txt", "branch": "main", "content": "one\n",
                                    "commit_message": "Add a file"})
    assert created.file_path == "dir/new file.txt"
    assert git_out(host.repo, "rev-parse", "main~1") == before
    f = project.files.get("dir/new file.txt", ref="main")
    f.content = base64.b64encode(b"two\n").decode()
    f.encoding = "base64"
    f.save(branch="main", commit_message="Change the file")
    assert cat(host.repo, "main:dir/new file.txt") == b"two\n"
    f.delete(branch="main", commit_message="Remove the file")
    assert git_out(host.repo, "log", "-3", "--format=%s", "main").splitlines() == [
        "Remove the file", "Change the file", "Add a file"]
    with pytest.raises(gitlab.GitlabCreateError) as exists:
        project.files.create({"file_path": "README.md", "branch": "main", "content": "x", "commit_message": "x"})
    assert exists.value.response_code == 400 and "already exists" in str(exists.value)
    with maintenance_held(host.repo):
        subprocess.run(["git", "-C", str(host.repo), "fsck", "--strict"], check=True, capture_output=True)


def test_commits_create_several_actions_at_once(host):
    gl = gitlab.Gitlab(host.url, private_token=host.token)
    project = gl.projects.get("fx/files")
    before = git_out(host.repo, "rev-parse", "main")
    commit = project.commits.create({
        "branch": "from-python", "start_branch": "main", "commit_message": "Two files at once",
        "actions": [
            {"action": "create", "file_path": "py/a.txt", "content": "a\n"},
            {"action": "create", "file_path": "py/b.bin", "content": base64.b64encode(b"\x00\x01").decode(),
             "encoding": "base64"},
            {"action": "delete", "file_path": "README.md"},
        ],
    })
    assert commit.id == git_out(host.repo, "rev-parse", "from-python")
    assert commit.parent_ids == [before]
    assert commit.stats["additions"] == 1
    assert cat(host.repo, "from-python:py/b.bin") == b"\x00\x01"
    assert git_out(host.repo, "ls-tree", "--name-only", "from-python", "README.md") == ""
    with pytest.raises(gitlab.GitlabCreateError) as refused:
        project.commits.create({"branch": "from-python", "commit_message": "x",
                                "actions": [{"action": "update", "file_path": "nope", "content": "x"}]})
    assert refused.value.response_code == 400
