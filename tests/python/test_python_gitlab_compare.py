"""python-gitlab 8.6.0, unchanged, comparing refs through the host (`repository_compare` with
and without `straight`, `unidiff` and `from_project_id`), checked against the git CLI on the
repositories of tests/fixtures/compare.sh."""

import subprocess

import gitlab
import pytest

from conftest import build_fixture, git_out


@pytest.fixture(scope="module")
def fixture_dir(server, tmp_path_factory):
    path = tmp_path_factory.mktemp("compare")
    build_fixture("compare.sh", path)
    server.admin("group", "add", "fx", "--visibility", "public")
    server.admin("project", "add", "fx/compare", "--repo", path / "compare.git", "--visibility", "public")
    server.admin("project", "add", "fx/fork", "--repo", path / "fork.git", "--visibility", "public",
                 "--forked-from", "fx/compare")
    server.admin("project", "add", "fx/other", "--repo", path / "other.git", "--visibility", "public")
    return path


@pytest.fixture(scope="module")
def gl(server, fixture_dir):
    return gitlab.Gitlab(server.url)


def git_bytes(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True).stdout


def raw_entries(repo, base, to):
    """(old_path, new_path, a_mode, b_mode, new, renamed, deleted) per `git diff --raw -M`, a
    type change split into a deletion and an addition as GitLab lists it."""
    fields = [f for f in git_bytes(repo, "diff", "--raw", "-z", "-M", "--no-abbrev", base, to).split(b"\0") if f]
    entries, i = [], 0
    while i < len(fields):
        a_mode, b_mode, _, _, status = fields[i].decode().lstrip(":").split(" ")
        a_mode, b_mode = format(int(a_mode, 8), "o"), format(int(b_mode, 8), "o")
        old = fields[i + 1].decode("utf-8", "replace")
        new = fields[i + 2].decode("utf-8", "replace") if status[0] in "RC" else old
        i += 3 if status[0] in "RC" else 2
        if status[0] == "T":
            entries.append((old, new, a_mode, "0", False, False, True))
            entries.append((old, new, "0", b_mode, True, False, False))
        else:
            entries.append((old, new, a_mode, b_mode, status[0] == "A", old != new, status[0] == "D"))
    return entries


def patches(repo, base, to):
    """Per file of `git diff -M`: the text from its first `@@` or binary notice."""
    out, sections = git_bytes(repo, "diff", "-M", base, to), []
    for line in out.splitlines(keepends=True):
        if line.startswith(b"diff --git "):
            sections.append([])
        sections[-1].append(line)
    result = []
    for lines in sections:
        starts = [i for i, l in enumerate(lines) if l.startswith(b"@@ ") or l.startswith(b"Binary files ")]
        result.append(b"".join(lines[starts[0]:]).decode("utf-8", "replace") if starts else "")
    return result


def check(answer, repo, frm, to, straight):
    frm, to = git_out(repo, "rev-parse", frm + "^{commit}"), git_out(repo, "rev-parse", to + "^{commit}")
    base = frm if straight else git_out(repo, "merge-base", frm, to)
    commits = git_out(repo, "rev-list", "--reverse", f"{frm}..{to}").split()
    assert [c["id"] for c in answer["commits"]] == commits
    assert answer["commit"] == (answer["commits"][-1] if commits else None)
    got = [(d["old_path"], d["new_path"], d["a_mode"], d["b_mode"], d["new_file"], d["renamed_file"],
            d["deleted_file"]) for d in answer["diffs"]]
    assert got == raw_entries(repo, base, to)
    assert [d["diff"] for d in answer["diffs"]] == patches(repo, base, to)
    assert answer["compare_timeout"] is False and answer["compare_same_ref"] is False
    assert answer["web_url"].endswith(f"/-/compare/{base}...{to}")


def test_compare_matches_git(gl, fixture_dir):
    repo = fixture_dir / "compare.git"
    project = gl.projects.get("fx/compare")
    check(project.repository_compare("base", "feature"), repo, "base", "feature", False)
    check(project.repository_compare("main", "feature"), repo, "main", "feature", False)
    check(project.repository_compare("main", "feature", straight=True), repo, "main", "feature", True)
    check(project.repository_compare("feature", "main", straight=False), repo, "feature", "main", False)
    reversed_ = project.repository_compare("feature", "reversed")
    assert reversed_["commits"] == [] and reversed_["diffs"] == [] and reversed_["compare_same_ref"] is False
    same = project.repository_compare("light", git_out(repo, "rev-parse", "light"))
    assert same["compare_same_ref"] is True and same["commit"] is None and same["diffs"] == []


def test_unidiff_adds_file_headers(gl, fixture_dir):
    project = gl.projects.get("fx/compare")
    plain = project.repository_compare("base", "feature")["diffs"]
    unified = project.repository_compare("base", "feature", unidiff=True)["diffs"]
    assert len(plain) == len(unified)
    for p, u in zip(plain, unified):
        if not p["diff"] or p["diff"].startswith("Binary files "):
            assert u["diff"] == p["diff"]
            continue
        old = "/dev/null" if p["new_file"] else "a/" + p["old_path"]
        new = "/dev/null" if p["deleted_file"] else "b/" + p["new_path"]
        assert u["diff"] == f"--- {old}\n+++ {new}\n" + p["diff"]


def test_compare_across_forks(gl, fixture_dir):
    both = fixture_dir / "both.git"
    upstream, fork = gl.projects.get("fx/compare"), gl.projects.get("fx/fork")
    answer = fork.repository_compare("main", "forkwork", from_project_id=upstream.id)
    check(answer, both, "upstream", "forkwork", False)
    assert "/fx/fork/-/compare/" in answer["web_url"]
    answer = upstream.repository_compare("forkwork", "main", from_project_id=fork.id, straight=True)
    check(answer, both, "forkwork", "upstream", True)


def test_compare_errors(gl, fixture_dir):
    project = gl.projects.get("fx/compare")
    with pytest.raises(gitlab.GitlabGetError) as raised:
        project.repository_compare("main", "no-such-ref")
    assert raised.value.response_code == 404
    other = gl.projects.get("fx/other")
    with pytest.raises(gitlab.GitlabGetError) as raised:
        project.repository_compare("main", "main", from_project_id=other.id)
    assert raised.value.response_code == 400
    assert raised.value.error_message == f"Target project id:{other.id} is not a fork of project id:{project.id}"
