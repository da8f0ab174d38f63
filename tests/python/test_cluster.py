"""Many hosts on one data set: three real hosts (two Go, one Python), each with its own data
directory, all on one PostgreSQL database and one repository storage, with clients spread
across them. What one host writes the others answer at once; the invariants the store keeps
(ten roles a group, a rate limit of N) hold across hosts; changelog commits from every host to
one branch lose nothing; a host killed under writes loses no acknowledged write while the
others keep answering; and a PostgreSQL server that stops is a quick 503 on every host, never a
500 or a hang, with service back by itself when the server is.

The server comes from the environment: `FORGECORE_TEST_POSTGRES` (a libpq URL of a role that
may create databases) and `FORGECORE_TEST_PG_CTL` (the command that stops and starts it, given
`stop` or `start`), both set by `make test-cluster`, which runs a throw-away server under
`pg_virtualenv`. Missing or unreachable, they fail the module: a skip would pass unnoticed.
"""

import http.client
import json
import os
import shlex
import subprocess
import sys
import threading
import time
from urllib.parse import urlsplit

import gitlab
import pytest

from conftest import REPO, build_fixture, cli, git_out, maintenance_held, start_host, stop_server

pytestmark = pytest.mark.cluster

GO_HOST = REPO / "target" / "debug" / "forgecore-http"
# The store's bound on every wait; a request during an outage must end within it plus MARGIN.
TIMEOUT_MILLIS = 2000
MARGIN = 3.0
ARCHIVE_LIMIT = 5
ROLE_CAP_MESSAGE = ("Namespace maximum number of Member Roles are already in use by the group hierarchy. "
                    "Please delete an existing Member Role.")
KINDS = ("go", "python", "go")


def psql(url, sql):
    return subprocess.run(["psql", url, "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-c", sql],
                          capture_output=True, text=True, timeout=30,
                          env={**os.environ, "PGCONNECT_TIMEOUT": "5"})


def new_database(server):
    """A fresh database on the test server for this module; its URL."""
    name = f"fc_cluster_{os.getpid()}_{time.monotonic_ns()}"
    created = psql(server, f"CREATE DATABASE {name}")
    if created.returncode != 0:
        shown = urlsplit(server)._replace(netloc=urlsplit(server).netloc.rpartition("@")[2]).geturl()
        pytest.fail(f"FORGECORE_TEST_POSTGRES ({shown}) cannot be reached or refuses CREATE DATABASE: "
                    f"{created.stderr.strip()}", pytrace=False)
    return urlsplit(server)._replace(path=f"/{name}").geturl()


class Cluster:
    """Three hosts on one store: their Servers (conftest), how to start one again, the
    configuration file and data directories, the admin command line with the same store."""

    def __init__(self, tmp, config):
        self.tmp = tmp
        self.config_file = tmp / "config.json"
        self.config_file.write_text(json.dumps(config))
        self.config = config
        self.hosts = [None] * len(KINDS)

    def command(self, index):
        data_dir = self.tmp / f"data-{index}"
        if KINDS[index] == "go":
            return [GO_HOST, "-listen", "127.0.0.1:0", "-data-dir", data_dir, "-config", self.config_file,
                    "-print-admin-token"], data_dir
        return [sys.executable, "-m", "forgecore", "serve", "--listen", "127.0.0.1:0", "--data-dir", data_dir,
                "--config", self.config_file, "--print-admin-token"], data_dir

    def start(self, index):
        command, data_dir = self.command(index)
        self.hosts[index] = start_host(command, data_dir)
        return self.hosts[index]

    def admin(self, *args):
        """`python -m forgecore admin --config FILE ARGS...` (its own data directory, the same
        store and storages); answers the JSON it printed."""
        return cli(self.tmp / "data-admin", "--config", self.config_file, *args).json


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    server = os.environ.get("FORGECORE_TEST_POSTGRES", "")
    if not server:
        pytest.fail("FORGECORE_TEST_POSTGRES is not set: `make test-cluster` runs these tests with a "
                    "PostgreSQL server of their own", pytrace=False)
    assert GO_HOST.exists(), f"{GO_HOST} is missing: make build"
    database = new_database(server)
    tmp = tmp_path_factory.mktemp("cluster")
    storage = tmp / "storage"
    build_fixture("repo.sh", storage / "fx")
    build_fixture("changelog.sh", storage / "log")
    config = {
        "store": {"postgres": database, "pool_size": 8, "timeout_millis": TIMEOUT_MILLIS},
        "storages": {"default": str(storage)},
        "rate_limits": {"archive": {"limit": ARCHIVE_LIMIT, "period_seconds": 60}},
    }
    cluster = Cluster(tmp, config)
    failures = []
    try:
        # The first host migrates the new database and creates the administrator.
        cluster.start(0)
        cluster.admin("group", "add", "fx", "--visibility", "public")
        cluster.admin("project", "add", "fx/work", "--storage", "default", "--repo", "fx/work",
                      "--visibility", "public")
        cluster.admin("project", "add", "fx/log", "--storage", "default", "--repo", "log/log.git",
                      "--visibility", "public")
        cluster.admin("user", "add", "alice")
        cluster.alice = cluster.admin("token", "add", "alice")["token"]
        cluster.log_git = storage / "log" / "log.git"
        # The others start together.
        starters = [threading.Thread(target=cluster.start, args=(i,)) for i in range(1, len(KINDS))]
        for starter in starters:
            starter.start()
        for starter in starters:
            starter.join(60)
        assert all(host and host.token for host in cluster.hosts), "a host did not start, or printed no token"
        yield cluster
    finally:
        for index, host in enumerate(cluster.hosts):
            if host is not None:
                code, stderr = stop_server(host)
                if code != 0 or "Traceback" in stderr or "panic" in stderr:
                    failures.append(f"host {index} ({KINDS[index]}) exited with {code}: {stderr}")
    assert not failures, failures


def roles(host, target="/api/v4/member_roles", token=None):
    status, body = host.json("GET", target, token=token or host.token)
    assert status == 200, body
    return {role["name"]: role for role in body}


def test_a_role_created_on_one_host_is_listed_by_the_others_at_once(cluster):
    hosts = cluster.hosts
    for creator, host in enumerate(hosts):
        # python-gitlab against the creating host, with that host's administrator token.
        gl = gitlab.Gitlab(host.url, private_token=host.token)
        role = gl.member_roles.create({"name": f"seen-{creator}", "base_access_level": 20, "read_code": True})
        for other, reader in enumerate(hosts):
            if other == creator:
                continue
            listed = roles(reader)
            assert f"seen-{creator}" in listed, f"host {other} does not list the role host {creator} created"
            assert listed[f"seen-{creator}"]["id"] == role.id
        # A token one host issued works on every other: tokens live in the store.
        listed = gitlab.Gitlab(hosts[(creator + 1) % 3].url, private_token=host.token).member_roles.list(get_all=True)
        assert role.id in [r.id for r in listed]
    # A group's roles too, raw.
    cluster.admin("group", "add", "seen")
    status, created = hosts[2].json("POST", "/api/v4/groups/seen/member_roles",
                                    {"name": "group-seen", "base_access_level": 10}, token=hosts[2].token)
    assert status == 201, created
    for reader in hosts[:2]:
        assert [r["id"] for r in roles(reader, "/api/v4/groups/seen/member_roles").values()] == [created["id"]]


def test_a_token_revoked_by_another_process_is_refused_by_every_host_within_a_second(cluster):
    """Each host keeps what a token authenticated in memory; a revoke anywhere (here the admin
    command line, a process of its own) reaches every host's listener, which forgets it: the
    token is refused everywhere as soon as the notification arrives, never later than a second
    after the revoke (README, "Tokens across hosts")."""
    cluster.admin("user", "add", "revokee")
    token = cluster.admin("token", "add", "revokee")["token"]
    for host in cluster.hosts:  # now every host holds the token in memory
        for _ in range(3):
            assert host.request("GET", "/api/v4/version", token=token)[0] == 200
    cluster.admin("token", "revoke", token)
    revoked = time.monotonic()
    took = {}
    while len(took) < len(cluster.hosts) and time.monotonic() < revoked + 1.5:
        for index, host in enumerate(cluster.hosts):
            if index not in took and host.request("GET", "/api/v4/version", token=token)[0] == 401:
                took[index] = time.monotonic() - revoked
    print(f"revoked token refused after {took} s")
    assert len(took) == len(cluster.hosts), f"hosts still taking a revoked token 1.5 s later: {took}"
    for host in cluster.hosts:
        assert host.request("GET", "/api/v4/version", token=host.token)[0] == 200, "live tokens work on"


def test_twenty_concurrent_creates_for_one_group_across_hosts_leave_ten_roles(cluster):
    cluster.admin("group", "add", "capped")
    hosts = cluster.hosts
    start = threading.Barrier(20)
    answers = [None] * 20

    def create(i):
        host = hosts[i % len(hosts)]
        start.wait(30)
        answers[i] = host.json("POST", "/api/v4/groups/capped/member_roles",
                               {"name": f"capped-{i}", "base_access_level": 10}, token=host.token)

    threads = [threading.Thread(target=create, args=(i,)) for i in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    created = {f"capped-{i}" for i, (status, _) in enumerate(answers) if status == 201}
    refused = [body for status, body in answers if status != 201]
    assert len(created) == 10, answers
    assert len(refused) == 10, answers
    assert all(status == 400 for status, _ in answers if status != 201), answers
    assert all(body == {"message": ROLE_CAP_MESSAGE} for body in refused), refused
    for host in hosts:
        assert set(roles(host, "/api/v4/groups/capped/member_roles")) == created


def test_a_rate_limit_of_n_admits_exactly_n_across_all_hosts(cluster):
    hosts = cluster.hosts
    target = "/api/v4/projects/fx%2Fwork/repository/archive.tar.gz"
    tries = 3 * len(hosts) * ARCHIVE_LIMIT // 2
    start = threading.Barrier(tries)
    answers = [None] * tries

    def download(i):
        host = hosts[i % len(hosts)]
        start.wait(30)
        answers[i] = host.request("GET", target, token=cluster.alice)

    threads = [threading.Thread(target=download, args=(i,)) for i in range(tries)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    statuses = sorted(status for status, _, _ in answers)
    assert statuses == [200] * ARCHIVE_LIMIT + [429] * (tries - ARCHIVE_LIMIT), statuses
    for status, headers, body in answers:
        if status == 200:
            assert body[:2] == b"\x1f\x8b", "not a gzip stream"
        else:
            assert 1 <= int(headers["retry-after"]) <= 60, headers
            assert "error" in json.loads(body)["message"], body
    # One more on any host is still refused; the limit is per user: another user is admitted.
    for host in hosts:
        assert host.request("GET", target, token=cluster.alice)[0] == 429
    assert hosts[1].request("GET", target, token=hosts[1].token)[0] == 200


def test_changelog_commits_from_three_hosts_to_one_branch_lose_no_section(cluster):
    git_dir = cluster.log_git
    original = git_out(git_dir, "rev-parse", "main")
    answers = []

    def post_versions(index, host):
        for n in range(4):
            version = f"{10 + index}.{n}.0"
            status, body = host.json("POST", "/api/v4/projects/fx%2Flog/repository/changelog",
                                     {"version": version, "from": "v2.0.0", "date": "2024-01-02"},
                                     token=host.token)
            answers.append((version, status, body))

    threads = [threading.Thread(target=post_versions, args=(i, host)) for i, host in enumerate(cluster.hosts)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    refused = [(version, status, body) for version, status, body in answers if status != 200]
    assert len(answers) == 12 and not refused, (len(answers), refused)
    changelog = git_out(git_dir, "show", "main:CHANGELOG.md")
    for version, _, _ in answers:
        assert f"## {version} (" in changelog, version
    with maintenance_held(git_dir):
        fsck = subprocess.run(["git", "-C", str(git_dir), "fsck", "--strict", "--no-dangling"],
                              capture_output=True, text=True)
    assert fsck.returncode == 0, fsck.stdout + fsck.stderr
    assert git_out(git_dir, "rev-list", "--merges", f"{original}..main") == "", "a merge commit"
    # Linear: newest first, each commit's only parent is the next one, the last's is the old tip.
    chain = [line.split() for line in git_out(git_dir, "rev-list", "--parents", f"{original}..main").splitlines()]
    assert len(chain) == len(answers), "a commit per acknowledged version, no more"
    for (commit, *parents), following in zip(chain, [c[0] for c in chain[1:]] + [original]):
        assert parents == [following], f"{commit} is not a child of the previous tip {following}"
    assert {body["commit"]["id"] for _, _, body in answers} == {c[0] for c in chain}


def run_clients(hosts, request, per_host, stop):
    """Threads sending `request(host_index, host, n)` back to back until `stop`; answers the
    threads and the shared list of records (host index, started, ended, status or the
    transport error, headers, body)."""
    records = []

    def client(index, host, number):
        n = 0
        while not stop.is_set():
            n += 1
            started = time.monotonic()
            try:
                status, headers, body = request(index, host, f"{number}-{n}")
            except (OSError, http.client.HTTPException) as error:
                records.append((index, started, time.monotonic(), repr(error), {}, b""))
                return
            records.append((index, started, time.monotonic(), status, headers, body))

    threads = [threading.Thread(target=client, args=(i, host, f"{i}.{k}"))
               for i, host in enumerate(hosts) for k in range(per_host)]
    for thread in threads:
        thread.start()
    return threads, records


def create_role(prefix):
    def request(index, host, number):
        body = json.dumps({"name": f"{prefix}-{number}", "base_access_level": 10}).encode()
        return host.request("POST", "/api/v4/member_roles", {"Content-Type": "application/json"}, body, host.token)
    return request


def test_a_host_killed_under_writes_loses_nothing_and_the_others_keep_answering(cluster):
    hosts = list(cluster.hosts)
    victim = 2
    stop = threading.Event()
    threads, records = run_clients(hosts, create_role("kill"), 2, stop)
    time.sleep(1.5)
    killed_at = time.monotonic()
    hosts[victim].process.kill()
    hosts[victim].process.wait(10)
    time.sleep(1.5)
    stop.set()
    for thread in threads:
        thread.join(30)
    assert not any(thread.is_alive() for thread in threads)
    survivors = [r for r in records if r[0] != victim]
    assert all(r[3] == 201 for r in survivors), [r[3:] for r in survivors if r[3] != 201][:5]
    for index in range(len(hosts)):
        if index != victim:
            after = [r for r in survivors if r[0] == index and r[1] > killed_at]
            assert len(after) >= 5, f"host {index} hardly answered after the kill: {len(after)} requests"
    assert max(r[2] - r[1] for r in survivors) < MARGIN, "a surviving host stalled"
    acknowledged = {json.loads(r[5])["name"] for r in records if r[3] == 201}
    print(f"{len(acknowledged)} roles acknowledged, {len(survivors)} requests to the survivors, "
          f"slowest {max(r[2] - r[1] for r in survivors):.2f} s")
    assert len([r for r in records if r[0] == victim and r[3] == 201]) >= 5, "the victim was not writing"
    for index, host in enumerate(hosts):
        if index != victim:
            missing = acknowledged - set(roles(host))
            assert not missing, f"host {index} lost acknowledged roles: {sorted(missing)[:5]}"
    # The victim's process, started again on its data directory, answers the same.
    stop_server(hosts[victim])  # reaps the killed process and closes its pipes
    restarted = cluster.start(victim)
    assert acknowledged <= set(roles(restarted))


def test_postgres_stopped_under_load_is_a_quick_503_and_service_resumes_by_itself(cluster):
    pg_ctl = os.environ.get("FORGECORE_TEST_PG_CTL", "")
    if not pg_ctl:
        pytest.fail("FORGECORE_TEST_PG_CTL is not set (e.g. `pg_ctlcluster 15 regress`): run make test-cluster",
                    pytrace=False)
    hosts = list(cluster.hosts)
    pids = [host.process.pid for host in hosts]

    def mixed(index, host, number):
        if number.endswith(("0", "5")):
            return create_role("outage")(index, host, number)
        return host.request("GET", "/api/v4/projects/fx%2Fwork", token=host.token)

    def ctl(action):
        result = subprocess.run([*shlex.split(pg_ctl), action], capture_output=True, text=True, timeout=60)
        assert result.returncode == 0, f"{pg_ctl} {action}: {result.stdout}{result.stderr}"

    stop = threading.Event()
    threads, records = run_clients(hosts, mixed, 2, stop)
    try:
        time.sleep(1.0)
        ctl("stop")
        down = time.monotonic()
        time.sleep(2 * TIMEOUT_MILLIS / 1000 + 1)
        back = time.monotonic()
        ctl("start")
        started = time.monotonic()
        recovered = {}
        while len(recovered) < len(hosts) and time.monotonic() < started + 15:
            for index, host in enumerate(hosts):
                if index not in recovered and host.request("GET", "/api/v4/projects/fx%2Fwork", token=host.token)[0] == 200:
                    recovered[index] = time.monotonic() - started
            time.sleep(0.1)
        settled = time.monotonic()
        time.sleep(1.0)
    finally:
        stop.set()
        for thread in threads:
            thread.join(30)
        subprocess.run([*shlex.split(pg_ctl), "start"], capture_output=True)  # whatever happened above
    outage = [r for r in records if r[1] > down and r[2] < back]
    print(f"{len(records)} requests; {len(outage)} during the outage, slowest "
          f"{max(r[2] - r[1] for r in outage):.2f} s; resumed after {recovered} s")
    assert len(recovered) == len(hosts), f"hosts still failing 15 s after the server is back: {recovered}"
    assert max(recovered.values()) < 5, f"slow to resume (seconds after start): {recovered}"
    transport = [r for r in records if not isinstance(r[3], int)]
    assert not transport, transport[:5]
    assert not [r for r in records if r[3] not in (200, 201, 503)], [r[3:] for r in records if r[3] not in (200, 201, 503)][:5]
    for index, began, ended, status, headers, body in records:
        assert ended - began <= TIMEOUT_MILLIS / 1000 + MARGIN, f"host {index}: {ended - began:.1f} s for {status}"
        if status == 503:
            assert headers["content-type"].startswith("application/json"), headers
            assert json.loads(body)["message"].startswith("503 Service Unavailable - "), body
    for index in range(len(hosts)):
        during = [r[3] for r in records if r[0] == index and r[1] > down and r[2] < back]
        assert during and set(during) == {503}, f"host {index} during the outage: {during}"
        after = [r[3] for r in records if r[0] == index and r[1] > settled]
        assert after and set(after) <= {200, 201}, f"host {index} after recovery: {after}"
    # No host was restarted: the same processes answer.
    assert [host.process.pid for host in hosts] == pids and all(h.process.poll() is None for h in hosts)
    acknowledged = {json.loads(r[5])["name"] for r in records if r[3] == 201}
    assert acknowledged <= set(roles(hosts[0]))
