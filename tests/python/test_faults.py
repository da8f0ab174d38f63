"""Faults around the SQLite store, through the real host: a host killed (SIGKILL) in the middle
of role writes loses no acknowledged write and leaves an intact database; a data directory that
fills up gives a clear 503 for writes while reads go on, and service recovers when space returns;
a read-only data directory is refused at start with a message that says so."""

import random
import sqlite3
import subprocess
import threading
import time

import pytest

from conftest import build_fixture, cli, git_out, maintenance_held, start_server, stop_server


def create_roles(server, prefix, acknowledged, stop):
    """POSTs roles one after another until `stop` is set or the host goes away."""
    i = 0
    while not stop.is_set():
        name = f"{prefix}-{i}"
        try:
            status, _ = server.json("POST", "/api/v4/member_roles", {"name": name, "base_access_level": 10},
                                    token=server.token)
        except OSError:
            return
        if status == 201:
            acknowledged.append(name)
        i += 1


def kill_during_writes(data, seconds, write):
    """Starts a host on `data` and three threads running `write(server, number, stop)`, SIGKILLs
    the host after `seconds`, then stops the threads and waits for them."""
    server = start_server(data)
    stop = threading.Event()
    writers = [threading.Thread(target=write, args=(server, w, stop)) for w in range(3)]
    for writer in writers:
        writer.start()
    time.sleep(seconds)
    server.process.kill()
    server.process.wait(10)
    stop.set()
    for writer in writers:
        writer.join(30)


def role_names(server):
    status, roles = server.json("GET", "/api/v4/member_roles", token=server.token)
    assert status == 200
    return {role["name"] for role in roles}


def test_a_kill_during_role_writes_loses_no_acknowledged_write(tmp_path):
    data = tmp_path / "data"
    acknowledged = []
    rng = random.Random(7)
    for round_ in range(4):
        kill_during_writes(data, rng.uniform(0.3, 0.8),
                           lambda server, w, stop, r=round_: create_roles(server, f"r{r}w{w}", acknowledged, stop))
    assert len(acknowledged) > 20, "the writers did not get going"
    server = start_server(data)
    try:
        assert set(acknowledged) <= role_names(server)
    finally:
        stop_server(server)
    with sqlite3.connect(data / "forgecore.sqlite3") as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)


@pytest.fixture
def small_mount(tmp_path):
    """A 4 MiB tmpfs of our own, so the disk can be filled and made read-only."""
    mount = tmp_path / "mnt"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)], check=True)
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_full_data_directory_is_a_clear_503_and_recovers(small_mount):
    server = start_server(small_mount / "data")
    try:
        status, _ = server.json("POST", "/api/v4/member_roles", {"name": "before", "base_access_level": 10},
                                token=server.token)
        assert status == 201
        filler = small_mount / "filler"
        with open(filler, "wb") as handle:
            try:
                while True:
                    handle.write(b"\0" * 65536)
                    handle.flush()
            except OSError:
                pass
        answers = [server.json("POST", "/api/v4/member_roles",
                               {"name": f"full-{i}", "description": "x" * 200, "base_access_level": 10},
                               token=server.token) for i in range(40)]
        refused = [body for status, body in answers if status != 201]
        assert refused, "every write succeeded on a full disk"
        assert all(status in (201, 503) for status, _ in answers), answers
        assert all("full" in body["message"] for body in refused), refused
        assert "before" in role_names(server)
        filler.unlink()
        status, _ = server.json("POST", "/api/v4/member_roles", {"name": "after", "base_access_level": 10},
                                token=server.token)
        assert status == 201
    finally:
        code, stderr = stop_server(server)
    assert "Traceback" not in stderr


def test_a_read_only_data_directory_is_refused_with_a_clear_message(small_mount, tmp_path):
    data = small_mount / "data"
    stop_server(start_server(data))
    subprocess.run(["mount", "-o", "remount,ro", str(small_mount)], check=True)
    with pytest.raises(RuntimeError) as raised:
        start_server(data)
    assert "read-only file system" in str(raised.value)
    result = cli(data, "user", "add", "late", check=False)
    assert result.returncode != 0 and "read-only file system" in result.stderr


def test_a_kill_during_changelog_commits_leaves_the_branch_whole(tmp_path):
    """SIGKILL while clients POST changelog sections: the branch is always at a commit that
    git can read, the history stays linear, `git fsck` finds no corruption, and every section
    a client saw committed is in the file at the tip."""
    fixtures = tmp_path / "fixtures"
    build_fixture("changelog.sh", fixtures)
    git_dir = fixtures / "log.git"
    data = tmp_path / "data"
    original = git_out(git_dir, "rev-parse", "main")
    cli(data, "project", "add", "log", "--repo", git_dir, "--visibility", "public")
    acknowledged = []
    counter = iter(range(10_000))

    def post_versions(server, stop):
        while not stop.is_set():
            version = f"9.{next(counter)}.0"
            try:
                status, _ = server.json("POST", "/api/v4/projects/log/repository/changelog",
                                        {"version": version, "from": "v2.0.0", "date": "2024-01-02"},
                                        token=server.token)
            except OSError:
                return
            if status == 200:
                acknowledged.append(version)

    rng = random.Random(11)
    for _ in range(4):
        kill_during_writes(data, rng.uniform(0.4, 1.0), lambda server, _, stop: post_versions(server, stop))
        tip = git_out(git_dir, "rev-parse", "--verify", "main^{commit}")
        assert len(tip) == 40
    assert acknowledged, "no changelog commit got through"
    with maintenance_held(git_dir):
        fsck = subprocess.run(["git", "-C", str(git_dir), "fsck", "--strict", "--no-dangling"],
                              capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr
    git_out(git_dir, "merge-base", "--is-ancestor", original, "main")  # raises when it is not
    assert git_out(git_dir, "rev-list", "--min-parents=2", f"{original}..main") == "", "history is not linear"
    # A commit can land without its client hearing back (the kill): never fewer than acknowledged.
    assert int(git_out(git_dir, "rev-list", "--count", f"{original}..main")) >= len(acknowledged)
    changelog = git_out(git_dir, "show", "main:CHANGELOG.md")
    for version in acknowledged:
        assert f"## {version} (" in changelog, version
