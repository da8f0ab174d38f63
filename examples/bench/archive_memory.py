#!/usr/bin/env python3
"""Peak memory of the Python and Go hosts while they stream archives (part of `make bench`).

Starts each real host (`python -m forgecore serve` with the library FORGECORE_LIB points at,
and `target/release/forgecore-http` when `make bench-go` has built it, or FORGECORE_GO_HOST)
on 127.0.0.1 with a temporary data directory in which the benchmark repositories are public
projects, and downloads one archive through a socket, reading 64 KiB at a time and dropping the
bytes; a new host for every host kind, repository and format, so that no download sees memory
or mapped pages left by another. During the download a thread samples the host's anonymous
memory every 5 ms. Prints, per download: size, time, the host's peak RSS before the request
(idle) and after it (VmHWM: heap, stacks, the libraries, and the pages of mapped pack files
while mapped), its peak anonymous memory (RssAnon), and the peak RSS of `git archive` doing
the same work (for tar.bz2, git's part of `git archive --format=tar | bzip2`). The goal is a
peak RSS under 64 MiB.

Repositories: the arguments, else .bench/repo-100k.git, .bench/repo-300k.git and
.bench/bigblob-256m.git of this checkout (those `cargo run --release --example bench` builds). Exit status non-zero only when
the host cannot start or a download fails.
"""

import http.client
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

FORMATS = ["tar", "tar.gz", "tar.bz2", "zip"]
GOAL_MIB = 64
ROOT = Path(__file__).resolve().parents[2]


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def host_commands(data_dir, config):
    """(name, command) of every host to measure, with the archive cache and maintenance off
    (`config`): every download builds its archive, and none is served from a file an earlier
    host left."""
    hosts = [("python", [sys.executable, "-m", "forgecore", "serve", "--listen", "127.0.0.1:0",
                         "--data-dir", str(data_dir), "--config", str(config)])]
    go_host = Path(os.environ.get("FORGECORE_GO_HOST", ROOT / "target" / "release" / "forgecore-http"))
    if go_host.exists():
        hosts.append(("go", [str(go_host), "-listen", "127.0.0.1:0", "-data-dir", str(data_dir),
                             "-config", str(config)]))
    return hosts


def start_host(command):
    process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, env=os.environ.copy())
    deadline = time.monotonic() + 60
    for line in process.stdout:
        found = re.search(r"listening on (http://\S+)", line)
        if found:
            threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()
            return process, found.group(1)
        if time.monotonic() > deadline:
            break
    process.kill()
    raise RuntimeError("the host did not start")


def git_peak_kib(repo, fmt):
    """Peak RSS of `git archive` doing the same work (its own process; KiB)."""
    script = ("import resource, subprocess, sys\n"
              "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, check=True)\n"
              "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    git_format = "tar" if fmt == "tar.bz2" else fmt
    out = subprocess.run([sys.executable, "-c", script, "git", "-C", str(repo), "archive", f"--format={git_format}",
                          "HEAD"], check=True, capture_output=True, text=True).stdout
    return int(out.strip())


def admin(data_dir, *args):
    subprocess.run([sys.executable, "-m", "forgecore", "admin", "--data-dir", str(data_dir), *map(str, args)],
                   check=True, capture_output=True, env=os.environ.copy())


def download(host, port, target, pid):
    """(status, bytes, seconds, peak RssAnon KiB) of one download read to its end."""
    peak = [status_kib(pid, "RssAnon")]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], status_kib(pid, "RssAnon"))
            time.sleep(0.005)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.monotonic()
    connection = http.client.HTTPConnection(host, port, timeout=600)
    try:
        connection.request("GET", target)
        response = connection.getresponse()
        total = 0
        while True:
            chunk = response.read(64 * 1024)
            if not chunk:
                break
            total += len(chunk)
        status = response.status
    finally:
        connection.close()
    elapsed = time.monotonic() - started
    done.set()
    sampler.join()
    return status, total, elapsed, peak[0]


def stop(process):
    process.terminate()
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def main():
    repos = [Path(p) for p in sys.argv[1:]] or [ROOT / ".bench" / name for name in
                                                 ("repo-100k.git", "repo-300k.git", "bigblob-256m.git")]
    repos = [r for r in repos if (r / "HEAD").exists()]
    if not repos:
        print("archive memory: no benchmark repository (run the Rust bench first)")
        return 0
    data_dir = Path(tempfile.mkdtemp(prefix="forgecore-archive-memory-"))
    try:
        admin(data_dir / "data", "group", "add", "mem", "--visibility", "public")
        for repo in repos:
            admin(data_dir / "data", "project", "add", f"mem/{repo.name.removesuffix('.git')}", "--repo", repo,
                  "--visibility", "public")
        # No archive cache, and no maintenance: the hosts would otherwise repack the benchmark's
        # repositories and write their commit-graphs, and the Rust bench's "as built" rows
        # would measure maintained repositories from then on.
        config = data_dir / "no-archive-cache.json"
        config.write_text('{"cache": {"archives": false}, "maintenance": {"enabled": false}}')
        hosts = host_commands(data_dir / "data", config)
        print(f"archive memory of the hosts ({', '.join(name for name, _ in hosts)}; library "
              f"{os.environ.get('FORGECORE_LIB', 'debug')}), a new host per download")
        print(f"{'host':<7} {'repository':<12} {'format':<8} {'size MiB':>9} {'seconds':>8} {'idle MiB':>9} "
              f"{'peak RSS MiB':>13} {'peak anon MiB':>14} {'git peak RSS MiB':>17}  goal < {GOAL_MIB} MiB")
        failed = False
        git_peaks = {}
        for host_name, command in hosts:
            for repo in repos:
                name = repo.name.removesuffix(".git")
                for fmt in FORMATS:
                    process, url = start_host(command)
                    try:
                        idle = status_kib(process.pid, "VmHWM")
                        host, port = url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)
                        target = f"/api/v4/projects/mem%2F{name}/repository/archive.{fmt}"
                        status, size, seconds, anon = download(host, int(port), target, process.pid)
                        hwm = status_kib(process.pid, "VmHWM")
                    finally:
                        stop(process)
                    if (repo, fmt) not in git_peaks:
                        git_peaks[repo, fmt] = git_peak_kib(repo, fmt)
                    failed |= status != 200
                    verdict = "PASS" if hwm < GOAL_MIB * 1024 else "MISS"
                    print(f"{host_name:<7} {name:<12} {fmt:<8} {size / 2**20:>9.1f} {seconds:>8.2f} "
                          f"{idle / 1024:>9.1f} {hwm / 1024:>13.1f} {anon / 1024:>14.1f} "
                          f"{git_peaks[repo, fmt] / 1024:>17.1f}  {verdict if status == 200 else f'status {status}'}",
                          flush=True)
        return 1 if failed else 0
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
