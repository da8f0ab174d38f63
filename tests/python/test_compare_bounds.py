"""A compare over a long history through the Python host stays bounded: the commit list is
capped (the newest `compare_max_commits`, anonymous callers included, as GitLab lists every
commit of a range), the body is streamed, and the host's peak memory (VmHWM) grows by less
than 32 MiB while it answers 70 MiB of commit messages. (The bound is on the growth: the debug
library this test loads is itself a large share of an idle host's resident memory.)"""

import json
import subprocess

import pytest

from conftest import start_server, stop_server

COMMITS = 12_000
MESSAGE_BYTES = 6 * 1024  # 12,000 commits of 6 KiB: 70 MiB of messages in the range
GROWTH_BOUND = 32 << 20


def fast_import_stream():
    """Commit i changes `log.txt`; its message is 6 KiB of text unique to it."""
    for i in range(1, COMMITS + 1):
        filler = (f"line {i} of a long commit message that says a lot about very little. " * 100)[:MESSAGE_BYTES]
        message = f"Commit {i}\n\n{filler}\n".encode()
        content = f"state {i}\n".encode()
        yield (f"commit refs/heads/main\ncommitter Long <long@example.com> {1700000000 + i * 60} +0000\n"
               f"data {len(message)}\n").encode() + message
        yield f"M 100644 inline log.txt\ndata {len(content)}\n".encode() + content + b"\n"


@pytest.fixture(scope="module")
def long_repo(tmp_path_factory):
    repo = tmp_path_factory.mktemp("long") / "long.git"
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(repo)], check=True)
    feeder = subprocess.Popen(["git", "-C", str(repo), "fast-import", "--quiet"], stdin=subprocess.PIPE)
    for chunk in fast_import_stream():
        feeder.stdin.write(chunk)
    feeder.stdin.close()
    assert feeder.wait() == 0
    return repo


@pytest.fixture(scope="module")
def host(tmp_path_factory, long_repo):
    running = start_server(tmp_path_factory.mktemp("data"))
    running.admin("project", "add", "long", "--repo", long_repo, "--visibility", "public")
    yield running
    code, stderr = stop_server(running)
    assert code == 0, stderr


def peak_memory(pid):
    with open(f"/proc/{pid}/status") as status:
        fields = dict(line.split(":", 1) for line in status)
    return int(fields["VmHWM"].split()[0]) * 1024


def git_out(repo, *args):
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.split()


def test_a_long_compare_is_capped_streamed_and_bounded(host, long_repo):
    root = git_out(long_repo, "rev-list", "--max-parents=0", "main")[0]
    target = f"/api/v4/projects/long/repository/compare?from={root}&to=main"
    before = peak_memory(host.process.pid)

    status, headers, body = host.request("GET", target, token=host.token)
    assert status == 200, body[:200]
    assert "content-length" not in headers, "a long compare is streamed"
    answer = json.loads(body)
    assert len(body) > 2 * GROWTH_BOUND, "the answer itself is larger than the memory bound"
    expected = git_out(long_repo, "rev-list", "--reverse", "--max-count=10000", "main", f"^{root}")
    assert [c["id"] for c in answer["commits"]] == expected
    assert answer["commit"]["id"] == expected[-1]
    assert answer["commits"][0]["message"].startswith(f"Commit {COMMITS - 10_000 + 1}\n\nline")

    status, _, body = host.request("GET", target)
    anonymous = json.loads(body)
    assert status == 200
    assert [c["id"] for c in anonymous["commits"]] == expected

    peak = peak_memory(host.process.pid)
    assert peak - before < GROWTH_BOUND, f"host peak {peak >> 20} MiB (before the compares: {before >> 20} MiB)"
