"""python-gitlab 8.6.0, unchanged, reading a repository through the host: tree (offset and
keyset pagination, followed with iterator=True), blob, raw blob, contributors and merge base,
each compared with what the git CLI says about the same repository."""

import base64
import collections
import subprocess

import gitlab
import pytest

from conftest import build_fixture, git_out


@pytest.fixture(scope="module")
def fixture_dir(server, tmp_path_factory):
    path = tmp_path_factory.mktemp("fixtures")
    build_fixture("repo.sh", path)
    server.admin("group", "add", "fx", "--visibility", "public")
    server.admin("project", "add", "fx/work", "--repo", path / "work", "--visibility", "public")
    return path


@pytest.fixture(scope="module")
def project(server, fixture_dir):
    # Anonymous: the project is public. Not lazy: GET /projects/:id answers.
    return gitlab.Gitlab(server.url).projects.get("fx/work")


def ls_tree(repo, *args):
    """(mode, type, id, path) of `git ls-tree -z` lines."""
    out = subprocess.run(["git", "-C", str(repo), "ls-tree", "-z", *args], check=True, capture_output=True).stdout
    rows = []
    for record in out.split(b"\0"):
        if record:
            meta, path = record.split(b"\t", 1)
            mode, kind, oid = meta.decode().split()
            rows.append((mode, kind, oid, path.decode("utf-8", "replace")))
    return rows


def expected_tree(repo, *args):
    """git's listing in GitLab's order: trees, then blobs, then submodules."""
    rank = {"tree": 0, "blob": 1, "commit": 2}
    return sorted(ls_tree(repo, *args), key=lambda row: rank[row[1]])


def as_rows(entries):
    return [(e["mode"], e["type"], e["id"], e["path"]) for e in entries]


def test_project_loads(project):
    assert project.path_with_namespace == "fx/work"
    assert project.default_branch == "main"


def test_tree_matches_git(project, fixture_dir):
    work = fixture_dir / "work"
    top = project.repository_tree(get_all=True)
    assert as_rows(top) == expected_tree(work, "HEAD")
    deep = project.repository_tree(recursive=True, get_all=True)
    assert as_rows(deep) == expected_tree(work, "-r", "-t", "HEAD")
    sub = project.repository_tree(path="a", ref="v1.0.0", recursive=True, get_all=True)
    # git lists the directory `a` itself too; GitLab lists what is inside it.
    assert as_rows(sub) == [row for row in expected_tree(work, "-r", "-t", "v1.0.0", "a/") if row[3] != "a"]


def test_tree_pages_are_followed_with_iterator(project, fixture_dir):
    expected = expected_tree(fixture_dir / "work", "-r", "-t", "HEAD")
    offset = list(project.repository_tree(recursive=True, per_page=4, iterator=True))
    assert as_rows(offset) == expected
    keyset = list(project.repository_tree(recursive=True, per_page=3, pagination="keyset", iterator=True))
    assert as_rows(keyset) == expected


def test_tree_errors(project):
    with pytest.raises(gitlab.GitlabGetError) as raised:
        project.repository_tree(ref="no-such-ref")
    assert raised.value.response_code == 404
    with pytest.raises(gitlab.GitlabGetError) as raised:
        project.repository_tree(path="no/such/dir")
    assert raised.value.response_code == 404


def test_blobs_match_git(project, fixture_dir):
    work = fixture_dir / "work"
    for mode, kind, oid, path in ls_tree(work, "-r", "HEAD"):
        if kind != "blob":
            continue
        content = subprocess.run(["git", "-C", str(work), "cat-file", "blob", oid], check=True, capture_output=True).stdout
        blob = project.repository_blob(oid)
        assert blob["sha"] == oid and blob["size"] == len(content) and blob["encoding"] == "base64"
        assert base64.b64decode(blob["content"], validate=True) == content
        assert project.repository_raw_blob(oid) == content
    with pytest.raises(gitlab.GitlabGetError) as raised:
        project.repository_blob("0" * 40)
    assert raised.value.response_code == 404


def test_contributors_match_git_log(project, fixture_dir):
    log = git_out(fixture_dir / "work", "log", "--no-merges", "--format=%ae", "main")
    expected = collections.Counter(log.splitlines())
    contributors = project.repository_contributors(get_all=True)
    assert {c["email"]: c["commits"] for c in contributors} == dict(expected)
    assert all(c["additions"] == 0 and c["deletions"] == 0 for c in contributors)


def test_merge_base_matches_git(project, fixture_dir):
    work = fixture_dir / "work"
    for refs in (["main", "feature"], ["feature", "v1.0.0"], ["main", "feature", "light"]):
        expected = git_out(work, "merge-base", *refs)
        base = project.repository_merge_base(refs)
        assert base["id"] == expected
        assert base["short_id"] == expected[:8]
        assert base["committed_date"][-6] in "+-" and base["committed_date"][-3] == ":"
    with pytest.raises(gitlab.GitlabGetError) as raised:
        project.repository_merge_base(["main", "orphan"])
    assert raised.value.response_code == 404
