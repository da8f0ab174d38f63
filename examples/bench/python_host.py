#!/usr/bin/env python3
"""Throughput of the real Python host (`python -m forgecore serve`) and of the same WSGI app
under gunicorn, side by side: a step of `make bench`.

Starts the host as a subprocess with this interpreter and environment (the Makefile points
FORGECORE_LIB at the release library and PYTHONPATH at bindings/python) on 127.0.0.1, port 0,
and a temporary data directory; reads the URL and the admin token it prints; creates 10 member
roles (as the Rust bench does); then, for each endpoint and client-thread count, runs clients
that each keep one http.client connection and send requests back to back for a few seconds.
Prints requests per second and the median and 99th-percentile latency, then stops the server.
Then the same under gunicorn (`forgecore.wsgi:app_from_env()`, gthread workers, keep-alive;
the administrator and its token made first with `python -m forgecore admin`), which the venv
of the Makefile has, so the two rows compare the stdlib server with a production WSGI server.

Loopback only and bounded in time: every socket has a timeout and a watchdog kills the server
(which fails the remaining requests) if the whole run overstays. Slowness is reported, never an
error; the exit status is non-zero only when the server cannot be started or answers wrongly.

Options: --seconds (default 3, or FC_BENCH_PY_SECONDS), --threads (default 1,8),
--servers (default stdlib,gunicorn), --gunicorn-workers (default 2), --gunicorn-threads (default 8).
"""

import argparse
import http.client
import json
import os
import queue
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

STARTUP_TIMEOUT = 60.0
REQUEST_TIMEOUT = 10.0
WARMUP_SECONDS = 0.3
ROLES = 10
ROLE_LEVELS = [10, 15, 20, 30, 40, 50]


class Server:
    """`python -m forgecore serve` in a subprocess; its output lines are read by threads."""

    def __init__(self, data_dir):
        command = [sys.executable, "-m", "forgecore", "serve", "--listen", "127.0.0.1:0",
                   "--data-dir", data_dir, "--print-admin-token"]
        self.command = command
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True, env=os.environ.copy())
        self.lines = queue.Queue()
        self.output = []  # every line, for the error message when startup fails
        for stream, name in ((self.process.stdout, "stdout"), (self.process.stderr, "stderr")):
            threading.Thread(target=self._pump, args=(stream, name), daemon=True).start()
        self.url = self.token = None

    def _pump(self, stream, name):
        for line in stream:
            self.output.append(f"{name}: {line.rstrip()}")
            self.lines.put(line)
        self.lines.put(None)

    def wait_ready(self):
        """Reads lines until both the URL (`listening on URL`) and the token are known."""
        deadline = time.monotonic() + STARTUP_TIMEOUT
        closed = 0
        while self.url is None or self.token is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise RuntimeError(f"the server printed no URL and token within {STARTUP_TIMEOUT:.0f} s")
            try:
                line = self.lines.get(timeout=min(remaining, 0.5))
            except queue.Empty:
                if self.process.poll() is not None and closed == 2:
                    break
                continue
            if line is None:
                closed += 1
                if closed == 2:
                    break
                continue
            token = re.search(r"admin token:\s*(\S+)", line)
            if token:
                self.token = token.group(1)
            url = re.search(r"listening on\s+(https?://\S+)", line)
            if url:
                self.url = url.group(1).rstrip("/")
        if self.url is None or self.token is None:
            self.stop()
            raise RuntimeError("the server exited or printed no URL/token:\n  " + "\n  ".join(self.output[-20:]))
        match = re.match(r"https?://([^/:]+|\[[^\]]+\]):(\d+)$", self.url)
        if not match:
            raise RuntimeError(f"cannot parse the URL {self.url!r}")
        self.host, self.port = match.group(1).strip("[]"), int(match.group(2))

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()  # the host turns SIGTERM into a clean shutdown
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)


class GunicornServer(Server):
    """gunicorn serving `forgecore.wsgi:app_from_env()` on the data directory, gthread workers
    with keep-alive; the administrator and its token are made first with the admin command."""

    def __init__(self, data_dir, workers, threads):
        for args in (["user", "add", "bench", "--admin"], ["token", "add", "bench"]):
            done = subprocess.run([sys.executable, "-m", "forgecore", "admin", "--data-dir", data_dir, *args],
                                  capture_output=True, text=True, timeout=STARTUP_TIMEOUT)
            if done.returncode != 0:
                raise RuntimeError(f"admin {' '.join(args)}: {done.stderr.strip()}")
        self.token = json.loads(done.stdout)["token"]
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        self.host = "127.0.0.1"
        self.url = f"http://{self.host}:{self.port}"
        command = [sys.executable, "-m", "gunicorn", "--bind", f"{self.host}:{self.port}",
                   "--worker-class", "gthread", "--workers", str(workers), "--threads", str(threads),
                   "--keep-alive", "5", "forgecore.wsgi:app_from_env()"]
        self.command = command
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True,
                                        env=dict(os.environ, FORGECORE_DATA_DIR=data_dir))
        self.lines = queue.Queue()
        self.output = []
        for stream, name in ((self.process.stdout, "stdout"), (self.process.stderr, "stderr")):
            threading.Thread(target=self._pump, args=(stream, name), daemon=True).start()

    def wait_ready(self):
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                if one_request(self, "GET", "/api/v4/version")[0] == 200:
                    return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("gunicorn did not answer:\n  " + "\n  ".join(self.output[-20:]))


def one_request(server, method, path, headers=None, body=None):
    connection = http.client.HTTPConnection(server.host, server.port, timeout=REQUEST_TIMEOUT)
    try:
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def client(server, path, headers, start, stop_at, result):
    """One client thread: one connection, requests back to back until `stop_at`; latencies of
    requests started after `start` (the warm-up before it is not counted)."""
    connection = http.client.HTTPConnection(server.host, server.port, timeout=REQUEST_TIMEOUT)
    latencies, errors, connects = [], 0, 0
    try:
        while True:
            began = time.perf_counter()
            if began >= stop_at:
                break
            if connection.sock is None:
                connects += began >= start
            try:
                connection.request("GET", path, headers=headers)
                response = connection.getresponse()
                response.read()
                ok = response.status == 200
            except (OSError, http.client.HTTPException):
                ok = False
                connection.close()
            if began >= start:
                if ok:
                    latencies.append(time.perf_counter() - began)
                else:
                    errors += 1
    finally:
        connection.close()
    result.append((latencies, errors, connects))


def measure(server, path, headers, threads, seconds):
    results = []
    start = time.perf_counter() + WARMUP_SECONDS
    stop_at = start + seconds
    workers = [threading.Thread(target=client, args=(server, path, headers, start, stop_at, results))
               for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=seconds + WARMUP_SECONDS + REQUEST_TIMEOUT + 5)
    latencies = sorted(l for r in results for l in r[0])
    errors = sum(r[1] for r in results)
    connects = sum(r[2] for r in results)

    def quantile(q):
        if not latencies:
            return float("nan")
        return latencies[min(len(latencies) - 1, max(0, int(len(latencies) * q + 0.999999) - 1))]

    return {"requests": len(latencies), "errors": errors, "connects": connects,
            "rps": len(latencies) / seconds, "median": quantile(0.5), "p99": quantile(0.99)}


def ms(seconds):
    return "-" if seconds != seconds else f"{seconds * 1e3:.2f} ms"


def table(rows):
    header = ["endpoint", "threads", "requests", "rps", "median", "p99", "errors", "new conns"]
    lines = [header] + [[r["endpoint"], str(r["threads"]), str(r["requests"]), f"{r['rps']:.0f}",
                         ms(r["median"]), ms(r["p99"]), str(r["errors"]), str(r["connects"])] for r in rows]
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    out = []
    for n, line in enumerate(lines):
        out.append(" | ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(line, widths))))
        if n == 0:
            out.append("-|-".join("-" * w for w in widths))
    return "\n".join(out)


def run_server(label, server, args, thread_counts):
    """Startup, the roles, then every row of one server; answers its rows."""
    # Worst case: startup, every measurement with its warm-up and timeouts, and shutdown.
    budget = STARTUP_TIMEOUT + len(thread_counts) * 2 * (args.seconds + WARMUP_SECONDS + REQUEST_TIMEOUT + 5) + 30
    watchdog = threading.Timer(budget, server.process.kill)
    watchdog.daemon = True
    watchdog.start()
    try:
        server.wait_ready()
        auth = {"PRIVATE-TOKEN": server.token}
        for i in range(ROLES):
            role = {"name": f"bench role {i:02d}", "description": f"custom role {i} created by the benchmark",
                    "base_access_level": ROLE_LEVELS[i % len(ROLE_LEVELS)],
                    "read_code": i % 2 == 0, "read_vulnerability": i % 3 == 0}
            status, body = one_request(server, "POST", "/api/v4/member_roles", dict(auth, **{"Content-Type": "application/json"}),
                                       json.dumps(role).encode())
            if status != 201:
                raise RuntimeError(f"POST /api/v4/member_roles: {status} {body[:200]!r}")
        status, body = one_request(server, "GET", "/api/v4/member_roles", auth)
        if status != 200 or len(json.loads(body)) != ROLES:
            raise RuntimeError(f"GET /api/v4/member_roles: {status} {body[:200]!r}")
        print(f"{label}: {' '.join(server.command[1:])}")
        print(f"  server {server.url}; {ROLES} roles, {len(body)} B body; {args.seconds:g} s per row after a "
              f"{WARMUP_SECONDS:g} s warm-up", flush=True)
        rows = []
        for path, headers in (("/api/v4/version", {}), ("/api/v4/member_roles", auth)):
            for threads in thread_counts:
                row = measure(server, path, headers, threads, args.seconds)
                row.update(endpoint=f"GET {path}", threads=threads, server=label)
                rows.append(row)
                print(f"  {label:<8} {row['endpoint']:<24} x{threads}: {row['rps']:.0f} rps", file=sys.stderr)
        sys.stderr.flush()
        return rows
    finally:
        server.stop()
        watchdog.cancel()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=float(os.environ.get("FC_BENCH_PY_SECONDS", "3")))
    parser.add_argument("--threads", default="1,8", help="client thread counts, comma-separated")
    parser.add_argument("--servers", default="stdlib,gunicorn", help="stdlib and/or gunicorn, comma-separated")
    parser.add_argument("--gunicorn-workers", type=int, default=2)
    parser.add_argument("--gunicorn-threads", type=int, default=8)
    args = parser.parse_args()
    thread_counts = [int(t) for t in args.threads.split(",") if t.strip()]
    servers = [name.strip() for name in args.servers.split(",") if name.strip()]

    print()
    print("Python host: python -m forgecore serve (stdlib), and the WSGI app under gunicorn; http.client "
          "clients, one persistent connection per thread, loopback")
    print(f"interpreter {sys.executable} (Python {sys.version.split()[0]}); "
          f"FORGECORE_LIB={os.environ.get('FORGECORE_LIB', '(unset: the package default)')}; nproc {os.cpu_count()}")

    data_dir = tempfile.mkdtemp(prefix="forgecore-bench-py-")
    try:
        rows = []
        for name in servers:
            data = os.path.join(data_dir, name)
            if name == "stdlib":
                rows += run_server("stdlib", Server(data), args, thread_counts)
            elif name == "gunicorn":
                os.makedirs(data)
                server = GunicornServer(data, args.gunicorn_workers, args.gunicorn_threads)
                rows += run_server("gunicorn", server, args, thread_counts)
            else:
                raise RuntimeError(f"unknown server {name!r} (stdlib, gunicorn)")
        for row in rows:
            row["endpoint"] = f"{row['server']}: {row['endpoint']}"
        print(table(rows))
        stdlib = [r for r in rows if r["server"] == "stdlib"]
        requests = sum(r["requests"] for r in stdlib)
        connects = sum(r["connects"] for r in stdlib)
        if requests and connects > len(stdlib) * max(thread_counts):
            print(f"note: stdlib: {connects} TCP connections for {requests} requests: the server closes the "
                  "connection after each response (HTTP/1.0), so every request pays a new connection.")
        failed = sum(r["errors"] for r in rows)
        if failed:
            print(f"note: {failed} requests failed (not 200, or a connection error)")
        return 0
    except RuntimeError as error:
        print(f"python_host: {error}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
