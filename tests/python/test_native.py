"""The ctypes binding in-process: the loader refuses another ABI version and declares every
export of the header, the typed exports and `request` work through `Forgecore`, bodies are
read back through `fc_response_read`, and 16 threads can share one instance."""

import re
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from forgecore import _native
from forgecore.core import BodyStream, Forgecore, ForgecoreError

from conftest import BINARY, git_out

HEADER = Path(__file__).resolve().parents[2] / "include" / "forgecore.h"


@pytest.fixture
def core(tmp_path):
    with Forgecore({"data_dir": str(tmp_path / "data")}) as instance:
        yield instance


@pytest.fixture
def admin_auth(core):
    answer = core.admin({"command": "bootstrap"})
    status, boot = answer.status, answer.json()
    assert status == 200 and boot["created"]
    return {"private_token": boot["token"]}


def test_abi_mismatch_is_refused(monkeypatch, tmp_path):
    monkeypatch.setattr(_native, "ABI_VERSION", _native.ABI_VERSION + 1)
    with pytest.raises(_native.LibraryError, match=f"ABI version {_native.ABI_VERSION - 1}"):
        Forgecore({"data_dir": str(tmp_path)})


def test_missing_library_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("FORGECORE_LIB", str(tmp_path / "libnothing.so"))
    with pytest.raises(_native.LibraryError, match="cannot load"):
        _native.load()


def test_every_header_export_is_declared():
    exported = set(re.findall(r"\b(fc_\w+)\(", HEADER.read_text()))
    assert exported == set(_native._EXPORTS)
    lib = _native.load()
    for name in exported:
        assert getattr(lib, name).argtypes is not None or name == "fc_abi_version"


def test_open_failure_is_forgecore_error(tmp_path):
    with pytest.raises(ForgecoreError) as raised:
        Forgecore({"data_dir": str(tmp_path), "no_such_key": 1})
    assert raised.value.status == 400
    assert "no_such_key" in raised.value.body["message"]


def answer(response):
    """(status, parsed JSON body or None) of a `Response`."""
    return response.status, response.json()


def test_typed_member_role_exports(core, admin_auth):
    status, role = answer(core.member_roles_create(admin_auth, {"name": "typed", "base_access_level": 30,
                                                                "read_code": True}))
    assert status == 201
    assert (role["name"], role["base_access_level"], role["read_code"]) == ("typed", 30, True)
    assert answer(core.member_roles_list(admin_auth, {})) == (200, [role])
    status, updated = answer(core.member_roles_update(admin_auth, {"member_role_id": role["id"], "name": "renamed"}))
    assert (status, updated["name"], updated["id"]) == (200, "renamed", role["id"])
    assert answer(core.member_roles_delete(admin_auth, {"member_role_id": role["id"]})) == (204, None)
    assert answer(core.member_roles_list(admin_auth, {})) == (200, [])
    assert core.member_roles_list({}, {}).status == 401
    assert core.member_roles_delete(admin_auth, {"member_role_id": role["id"]}).status == 404


def test_typed_group_scope(core, admin_auth):
    assert core.admin({"command": "group_add", "path": "tg"}).status == 201
    status, role = answer(core.member_roles_create(admin_auth, {"group": "tg", "name": "g", "base_access_level": 10}))
    assert (status, role["group_id"] is not None) == (201, True)
    assert core.member_roles_list(admin_auth, {"group": "tg"}).json() == [role]
    assert core.member_roles_list(admin_auth, {}).json() == []


def test_admin_error_status(core):
    assert answer(core.admin({"command": "nope"})) == (400, {"error": "command does not have a valid value"})


def test_request(core, admin_auth):
    response = core.request("GET", "/api/v4/member_roles", [("PRIVATE-TOKEN", admin_auth["private_token"])])
    assert (response.status, response.headers, response.read(), response.streamed) == (
        200, {"Content-Type": "application/json", "Cache-Control": "max-age=0, private, must-revalidate",
              "X-Content-Type-Options": "nosniff"}, b"[]", False)
    response = core.request("POST", "/api/v4/member_roles", [("Private-Token", admin_auth["private_token"])],
                            b'{"name": "n\\u00e9", "base_access_level": 20}')
    assert (response.status, response.json()["name"]) == (201, "né")


def test_body_read_in_chunks_and_freed(core):
    lib = _native.load()
    ctx = core._enter()
    try:
        raw = lib.fc_request(ctx, b"GET", b"/api/v4/version", b"[]", None, 0)
    finally:
        core._leave()
    whole = core.request("GET", "/api/v4/version").read()
    stream = BodyStream(lib, raw, chunk_size=7)
    chunks = list(stream)
    assert b"".join(chunks) == whole
    assert all(0 < len(c) <= 7 for c in chunks) and len(chunks) > 1
    assert list(stream) == []
    stream.close()  # a second free would crash the process


def test_closed_instance_refuses_calls(tmp_path):
    instance = Forgecore({"data_dir": str(tmp_path)})
    instance.close()
    instance.close()
    with pytest.raises(ValueError, match="closed"):
        instance.request("GET", "/api/v4/version")


def test_sixteen_threads(core, admin_auth):
    token = admin_auth["private_token"]
    barrier = threading.Barrier(16)

    def work(n):
        barrier.wait()
        results = []
        for i in range(5):
            body = f'{{"name": "t{n}-{i}", "base_access_level": 10}}'.encode()
            results.append(core.request("POST", "/api/v4/member_roles",
                                        [("PRIVATE-TOKEN", token), ("Content-Type", "application/json")], body).status)
            results.append(core.request("GET", "/api/v4/member_roles", [("PRIVATE-TOKEN", token)]).status)
            results.append(core.member_roles_list(admin_auth, {}).status)
        return results

    with ThreadPoolExecutor(16) as pool:
        results = list(pool.map(work, range(16)))
    assert all(r == [201, 200, 200] * 5 for r in results), results
    names = {role["name"] for role in core.member_roles_list(admin_auth, {}).json()}
    assert names == {f"t{n}-{i}" for n in range(16) for i in range(5)}


@pytest.fixture
def project(core, git_repo):
    assert core.admin({"command": "project_add", "path": "repo", "repo": str(git_repo), "visibility": "public"}).status == 201
    return "repo"


def test_repository_exports(core, project, git_repo):
    head = git_out(git_repo, "rev-parse", "HEAD")
    response = core.repository_merge_base({}, {"project": project, "refs": ["main", head]})
    assert (response.status, response.json()["id"]) == (200, head)
    response = core.repository_contributors({}, {"project": project})
    assert response.status == 200
    assert [(c["email"], c["commits"]) for c in response.json()] == [("t@example.com", 1)]


def test_commit_exports(core, project, git_repo):
    head = git_out(git_repo, "rev-parse", "HEAD")
    listed = core.repository_commits({}, {"project": project, "ref_name": "HEAD"})
    assert (listed.status, [c["id"] for c in listed.json()]) == (200, [head])
    one = core.repository_commit({}, {"project": project, "sha": "main"})
    assert (one.status, one.json()["id"], one.json()["last_pipeline"]) == (200, head, None)
    diff = core.repository_commit_diff({}, {"project": project, "sha": head})
    assert diff.status == 200 and diff.json()
    refs = core.repository_commit_refs({}, {"project": project, "sha": head, "type": "branch"})
    assert (refs.status, refs.json()) == (200, [{"type": "branch", "name": "main"}])
    sequence = core.repository_commit_sequence({}, {"project": project, "sha": head})
    assert (sequence.status, sequence.json()) == (200, {"count": 1})
    assert core.repository_commit({}, {"project": project, "sha": "nope"}).status == 404


def test_file_exports_read_what_git_has(core, project, git_repo):
    head = git_out(git_repo, "rev-parse", "HEAD")
    blob = git_out(git_repo, "rev-parse", "HEAD:data.bin")
    one = core.repository_file({}, {"project": project, "file_path": "data.bin", "ref": "main"})
    entity = one.json()
    assert one.status == 200
    assert (entity["blob_id"], entity["last_commit_id"]) == (blob, head)
    missing = core.repository_file({}, {"project": project, "file_path": "nope", "ref": "main"})
    assert missing.status == 404
    # Writes need a user: the anonymous typed door is refused, nothing moves.
    refused = core.repository_file_create({}, {"project": project, "file_path": "x", "branch": "main",
                                               "commit_message": "x", "content": "x"})
    assert refused.status == 403
    assert git_out(git_repo, "rev-parse", "HEAD") == head


def test_raw_blob_is_streamed(core, project, git_repo):
    sha = git_out(git_repo, "rev-parse", "HEAD:data.bin")
    response = core.repository_raw_blob({}, {"project": project, "sha": sha})
    assert response.status == 200
    assert response.streamed
    with response:
        chunks = list(response)
    assert b"".join(chunks) == BINARY
    assert len(chunks) > 1 and all(len(c) <= 64 * 1024 for c in chunks)


def test_branch_tag_and_project_exports(core, admin_auth, project, git_repo):
    status, branches = answer(core.branches_list(admin_auth, {"project": "repo"}))
    assert status == 200
    assert [b["name"] for b in branches] == git_out(git_repo, "for-each-ref", "--format=%(refname:short)",
                                                    "refs/heads").split()
    assert core.branch_create(admin_auth, {"project": "repo", "branch": "typed", "ref": "HEAD"}).status == 201
    assert git_out(git_repo, "rev-parse", "typed").strip() == git_out(git_repo, "rev-parse", "HEAD").strip()
    assert core.branch_get(admin_auth, {"project": "repo", "branch": "typed"}).json()["name"] == "typed"
    assert core.tag_create(admin_auth, {"project": "repo", "tag_name": "t1", "ref": "typed", "message": "m"}).status == 201
    assert git_out(git_repo, "cat-file", "-t", "t1").strip() == "tag"
    assert [t["name"] for t in core.tags_list(admin_auth, {"project": "repo"}).json()] == ["t1"]
    assert core.tag_delete(admin_auth, {"project": "repo", "tag_name": "t1"}).status == 204
    assert core.branch_delete(admin_auth, {"project": "repo", "branch": "typed"}).status == 204
    assert core.project_get(admin_auth, {"project": "repo"}).json()["path_with_namespace"] == "repo"
    assert core.user_current(admin_auth, {}).json()["is_admin"] is True
    assert core.user_current({}, {}).status == 401
    assert [p["name"] for p in core.protected_branches_list(admin_auth, {"project": "repo"}).json()] == ["main"]
