#!/usr/bin/env python3
"""Git over HTTP through the Go host against git's own server (part of `make bench`).

Starts the Go host (`target/release/forgecore-http`, which `make bench-go` builds, or
FORGECORE_GO_HOST) on 127.0.0.1 with a temporary data directory, and `git daemon` (git's own
server, `--export-all --enable=receive-pack`) on the same machine over the same repositories,
then prints, per operation: the median wall time of each side over a few runs, their ratio, and
the Go host's resident size before and at its peak (VmHWM). Operations: a full `git clone
--bare` of each repository (the arguments, else .bench/repo-300k.git and git's own history
when FC_BENCH_GIT_REPO names a clone of it), and a push of a new branch carrying 100 MiB of
incompressible files (FC_BENCH_PUSH_MIB) into an empty repository. The goals: no slower than
git's own server, and the host's memory flat (its peak within 64 MiB of idle).

Exit status non-zero only when a server cannot start or an operation fails.
"""

import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RUNS = int(os.environ.get("FC_BENCH_GIT_RUNS", "3"))
PUSH_MIB = int(os.environ.get("FC_BENCH_PUSH_MIB", "100"))
GOAL_GROWTH_MIB = 64


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def git(*args, cwd=None, check=True):
    env = dict(os.environ, GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null", GIT_TERMINAL_PROMPT="0")
    result = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    if check and result.returncode != 0:
        sys.exit(f"git {' '.join(args)} failed: {result.stderr}")
    return result


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_go_host(go_host, data_dir):
    # No maintenance: the host would repack the repositories it serves (the benchmark's own,
    # and the clone FC_BENCH_GIT_REPO names) and write their commit-graphs, changing what the
    # other benchmarks measure as built or as cloned.
    config = data_dir.parent / "config.json"
    config.write_text('{"maintenance": {"enabled": false}}')
    process = subprocess.Popen(
        [str(go_host), "-listen", "127.0.0.1:0", "-data-dir", str(data_dir), "-config", str(config),
         "-print-admin-token", "-read-timeout", "30m", "-write-timeout", "5m"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    token = url = None
    for line in process.stdout:
        if line.startswith("admin token: "):
            token = line.split(": ", 1)[1].strip()
        if line.startswith("listening on "):
            url = line.split("listening on ", 1)[1].strip()
            break
    if url is None:
        process.kill()
        sys.exit("the Go host did not start")
    return process, url, token


def admin(data_dir, *args):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "bindings" / "python"))
    result = subprocess.run([sys.executable, "-m", "forgecore", "admin", "--data-dir", str(data_dir), *map(str, args)],
                            capture_output=True, text=True, env=env)
    if result.returncode != 0:
        sys.exit(f"admin {args} failed: {result.stderr}")


def median_seconds(run):
    times = []
    for _ in range(RUNS):
        started = time.monotonic()
        run()
        times.append(time.monotonic() - started)
    return statistics.median(times)


def main():
    go_host = Path(os.environ.get("FORGECORE_GO_HOST", ROOT / "target" / "release" / "forgecore-http"))
    if not go_host.exists():
        sys.exit(f"{go_host} is missing: make bench-go builds it")
    repos = [Path(a) for a in sys.argv[1:]] or [ROOT / ".bench" / "repo-300k.git"]
    if os.environ.get("FC_BENCH_GIT_REPO"):
        repos.append(Path(os.environ["FC_BENCH_GIT_REPO"]))
    repos = [r for r in repos if r.exists()]
    if not repos:
        sys.exit("no repository to clone: run `cargo run --release --example bench` first (it builds .bench/)")
    work = Path(tempfile.mkdtemp(prefix="fc-bench-git-"))
    data_dir, served = work / "data", work / "served"
    served.mkdir()
    daemon = None
    host = None
    try:
        host, url, token = start_go_host(go_host, data_dir)
        admin(data_dir, "group", "add", "bench", "--visibility", "public")
        names = []
        for i, repo in enumerate(repos):
            name = f"r{i}"
            os.symlink(repo.resolve(), served / f"{name}.git")
            admin(data_dir, "project", "add", f"bench/{name}", "--repo", repo.resolve(), "--visibility", "public")
            names.append((name, repo))
        port = free_port()
        daemon = subprocess.Popen(
            ["git", "daemon", "--export-all", "--reuseaddr", "--enable=receive-pack", f"--base-path={served}",
             "--listen=127.0.0.1", f"--port={port}", str(served)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)
        pid = host.pid
        print(f"# git over HTTP: Go host ({go_host}) vs git daemon; {git('--version').stdout.strip()}; "
              f"nproc {os.cpu_count()}; {RUNS} runs each, median")
        print("operation | forgecore (Go host) s | git daemon s | ratio fc/git | host RSS idle MiB | host peak MiB | notes")
        for name, repo in names:
            idle = status_kib(pid, "VmRSS")

            def clone(source):
                target = work / "clone.git"
                shutil.rmtree(target, ignore_errors=True)
                git("clone", "-q", "--bare", source, str(target))
                shutil.rmtree(target, ignore_errors=True)

            fc = median_seconds(lambda: clone(f"{url}/bench/{name}.git"))
            ref = median_seconds(lambda: clone(f"git://127.0.0.1:{port}/{name}.git"))
            peak = status_kib(pid, "VmHWM")
            notes = "PASS" if fc <= ref * 1.05 and (peak - idle) >> 10 < GOAL_GROWTH_MIB else "MISS"
            print(f"full clone {repo.name} | {fc:.2f} | {ref:.2f} | {fc / ref:.2f} | {idle >> 10} | {peak >> 10} | {notes}")
        # A push of PUSH_MIB MiB of incompressible files on a new branch.
        source = work / "push-source"
        git("init", "-q", "-b", "main", str(source))
        for i in range(max(1, PUSH_MIB // 4)):
            (source / f"noise{i}.bin").write_bytes(os.urandom(4 << 20))
        git("add", ".", cwd=source)
        git("-c", "user.name=b", "-c", "user.email=b@example.com", "commit", "-q", "-m", "noise", cwd=source)
        authenticated = url.replace("http://", f"http://oauth2:{token}@", 1)
        # Every push goes into an empty repository of its own, so that each carries everything.
        fc_times, ref_times = [], []
        idle = status_kib(pid, "VmRSS")
        for run in range(RUNS):
            for side in ("fc", "daemon"):
                git("init", "-q", "--bare", "-b", "main", str(served / f"push-{side}-{run}.git"))
            admin(data_dir, "project", "add", f"bench/push-fc-{run}", "--repo", served / f"push-fc-{run}.git",
                  "--visibility", "public")
            for remote, times in ((f"{authenticated}/bench/push-fc-{run}.git", fc_times),
                                  (f"git://127.0.0.1:{port}/push-daemon-{run}.git", ref_times)):
                started = time.monotonic()
                git("push", "-q", remote, "main:refs/heads/noise", cwd=source)
                times.append(time.monotonic() - started)
        fc, ref = statistics.median(fc_times), statistics.median(ref_times)
        peak = status_kib(pid, "VmHWM")
        notes = "PASS" if fc <= ref * 1.05 and (peak - idle) >> 10 < GOAL_GROWTH_MIB else "MISS"
        print(f"push {PUSH_MIB} MiB | {fc:.2f} | {ref:.2f} | {fc / ref:.2f} | {idle >> 10} | {peak >> 10} | {notes}")
    finally:
        for process in (host, daemon):
            if process is not None:
                process.terminate()
                try:
                    process.wait(15)
                except subprocess.TimeoutExpired:
                    process.kill()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
