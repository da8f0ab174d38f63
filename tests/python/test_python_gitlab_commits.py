"""python-gitlab, unchanged, reading commits through the host: commits.list (pages followed
with iterator=True, filters), commits.get, .diff() and .refs(), each compared with what the git
CLI says about the same repository (tests/fixtures/commits.sh)."""

import subprocess

import gitlab
import pytest

from conftest import build_fixture, git_out


@pytest.fixture(scope="module")
def fixture_dir(server, tmp_path_factory):
    path = tmp_path_factory.mktemp("commit-fixtures")
    build_fixture("commits.sh", path)
    server.admin("group", "add", "cx", "--visibility", "public")
    server.admin("project", "add", "cx/commits", "--repo", path / "commits.git", "--visibility", "public")
    return path


@pytest.fixture(scope="module")
def project(server, fixture_dir):
    return gitlab.Gitlab(server.url).projects.get("cx/commits")


def log(repo, *args):
    return git_out(repo, "log", "--format=%H", *args).split()


def by_subject(repo):
    """Commit ids by subject (one subject is Latin-1: read as bytes, decoded leniently)."""
    out = subprocess.run(["git", "-C", str(repo), "log", "--all", "--format=%H %s"], check=True, capture_output=True)
    return dict(line.split(" ", 1)[::-1] for line in out.stdout.decode("utf-8", "replace").splitlines())


def test_list_follows_pages_as_git_log(project, fixture_dir):
    repo = fixture_dir / "commits.git"
    listed = [c.id for c in project.commits.list(per_page=7, iterator=True)]
    assert listed == log(repo, "main")
    first = project.commits.list(per_page=7, page=1, get_all=False)
    assert [c.id for c in first] == log(repo, "-7", "main")


def test_list_filters_match_git_log(project, fixture_dir):
    repo = fixture_dir / "commits.git"
    # `path` is python-gitlab's own keyword (the URL to list): the filter goes as a query parameter.
    deep = project.commits.list(query_parameters={"path": "deep/a/b/c/file.txt"}, get_all=True)
    assert [c.id for c in deep] == log(repo, "main", "--", "deep/a/b/c/file.txt")
    feature = project.commits.list(ref_name="feature", first_parent=True, get_all=True)
    assert [c.id for c in feature] == log(repo, "--first-parent", "feature")
    topo = project.commits.list(order="topo", get_all=True)
    assert [c.id for c in topo] == log(repo, "--topo-order", "main")
    # python-gitlab's own all=True means "every page": the API's `all` goes as a query parameter.
    every = project.commits.list(query_parameters={"all": True}, get_all=True)
    assert [c.id for c in every] == log(repo, "--all")
    ranged = project.commits.list(ref_name="v1.0..main", get_all=True)
    assert [c.id for c in ranged] == log(repo, "v1.0..main")
    assert project.commits.list(ref_name="no-such-ref", get_all=True) == []
    with_trailers = project.commits.list(trailers=True, get_all=True)
    signed = [c for c in with_trailers if c.title == "Trailers"][0]
    assert signed.trailers == {"Signed-off-by": "Bob Builder <bob@example.com>", "Reviewed-by": "Carol <carol@example.com>"}
    assert signed.extended_trailers["Signed-off-by"] == [
        "Alice Example <alice@example.com>",
        "Bob Builder <bob@example.com>",
    ]


def test_get_is_git_show(project, fixture_dir):
    repo = fixture_dir / "commits.git"
    for ref in ["main", "v1.0", "feature", "main~2"]:
        commit = project.commits.get(ref)
        assert commit.id == git_out(repo, "rev-parse", f"{ref}^{{commit}}")
        assert commit.parent_ids == git_out(repo, "log", "-1", "--format=%P", commit.id).split()
        assert commit.author_email == git_out(repo, "log", "-1", "--format=%ae", commit.id)
        assert commit.status is None and commit.last_pipeline is None
        numstat = git_out(repo, "show", "--numstat", "--format=", "--first-parent", commit.id)
        added = sum(int(line.split("\t")[0]) for line in numstat.splitlines() if line and line[0] != "-")
        deleted = sum(int(line.split("\t")[1]) for line in numstat.splitlines() if line and line[0] != "-")
        assert commit.stats == {"additions": added, "deletions": deleted, "total": added + deleted}
    with pytest.raises(gitlab.GitlabGetError) as raised:
        project.commits.get("no-such-ref")
    assert raised.value.response_code == 404


def test_diff_and_refs_are_gits(project, fixture_dir):
    repo = fixture_dir / "commits.git"
    subjects = by_subject(repo)
    renamed = project.commits.get(subjects["Rename with an edit"])
    diffs = renamed.diff(get_all=True)
    assert [(d["old_path"], d["new_path"], d["renamed_file"]) for d in diffs] == [
        ("renamed-from.txt", "renamed-to.txt", True)
    ]
    patch = git_out(repo, "diff", "-M", f"{renamed.id}~1", renamed.id)
    assert diffs[0]["diff"].strip() == patch[patch.index("@@"):].strip()
    same = project.commits.get(subjects["Same date 3"])
    refs = same.refs(get_all=True)
    branches = git_out(repo, "branch", "--contains", same.id, "--format=%(refname:short)").split()
    tags = git_out(repo, "tag", "--contains", same.id).split()
    assert refs == [{"type": "branch", "name": b} for b in branches] + [{"type": "tag", "name": t} for t in tags]
    assert same.refs(type="tag", get_all=True) == [{"type": "tag", "name": t} for t in tags]
