"""What an operator of either host sees (issue #29): one JSON line per request on stderr by
default, made by the core (the fields of GitLab's api_json.log, the connection's address as
remote_ip, the correlation id the answer carries), none with --no-request-log / -request-log=false;
and /-/metrics, read with the Prometheus client's own parser, keeping one series per route
template and status however many paths are asked for."""

import json
import uuid

import pytest
from prometheus_client.parser import text_string_to_metric_families

from conftest import REPO, start_host, start_server, stop_server

GO_HOST = REPO / "target" / "debug" / "forgecore-http"


def start(kind, data_dir, *extra):
    if kind == "python":
        return start_server(data_dir, *extra)
    assert GO_HOST.exists(), f"{GO_HOST} is missing: make build-go"
    return start_host([GO_HOST, "-listen", "127.0.0.1:0", "-data-dir", data_dir, "-print-admin-token", *extra],
                      data_dir)


def records(stderr):
    lines = [line for line in stderr.splitlines() if line.strip()]
    parsed = []
    for line in lines:
        record = json.loads(line)  # every line is one JSON object
        parsed.append(record)
    return parsed


@pytest.mark.parametrize("kind", ["python", "go"])
def test_one_json_line_per_request_on_stderr(tmp_path, kind):
    server = start(kind, tmp_path / "data")
    marker = uuid.uuid4().hex
    answers = {}
    try:
        for index, target in enumerate(["/api/v4/version", "/api/v4/projects?private_token=glpat-secret0000",
                                        "/api/v4/nowhere", "/-/health", "/-/metrics"]):
            ua = f"{marker}/{index}"
            status, headers, _ = server.request("GET", target, headers={"User-Agent": ua},
                                                token=server.token if index == 0 else None)
            answers[ua] = (status, headers["x-request-id"], target)
    finally:
        code, stderr = stop_server(server)
    assert code == 0, stderr
    mine = [r for r in records(stderr) if r.get("ua", "").startswith(marker)]
    assert sorted(r["ua"] for r in mine) == sorted(answers), stderr
    for record in mine:
        status, request_id, target = answers[record["ua"]]
        assert record["status"] == status
        assert record["correlation_id"] == request_id
        assert record["path"] == target.split("?")[0]
        assert record["remote_ip"] == "127.0.0.1"
        assert record["severity"] == "INFO"
        assert "secret0000" not in json.dumps(record)
    by_path = {r["path"]: r for r in mine}
    assert by_path["/api/v4/version"]["username"] == "root"
    assert by_path["/api/v4/nowhere"]["route"] == "unmatched"
    assert by_path["/-/health"]["status"] == 200  # the host passed the peer: loopback is allowed


@pytest.mark.parametrize("kind", ["python", "go"])
def test_the_flag_turns_the_lines_off(tmp_path, kind):
    server = start(kind, tmp_path / "data", "--no-request-log" if kind == "python" else "-request-log=false")
    try:
        assert server.request("GET", "/api/v4/version")[0] == 200
    finally:
        code, stderr = stop_server(server)
    assert code == 0
    assert stderr == "", stderr


def test_metrics_parse_and_keep_one_series_per_route_and_status(tmp_path):
    server = start_server(tmp_path / "data", "--no-request-log")
    try:
        for index in range(1000):
            assert server.request("GET", f"/api/v4/projects/nobody%2Fp{index}")[0] == 404
        status, headers, page = server.request("GET", "/-/metrics")
    finally:
        stop_server(server)
    assert status == 200
    assert headers["content-type"].startswith("text/plain; version=0.0.4")
    families = {family.name: family for family in text_string_to_metric_families(page.decode())}
    requests = [s for s in families["forgecore_http_requests"].samples
                if s.labels.get("route") == "/api/v4/projects/:id"]
    assert [(s.labels["code"], s.labels["method"], s.value) for s in requests] == [("404", "GET", 1000.0)]
    assert families["forgecore_http_request_duration_seconds"].type == "histogram"
    for name in ["forgecore_http_in_flight_requests", "forgecore_store_operation_duration_seconds",
                 "forgecore_cache_requests", "forgecore_archive_cache_bytes", "forgecore_git_operation_duration_seconds"]:
        assert name in families, sorted(families)
    assert b"nobody" not in page
