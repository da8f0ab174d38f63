"""The HTTP host over a real socket: raw targets keep %2F and %2E, bodies reach the core
byte for byte (and a too large one is a 413, not a reset, at the configuration's limit), the
core's status, headers and empty bodies come back unchanged."""

import json
import socket

import pytest

from conftest import BINARY, git_out, start_server, stop_server, unique


@pytest.fixture(scope="module", autouse=True)
def groups(server):
    server.admin("group", "add", "top")
    server.admin("group", "add", "top/sub")
    server.admin("group", "add", "top/v1.2")


def test_encoded_slash_in_group_path(server):
    status, group = server.json("GET", "/api/v4/groups/top%2Fsub", token=server.token)
    assert status == 200
    assert group["full_path"] == "top/sub"
    # Decoding %2F in the host would have routed to this, which is no route at all.
    status, _ = server.json("GET", "/api/v4/groups/top/sub", token=server.token)
    assert status == 404


def test_encoded_dot_in_group_path(server):
    status, group = server.json("GET", "/api/v4/groups/top%2Fv1%2E2", token=server.token)
    assert status == 200
    assert group["full_path"] == "top/v1.2"


def test_delete_member_role_is_204_without_body_or_json_type(server):
    status, role = server.json("POST", "/api/v4/member_roles", {"name": unique("del"), "base_access_level": 10},
                               token=server.token)
    assert status == 201
    status, headers, body = server.request("DELETE", f"/api/v4/member_roles/{role['id']}",
                                           {"Content-Type": "application/json"}, token=server.token)
    assert (status, body) == (204, b"")
    assert "content-type" not in headers
    status, roles = server.json("GET", "/api/v4/member_roles", token=server.token)
    assert role["id"] not in [r["id"] for r in roles]


def test_utf8_body_arrives_byte_for_byte(server):
    name = unique("rôle ✓ 役割")
    status, role = server.json("POST", "/api/v4/member_roles", {"name": name, "base_access_level": 20},
                               token=server.token)
    assert status == 201
    assert role["name"] == name


def test_json_body_without_content_type_is_json(server):
    # wsgiref invents Content-Type: text/plain; the host must not pass that on (the core would 415).
    body = json.dumps({"name": unique("untyped"), "base_access_level": 20}).encode()
    status, headers, data = server.request("POST", "/api/v4/member_roles", {}, body, token=server.token)
    assert status == 201, data


def test_binary_json_body_is_a_400_from_the_core(server):
    body = b'{"name": "\xff\xfe\x00\x80", "base_access_level": 20}' + bytes(range(256))
    status, headers, data = server.request("POST", "/api/v4/member_roles",
                                           {"Content-Type": "application/json"}, body, token=server.token)
    assert status == 400
    assert headers["content-type"] == "application/json"
    assert "not valid JSON" in json.loads(data)["message"]


def test_binary_form_body_reaches_the_core_unchanged(server):
    # Only bytes that are still not UTF-8 inside the core give this message.
    status, headers, data = server.request(
        "POST", "/api/v4/member_roles", {"Content-Type": "application/x-www-form-urlencoded"},
        b"name=\xff\xfe&base_access_level=20", token=server.token)
    assert status == 400
    assert json.loads(data) == {"message": "400 Bad request - the body is not valid UTF-8"}


@pytest.mark.parametrize("size", [(1 << 20) + 1, 2 << 20, 16 << 20])
def test_too_large_body_is_413(server, size):
    status, headers, data = server.request("POST", "/api/v4/member_roles",
                                           {"Content-Type": "application/json"}, b" " * size, token=server.token)
    assert status == 413
    assert json.loads(data) == {"message": "413 Request Entity Too Large"}
    assert server.json("GET", "/api/v4/version")[0] == 200


def test_body_read_is_bounded(server):
    """A huge declared length: the core answers 413 from the Content-Length alone, before the host
    reads any of the body (the client has sent none of it)."""
    with socket.create_connection((server.host, server.port), timeout=10) as connection:
        connection.sendall(b"POST /api/v4/member_roles HTTP/1.1\r\nHost: x\r\n"
                           b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (10 << 30))
        answer = b""
        while chunk := connection.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.0 413 ")
    assert answer.endswith(b'{"message":"413 Request Entity Too Large"}')



def _role_body(name, size):
    """A valid member role as JSON, padded with spaces to `size` bytes."""
    body = json.dumps({"name": name, "base_access_level": 10}).encode()
    return body + b" " * (size - len(body))


def _host_with_body_limit(tmp_path, limit, *extra):
    """A host started with --config setting limits.max_body_bytes to `limit`."""
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"limits": {"max_body_bytes": limit}}))
    return start_server(tmp_path / "data", "--config", config, *extra)


def _post_role(host, body):
    status, _, data = host.request("POST", "/api/v4/member_roles", {"Content-Type": "application/json"}, body,
                                   token=host.token)
    return status, json.loads(data)


def test_body_limit_lowered_by_the_configuration(tmp_path):
    """At limits.max_body_bytes 2048, a 4 KiB body is a 413 and a small role is created; of a
    declared 10 GiB the host reads 2049 bytes and answers at once, instead of waiting (2 s
    read timeout) for bytes it would not pass on."""
    host = _host_with_body_limit(tmp_path, 2048, "--read-timeout", "2")
    try:
        assert _post_role(host, _role_body("small", 100))[0] == 201
        assert _post_role(host, _role_body("large", 4096)) == (413, {"message": "413 Request Entity Too Large"})
        with socket.create_connection((host.host, host.port), timeout=10) as connection:
            connection.sendall(b"POST /api/v4/member_roles HTTP/1.1\r\nHost: x\r\n"
                               b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (10 << 30))
            connection.sendall(b" " * 2049)
            answer = b""
            while chunk := connection.recv(65536):
                answer += chunk
        assert answer.startswith(b"HTTP/1.0 413 ")
        assert answer.endswith(b'{"message":"413 Request Entity Too Large"}')
    finally:
        assert stop_server(host)[0] == 0


def test_body_limit_raised_by_the_configuration(tmp_path):
    """At limits.max_body_bytes 2 MiB, a 1.5 MiB body reaches the core whole (a role is
    created) and one byte over 2 MiB is a 413."""
    host = _host_with_body_limit(tmp_path, 2 << 20)
    try:
        status, role = _post_role(host, _role_body("padded", 1536 << 10))
        assert (status, role["name"]) == (201, "padded")
        assert _post_role(host, _role_body("large", (2 << 20) + 1)) == (413, {"message": "413 Request Entity Too Large"})
    finally:
        assert stop_server(host)[0] == 0


def test_unknown_route_is_404_json(server):
    for target in ("/api/v4/no/such/route", "/nowhere"):
        status, headers, data = server.request("GET", target)
        assert status == 404
        assert headers["content-type"] == "application/json"
        assert json.loads(data) == {"message": "404 Not Found"}


def test_json_answers_have_json_content_type(server):
    for target, token in (("/api/v4/version", None), ("/api/v4/member_roles", server.token)):
        status, headers, data = server.request("GET", target, token=token)
        assert status == 200
        assert headers["content-type"] == "application/json"
        json.loads(data)


def test_bad_token_is_401(server):
    status, body = server.json("GET", "/api/v4/member_roles", token="glpat-notarealtoken000000000000")
    assert (status, body) == (401, {"message": "401 Unauthorized"})
    # The query string reaches the core as well.
    status, body = server.json("GET", "/api/v4/member_roles?private_token=glpat-nope")
    assert status == 401


def test_anonymous_member_roles_is_401(server):
    assert server.json("GET", "/api/v4/member_roles")[0] == 401


def test_head(server):
    status, headers, data = server.request("HEAD", "/api/v4/version")
    assert status == 200
    assert data == b""
    assert headers["content-type"] == "application/json"


def test_reason_phrase(server):
    import http.client
    connection = http.client.HTTPConnection(server.host, server.port, timeout=10)
    connection.request("PATCH", "/api/v4/version")
    response = connection.getresponse()
    response.read()
    connection.close()
    assert (response.status, response.reason) == (405, "Method Not Allowed")


def test_streamed_raw_blob_comes_back_byte_for_byte(server, git_repo):
    server.admin("project", "add", "top/blobs", "--repo", git_repo, "--visibility", "public")
    sha = git_out(git_repo, "rev-parse", "HEAD:data.bin")
    status, headers, data = server.request("GET", f"/api/v4/projects/top%2Fblobs/repository/blobs/{sha}/raw")
    assert status == 200
    assert data == BINARY
    status, headers, data = server.request("HEAD", f"/api/v4/projects/top%2Fblobs/repository/blobs/{sha}/raw")
    assert (status, data) == (200, b"")


def test_concurrent_requests(server):
    from concurrent.futures import ThreadPoolExecutor

    def one(n):
        status, role = server.json("POST", "/api/v4/member_roles", {"name": unique(f"c{n}"), "base_access_level": 10},
                                   token=server.token)
        return status, server.json("GET", "/api/v4/groups/top%2Fsub", token=server.token)[0]

    with ThreadPoolExecutor(16) as pool:
        assert list(pool.map(one, range(48))) == [(201, 200)] * 48
