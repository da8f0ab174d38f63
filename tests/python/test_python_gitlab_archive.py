"""python-gitlab 8.6.0, unchanged, downloading archives through the host: every format and
alias opens with tarfile/zipfile and holds the members `git archive` gives for the same
commit (whole tree, `path`, `exclude_paths`), downloads are byte-identical, LFS objects
replace their pointers unless `include_lfs_blobs=False`, errors are GitlabListError 404,
streaming works, and the limit answers 429 with Retry-After. Also the Python binding's
`repository_archive` and `repository_archive_write` in-process."""

import io
import subprocess
import tarfile
import zipfile

import gitlab
import pytest

from conftest import build_fixture, git_out
from forgecore.core import Forgecore

LFS_OBJECT = b"LFS object content: the real model, not its pointer.\n"
TAR_FORMATS = ["tar.gz", "tgz", "gz", "tar", "tar.bz2", "tbz", "tbz2", "tb2", "bz2"]


@pytest.fixture(scope="module")
def fixture_dir(server, tmp_path_factory):
    path = tmp_path_factory.mktemp("archive-fixtures")
    build_fixture("archive.sh", path)
    server.admin("group", "add", "ar", "--visibility", "public")
    server.admin("project", "add", "ar/proj", "--repo", path / "repo.git", "--visibility", "public")
    return path


@pytest.fixture(scope="module")
def project(server, fixture_dir):
    # Anonymous callers of a public project: GitLab's anonymous threshold (100 a minute).
    return gitlab.Gitlab(server.url).projects.get("ar/proj")


def git_archive(repo, fmt, prefix, commit, *pathspecs):
    args = ["git", "-C", str(repo), "archive", f"--format={fmt}", f"--prefix={prefix}/", commit]
    if pathspecs:
        args += ["--", *pathspecs]
    return subprocess.run(args, check=True, capture_output=True).stdout


def tar_members(data):
    """(name, type, mode, link target, content) of every member; tarfile guesses compression."""
    with tarfile.open(fileobj=io.BytesIO(data)) as archive:
        members = []
        for m in archive.getmembers():
            content = archive.extractfile(m).read() if m.isfile() else b""
            members.append((m.name, m.type, m.mode, m.linkname, content))
        return members


def zip_members(data):
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return [(i.filename, i.external_attr, i.create_system, archive.read(i)) for i in archive.infolist()]


def test_every_format_matches_git_archive(project, fixture_dir):
    repo = fixture_dir / "repo.git"
    main = git_out(repo, "rev-parse", "main")
    prefix = f"proj-main-{main}"
    expected = tar_members(git_archive(repo, "tar", prefix, main))
    for fmt in TAR_FORMATS:
        body = project.repository_archive(format=fmt, include_lfs_blobs=False)
        assert tar_members(body) == expected, fmt
    body = project.repository_archive(format="zip", include_lfs_blobs=False)
    assert zip_members(body) == zip_members(git_archive(repo, "zip", prefix, main))


def test_path_and_exclude_paths(project, fixture_dir):
    repo = fixture_dir / "repo.git"
    main = git_out(repo, "rev-parse", "main")
    expected = tar_members(git_archive(repo, "tar", f"proj-main-{main}-src", main,
                                       "src", ":(exclude)src/lib/b.rs"))
    body = project.repository_archive(format="tar.bz2", path="src", exclude_paths="src/lib/b.rs")
    assert tar_members(body) == expected
    expected = zip_members(git_archive(repo, "zip", f"proj-feature-x-{git_out(repo, 'rev-parse', 'feature/x')}",
                                       "feature/x", ":(exclude)long", ":(exclude)docs"))
    body = project.repository_archive(sha="feature/x", format="zip", exclude_paths="long,docs",
                                      include_lfs_blobs=False)
    assert zip_members(body) == expected


def test_downloads_are_byte_identical(project):
    assert project.repository_archive() == project.repository_archive("main")
    for fmt in ("tar.gz", "tar.bz2", "zip"):
        assert project.repository_archive(format=fmt) == project.repository_archive(format=fmt), fmt


def test_lfs_objects_replace_pointers(project, fixture_dir):
    pointer = subprocess.run(["git", "-C", str(fixture_dir / "repo.git"), "cat-file", "-p", "main:assets/model.bin"],
                             check=True, capture_output=True).stdout
    by_name = {m[0].partition("/")[2]: m[4] for m in tar_members(project.repository_archive(path="assets"))}
    assert by_name["assets/model.bin"] == LFS_OBJECT
    by_name = {m[0].partition("/")[2]: m[4]
               for m in tar_members(project.repository_archive(path="assets", include_lfs_blobs=False))}
    assert by_name["assets/model.bin"] == pointer


def test_streamed_download_with_an_action(project, fixture_dir, tmp_path):
    target = tmp_path / "archive.zip"
    with open(target, "wb") as out:
        project.repository_archive(format="zip", streamed=True, action=out.write, chunk_size=4096)
    assert zipfile.ZipFile(target).testzip() is None
    assert target.read_bytes() == project.repository_archive(format="zip")


def test_errors_are_404_file_not_found(project):
    for kwargs in ({"sha": "no-such-ref"}, {"path": "no/such/path"}, {"exclude_paths": "nothing"}):
        with pytest.raises(gitlab.GitlabListError) as raised:
            project.repository_archive(**kwargs)
        assert raised.value.response_code == 404, kwargs
        assert "404 File Not Found" in str(raised.value.error_message)


def test_headers_and_unknown_suffixes(server, fixture_dir):
    main = git_out(fixture_dir / "repo.git", "rev-parse", "main")
    status, headers, body = server.request("GET", "/api/v4/projects/ar%2Fproj/repository/archive.tbz2?path=src")
    assert status == 200
    assert headers["content-disposition"] == f'attachment; filename="proj-main-{main}-src.tar.bz2"'
    assert headers["content-type"] == "application/octet-stream"
    assert "content-length" not in headers
    assert body[:3] == b"BZh"
    for suffix in ("rar", "ZIP", "tar.gz.exe"):
        status, _, _ = server.request("GET", f"/api/v4/projects/ar%2Fproj/repository/archive.{suffix}")
        assert status == 404, suffix


def test_rate_limit_answers_429_with_retry_after(server, fixture_dir):
    server.admin("user", "add", "archiver")
    token = server.admin("token", "add", "archiver").json["token"]
    url = "/api/v4/projects/ar%2Fproj/repository/archive.tar?path=src"
    statuses = [server.request("GET", url, token=token)[0] for _ in range(5)]
    assert statuses == [200] * 5
    status, headers, body = server.request("GET", url, token=token)
    assert status == 429
    assert int(headers["retry-after"]) >= 1
    assert b"This archive has been requested too many times. Try again later." in body


def test_binding_streams_and_writes_through_a_callback(tmp_path, fixture_dir):
    with Forgecore({"data_dir": str(tmp_path / "data")}) as core:
        assert core.admin({"command": "group_add", "path": "ar", "visibility": "public"}).status == 201
        assert core.admin({"command": "project_add", "path": "ar/proj", "repo": str(fixture_dir / "repo.git"),
                           "visibility": "public"}).status == 201
        params = {"project": "ar/proj", "format": "zip", "path": "src"}
        streamed = core.repository_archive({}, params)
        assert streamed.status == 200 and streamed.streamed
        whole = streamed.read()
        pieces = []
        written = core.repository_archive_write(pieces.append, {}, params)
        assert (written.status, written.read()) == (200, b"")
        assert b"".join(pieces) == whole
        assert "filename=" in written.headers["Content-Disposition"]
        assert core.repository_archive_write(lambda piece: False, {}, params).status == 400
        with pytest.raises(ZeroDivisionError):
            core.repository_archive_write(lambda piece: 1 / 0, {}, params)
        missing = core.repository_archive_write(pieces.append, {}, {"project": "ar/proj", "sha": "nope"})
        assert (missing.status, missing.json()) == (404, {"message": "404 File Not Found"})
