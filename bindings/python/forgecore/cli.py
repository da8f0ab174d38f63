"""The command line: `serve` runs the threaded stdlib HTTP host around the WSGI app (binding
first so that port 0 works, then opening the core and running its `start` admin command, which
creates the administrator, registers repositories and answers the lines to print; `--config
FILE` is a JSON object merged over the configuration it builds, so an operator sets rate
limits, limits, features, the store and storages), and `admin` (the same `--config FILE`, so
every command works on either store) turns each subcommand into one admin JSON command of
the core, printing its JSON answer (exit 1 and the body on stderr when it is not 2xx). The
request handler here is the only socket code: it hands the raw target to the app and drains
a body the app left unread so that the client gets the answer instead of a reset.

Clients that hold a connection without finishing their request, or without reading the
answer, must not hold the host: `--read-timeout SECONDS` (default 30) is the deadline for the
request's head, counted from the connection's start (every read waits only for the time left,
so a client trickling a byte at a time is cut off too), and then the longest the client may
take to send each 64 KiB of the body (a minimum transfer rate, as for answers: a push of
gigabytes takes as long as it needs, a trickle is cut off); `--write-timeout
SECONDS` (default 30) is the longest the client may take to accept each 64 KiB of the answer
(a minimum transfer rate: a stalled reader is dropped and the answer it held freed, while an
archive streams as long as it is read); `--max-connections N` (default 256) caps the
connections served at once and `--max-client-connections N` (default 64) those from one client
address; one over either cap is answered 503 by the accepting thread and closed, without a
thread of its own. Request headers whose names contain `_` are dropped, as nginx and gunicorn
do: WSGI spells `Private_Token` and `Private-Token` alike, and a proxy that filters one must not
be bypassed by the other. A request with an obsolete folded header line (RFC 9112 5.2) is a
400, never read as a header. A chunked request body is decoded as the application reads it
(`wsgi.input_terminated`), never held whole: git sends pushes over 1 MiB chunked. The request target is passed as it was sent: http.server
collapses a leading `//`, which the core and the Go host answer 404.
"""

import argparse
import io
import json
import signal
import socket
import socketserver
import sys
import threading
import time
from wsgiref.simple_server import ServerHandler, WSGIRequestHandler, WSGIServer

from .core import Forgecore, ForgecoreError
from .wsgi import make_app

# A body the application did not read is discarded up to this size before the connection closes.
DRAIN_MAX = 64 << 20
DRAIN_TIMEOUT = 5.0
# Defaults of `serve --read-timeout`, `--write-timeout`, `--max-connections` and
# `--max-client-connections`.
READ_TIMEOUT = 30.0
WRITE_TIMEOUT = 30.0
MAX_CONNECTIONS = 256
MAX_CLIENT_CONNECTIONS = 64
# The answer is sent in pieces of at most this size, each within the write timeout.
_WRITE_PIECE = 64 * 1024
# The request body must come at least this much within each read timeout.
_READ_PIECE = 64 * 1024
# A chunk-size line longer than this is no chunk-size line.
_CHUNK_LINE_MAX = 4096


def _answer(status, message):
    """A whole HTTP/1.0 answer with GitLab's JSON body, for what the host answers itself."""
    body = json.dumps({"message": message}).encode()
    return (b"HTTP/1.0 %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n"
            b"Connection: close\r\n\r\n%s" % (status.encode(), len(body), body))


TOO_MANY_CONNECTIONS = _answer("503 Service Unavailable", "503 Service Unavailable - too many connections")
TOO_MANY_FROM_CLIENT = _answer("503 Service Unavailable",
                               "503 Service Unavailable - too many connections from this address")
BAD_REQUEST = _answer("400 Bad Request", "400 Bad Request")


class _DeadlineReader(io.RawIOBase):
    """The socket's reading side under a deadline (a time.monotonic() value): each recv waits
    only for the time left, then TimeoutError. The head has one deadline; once `pace` is
    called, the body must come at a minimum rate instead: each 64 KiB within `timeout` seconds
    of the one before, so a push of gigabytes takes as long as it needs while a client
    trickling bytes is still cut off. The socket is blocking again between reads: the answer is
    written under the write timeout of each piece instead (`_PacedWriter`), so archives stream
    for as long as they are read."""

    def __init__(self, sock, deadline):
        self.sock = sock
        self.deadline = deadline
        self.piece_timeout = None
        self.piece_received = 0

    def pace(self, timeout):
        """From now on, each 64 KiB must arrive within `timeout` seconds of the one before."""
        self.piece_timeout = timeout
        self.piece_received = 0
        self.deadline = time.monotonic() + timeout

    def finish_by(self, deadline):
        """No more pacing: whatever is still read must come by `deadline` (or the earlier one)."""
        self.piece_timeout = None
        self.deadline = min(self.deadline, deadline)

    def readable(self):
        return True

    def readinto(self, buffer):
        remaining = self.deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("the request did not arrive within the read timeout")
        self.sock.settimeout(remaining)
        try:
            received = self.sock.recv_into(buffer)
        finally:
            self.sock.settimeout(None)
        if self.piece_timeout is not None:
            self.piece_received += received
            if self.piece_received >= _READ_PIECE:
                self.piece_received %= _READ_PIECE
                self.deadline = time.monotonic() + self.piece_timeout
        return received


class _PacedWriter(io.RawIOBase):
    """The socket's writing side: the answer goes out in pieces of at most 64 KiB, each of
    which the client must accept within `timeout` seconds, or ConnectionAbortedError, which
    wsgiref takes as a client gone (it closes the streamed answer and writes nothing more)."""

    def __init__(self, sock, timeout):
        self.sock = sock
        self.timeout = timeout

    def writable(self):
        return True

    def write(self, data):
        view = memoryview(data)
        for start in range(0, len(view), _WRITE_PIECE):
            self.sock.settimeout(self.timeout)
            try:
                self.sock.sendall(view[start:start + _WRITE_PIECE])
            except TimeoutError as error:
                raise ConnectionAbortedError("the client did not take the answer within the write timeout") from error
            finally:
                self.sock.settimeout(None)
        return len(view)


class _CountingReader:
    """wsgi.input that counts the body bytes the application read. A body that ends before its
    Content-Length or misses the read deadline is ConnectionAbortedError, which wsgiref takes
    as a client gone: the core never sees a truncated body, and nothing is answered."""

    def __init__(self, raw, length):
        self.raw = raw
        self.length = length
        self.count = 0

    def read(self, size=-1):
        expected = self.length - self.count
        if size is not None and size >= 0:
            expected = min(size, expected)
        data = self._call(self.raw.read, size)
        if len(data) < expected:
            raise ConnectionAbortedError("the body ended before its Content-Length")
        return data

    def readline(self, size=-1):
        return self._call(self.raw.readline, size)

    def _call(self, read, size):
        try:
            data = read(size)
        except TimeoutError as error:
            raise ConnectionAbortedError(str(error)) from error
        self.count += len(data)
        return data


class _ChunkedReader:
    """wsgi.input for a chunked body (RFC 9112 7.1), decoded as the application reads it, so
    memory stays flat whatever the body's size; trailer fields are read and dropped. A malformed
    or truncated body, or one that misses the read deadline, is ConnectionAbortedError, which
    wsgiref takes as a client gone: the core never sees a truncated body as a whole one."""

    def __init__(self, raw):
        self.raw = raw
        self.left = 0  # bytes left in the current chunk
        self.done = False

    def _line(self):
        try:
            line = self.raw.readline(_CHUNK_LINE_MAX + 1)
        except TimeoutError as error:
            raise ConnectionAbortedError(str(error)) from error
        if not line.endswith(b"\n") or len(line) > _CHUNK_LINE_MAX:
            raise ConnectionAbortedError("a chunked body with a line that does not end")
        return line

    def _next_chunk(self):
        size_text = self._line().split(b";", 1)[0].strip()
        if not size_text or any(c not in b"0123456789abcdefABCDEF" for c in size_text):
            raise ValueError("a chunk size that is not hexadecimal")
        self.left = int(size_text, 16)
        if self.left == 0:
            while self._line() not in (b"\r\n", b"\n"):  # trailer fields, then the empty line
                pass
            self.done = True

    def start(self):
        """Reads the first chunk's size line before the application runs, so that a body
        malformed from its start is a 400 (ValueError), not a client gone."""
        self._next_chunk()

    def read(self, size=-1):
        if self.done:
            return b""
        if self.left == 0:
            try:
                self._next_chunk()
            except ValueError as error:
                raise ConnectionAbortedError(str(error)) from error
            if self.done:
                return b""
        want = self.left if size is None or size < 0 else min(size, self.left)
        try:
            data = self.raw.read(want)
        except TimeoutError as error:
            raise ConnectionAbortedError(str(error)) from error
        if len(data) < want:
            raise ConnectionAbortedError("the body ended within a chunk")
        self.left -= len(data)
        if self.left == 0 and self.raw.read(2) != b"\r\n":
            raise ConnectionAbortedError("a chunk that does not end with CRLF")
        return data

    def readline(self, size=-1):
        return self.read(size)


class RequestHandler(WSGIRequestHandler):
    """wsgiref's handler with the raw target in REQUEST_URI, no log lines of its own (the core
    writes one record per request, see --no-request-log), and a lingering close for bodies the
    application did not read (a 413 answer, for one)."""

    def setup(self):
        super().setup()
        # The same buffered reader as before, over a reading side that keeps the deadline.
        self.rfile.close()
        self.reader = _DeadlineReader(self.connection, time.monotonic() + self.server.read_timeout)
        self.rfile = io.BufferedReader(self.reader)
        self.wfile = _PacedWriter(self.connection, self.server.write_timeout)

    def get_environ(self):
        # WSGI names `Private_Token` and `Private-Token` both HTTP_PRIVATE_TOKEN: names with `_`
        # are dropped so that a proxy filtering `Private-Token` cannot be bypassed.
        for name in {name for name in self.headers if "_" in name}:
            del self.headers[name]
        environ = super().get_environ()
        # The target as sent: parse_request collapses a leading `//` of self.path.
        words = self.requestline.split()
        environ["REQUEST_URI"] = words[1] if len(words) >= 2 else self.path
        if self.headers.get("Content-Type") is None:
            environ.pop("CONTENT_TYPE", None)  # wsgiref invents text/plain
        return environ

    def log_request(self, code="-", size="-"):
        pass

    def handle(self):
        try:
            self.raw_requestline = self.rfile.readline(65537)
            if len(self.raw_requestline) > 65536:
                self.requestline = self.request_version = self.command = ""
                self.send_error(414)
                return
            if not self.parse_request():
                return
        except (TimeoutError, ConnectionError):
            return  # cut off at the deadline, or gone: nobody waits for an answer
        # An obsolete folded line (a header line starting with a space or tab) is joined to the
        # header before it by the parser, which could make a token of it: RFC 9112 lets a
        # server refuse it, as gunicorn and the Go host do.
        if any("\r" in value or "\n" in value for value in self.headers.values()):
            self._refuse_request(BAD_REQUEST)
            return
        # The head is in: the body comes at the minimum rate, however long it is.
        self.reader.pace(self.server.read_timeout)
        environ = self.get_environ()
        chunked = "chunked" in self.headers.get("Transfer-Encoding", "").lower()
        if chunked:
            # Decoded as the application reads it, never held whole: git sends pushes over
            # 1 MiB chunked, and they may be gigabytes.
            environ.pop("CONTENT_LENGTH", None)
            environ["wsgi.input_terminated"] = True
            body = _ChunkedReader(self.rfile)
            try:
                body.start()
            except (TimeoutError, ConnectionError):
                return
            except ValueError:
                self._refuse_request(BAD_REQUEST)
                return
        else:
            try:
                length = max(int(self.headers.get("Content-Length") or 0), 0)
            except ValueError:
                length = 0
            body = _CountingReader(self.rfile, length)
        handler = ServerHandler(body, self.wfile, self.get_stderr(), environ, multithread=True)
        handler.request_handler = self
        handler.run(self.server.get_app())
        if chunked:
            if not body.done:
                self.close_connection = True  # the rest of the body is not worth reading
            return
        self._drain(body)

    def _refuse_request(self, answer):
        self.close_connection = True
        try:
            self.wfile.write(answer)
        except OSError:
            pass

    def _drain(self, body):
        unread = body.length - body.count
        if unread <= 0 or unread > DRAIN_MAX:
            return
        try:
            self.wfile.flush()
            self.reader.finish_by(time.monotonic() + DRAIN_TIMEOUT)
            while unread > 0:
                chunk = self.rfile.read(min(unread, 1 << 16))
                if not chunk:
                    break
                unread -= len(chunk)
        except OSError:
            pass


class ThreadingWSGIServer(socketserver.ThreadingMixIn, WSGIServer):
    """A thread per connection, at most `max_connections` of them; the accepting thread
    answers a connection over the cap itself, at once, so that it costs no thread."""

    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128

    def __init__(self, address, handler, read_timeout=READ_TIMEOUT, max_connections=MAX_CONNECTIONS,
                 write_timeout=WRITE_TIMEOUT, max_client_connections=MAX_CLIENT_CONNECTIONS):
        super().__init__(address, handler)
        self.read_timeout = read_timeout
        self.write_timeout = write_timeout
        self.connection_slots = threading.BoundedSemaphore(max_connections)
        self.max_client_connections = max_client_connections
        self.client_lock = threading.Lock()
        self.clients = {}  # connections held, by client address (without the port)

    def _take_client(self, client):
        with self.client_lock:
            if self.clients.get(client, 0) >= self.max_client_connections:
                return False
            self.clients[client] = self.clients.get(client, 0) + 1
            return True

    def _release_client(self, client):
        with self.client_lock:
            left = self.clients.get(client, 1) - 1
            if left > 0:
                self.clients[client] = left
            else:
                self.clients.pop(client, None)

    def process_request(self, request, client_address):
        client = client_address[0]
        if not self._take_client(client):
            self._refuse(request, TOO_MANY_FROM_CLIENT)
            return
        if not self.connection_slots.acquire(blocking=False):
            self._release_client(client)
            self._refuse(request, TOO_MANY_CONNECTIONS)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self.connection_slots.release()  # no thread started to release them
            self._release_client(client)
            raise

    def process_request_thread(self, request, client_address):
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.connection_slots.release()
            self._release_client(client_address[0])

    def _refuse(self, request, answer):
        """503 without waiting for anything. What the client already sent is read first:
        closing over unread data would reset the connection, and could lose the answer."""
        try:
            request.setblocking(False)
            try:
                request.recv(65536)
            except BlockingIOError:
                pass
            request.send(answer)
        except OSError:
            pass
        self.shutdown_request(request)


def parse_listen(text):
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit():
        raise argparse.ArgumentTypeError(f"--listen must be HOST:PORT, got {text!r}")
    return host.strip("[]") or "127.0.0.1", int(port)


def positive_seconds(text):
    try:
        seconds = float(text)
    except ValueError:
        seconds = 0
    if not seconds > 0 or seconds == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a number of seconds above 0, got {text!r}")
    return seconds


def positive_count(text):
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number above 0, got {text!r}")
    return int(text)


def config_file(path):
    """The JSON object in the file at `path` (argparse type of `serve --config`)."""
    try:
        with open(path, encoding="utf-8") as file:
            config = json.load(file)
    except (OSError, ValueError) as error:
        raise argparse.ArgumentTypeError(f"cannot read {path}: {error}")
    if not isinstance(config, dict):
        raise argparse.ArgumentTypeError(f"{path} is not a JSON object")
    return config


def _fail(response):
    """Exit status 1, with the core's failure answer on stderr."""
    body = response.json()
    print(json.dumps(body) if body is not None else f"status {response.status}", file=sys.stderr)
    return 1


def _open(config):
    try:
        return Forgecore(config)
    except ForgecoreError as error:
        print(json.dumps(error.body) if not isinstance(error.body, str) else error.body, file=sys.stderr)
        raise SystemExit(1)


def serve(args):
    host, port = args.listen
    server_class = ThreadingWSGIServer
    if ":" in host:
        server_class = type("ThreadingWSGIServer6", (ThreadingWSGIServer,), {"address_family": socket.AF_INET6})
    try:
        server = server_class((host, port), RequestHandler, args.read_timeout, args.max_connections,
                              args.write_timeout, args.max_client_connections)
    except OSError as error:
        print(f"forgecore: cannot listen on {host}:{port}: {error}", file=sys.stderr)
        return 1
    url_host = f"[{host}]" if ":" in host else host
    url = args.external_url or f"http://{url_host}:{server.server_address[1]}"
    # The file's top-level keys replace the built ones; the core checks everything.
    config = {"data_dir": args.data_dir, "external_url": url, **(args.config or {})}
    try:
        core = _open(config)
    except SystemExit:
        server.server_close()
        raise
    try:
        start = {"command": "start", "issue_token": args.print_admin_token, "url": url}
        if args.repos:
            start["repos"] = args.repos
        with core.admin(start) as answer:
            if not 200 <= answer.status < 300:
                return _fail(answer)
            lines = answer.json()["lines"]
        server.set_app(make_app(core, request_log=args.request_log))
        _stop_on_signals(server)
        # The last line, "listening on URL", tells a supervisor the host is ready.
        print("\n".join(lines), flush=True)
        server.serve_forever(poll_interval=0.2)
        return 0
    finally:
        server.server_close()
        core.close()


def _stop_on_signals(server):
    """SIGINT and SIGTERM stop `serve_forever` between two connections. An exception raised by
    the handler would land wherever the accepting thread is: inside `Thread.start()` it was
    swallowed with the connection's error, and the host served on."""

    def stop(signum, frame):
        # shutdown() waits for the loop to end, so not from the loop's own thread.
        threading.Thread(target=server.shutdown, daemon=True).start()

    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, stop)


def _command(args):
    """The admin JSON command of a parsed `admin` subcommand; absent options are left out."""
    if args.what == "user":
        command = {"command": "user_add", "username": args.name, "admin": args.admin, "email": args.email}
    elif args.what == "token" and args.action == "add":
        command = {"command": "token_add", "username": args.name, "scopes": args.scopes,
                   "expires_at": args.expires_at}
    elif args.what == "token":
        command = {"command": "token_revoke", "token": args.token}
    elif args.what == "group":
        command = {"command": "group_add", "path": args.path, "visibility": args.visibility, "name": args.group_name,
                   "description": args.description}
    elif args.what == "project":
        command = {"command": "project_add", "path": args.path, "repo": args.repo, "storage": args.storage,
                   "visibility": args.visibility, "forked_from": args.forked_from}
    elif args.what == "member":
        command = {"command": "member_add", "group": args.group, "project": args.project,
                   "username": args.user, "access_level": args.access_level,
                   "member_role_id": args.member_role_id, "expires_at": args.expires_at}
    elif args.what == "store-copy":
        command = {"command": "store_copy", "to": args.to}
    else:
        command = {"command": "job_token_add", "project": args.project}
    return {key: value for key, value in command.items() if value is not None}


def admin(args):
    config = {**({"data_dir": args.data_dir} if getattr(args, "data_dir", None) else {}), **(args.config or {})}
    if "data_dir" not in config:
        print("forgecore admin: --data-dir is required (or data_dir in the --config file)", file=sys.stderr)
        return 2
    with _open(config) as core, core.admin(_command(args)) as answer:
        if not 200 <= answer.status < 300:
            return _fail(answer)
        print(json.dumps(answer.json()))
    return 0


def _parser():
    parser = argparse.ArgumentParser(prog="python3 -m forgecore", description="forgecore host and administration")
    commands = parser.add_subparsers(dest="mode", required=True)

    run = commands.add_parser("serve", help="serve /api/v4 over HTTP")
    run.add_argument("--listen", type=parse_listen, default=("127.0.0.1", 8080), metavar="HOST:PORT")
    run.add_argument("--data-dir", help="the data directory (required unless --config names data_dir)")
    run.add_argument("--repos", help="register every git repository under this directory as a public project")
    run.add_argument("--external-url", help="public base URL (default http://HOST:PORT)")
    run.add_argument("--print-admin-token", action="store_true", help="issue and print a token for the administrator")
    run.add_argument("--config", type=config_file, metavar="FILE",
                     help="a JSON object merged over the configuration (rate_limits, limits, features, ...)")
    run.add_argument("--read-timeout", type=positive_seconds, default=READ_TIMEOUT, metavar="SECONDS",
                     help="the request's head must arrive within this many seconds of connecting, and "
                          "then each 64 KiB of its body within this many seconds of the one before, or "
                          "the connection is closed (default %(default)g)")
    run.add_argument("--write-timeout", type=positive_seconds, default=WRITE_TIMEOUT, metavar="SECONDS",
                     help="each 64 KiB of an answer must be taken by the client within this many seconds, "
                          "or the connection is closed (default %(default)g)")
    run.add_argument("--max-connections", type=positive_count, default=MAX_CONNECTIONS, metavar="N",
                     help="connections served at once; one more is answered 503 and closed (default %(default)s)")
    run.add_argument("--no-request-log", dest="request_log", action="store_false",
                     help="do not write a JSON line per request (and the core's warnings) to stderr")
    run.add_argument("--max-client-connections", type=positive_count, default=MAX_CLIENT_CONNECTIONS, metavar="N",
                     help="connections served at once from one client address (behind a proxy, raise it to "
                          "--max-connections); one more is answered 503 and closed (default %(default)s)")
    run.set_defaults(func=serve)

    adm = commands.add_parser("admin", help="administer the instance in --data-dir (or the --config file's store)")
    adm.add_argument("--data-dir")
    adm.add_argument("--config", type=config_file, metavar="FILE",
                     help="the JSON configuration the hosts take: its store (PostgreSQL) and storages")
    adm.set_defaults(func=admin)
    # --data-dir and --config are also accepted after the subcommand; SUPPRESS keeps earlier ones.
    data_dir = argparse.ArgumentParser(add_help=False)
    data_dir.add_argument("--data-dir", default=argparse.SUPPRESS)
    data_dir.add_argument("--config", type=config_file, metavar="FILE", default=argparse.SUPPRESS)
    what = adm.add_subparsers(dest="what", required=True)

    def action(noun, verb):
        return noun.add_parser(verb, parents=[data_dir])

    user = what.add_parser("user").add_subparsers(dest="action", required=True)
    p = action(user, "add")
    p.add_argument("name")
    p.add_argument("--admin", action="store_true")
    p.add_argument("--email")

    token = what.add_parser("token").add_subparsers(dest="action", required=True)
    token_add = action(token, "add")
    token_add.add_argument("name")
    token_add.add_argument("--scopes", help="comma-separated scopes (default: api)")
    token_add.add_argument("--expires-at", help="YYYY-MM-DD (default: today + limits.token_max_lifetime_days)")
    action(token, "revoke").add_argument("token")

    group = what.add_parser("group").add_subparsers(dest="action", required=True)
    p = action(group, "add")
    p.add_argument("path")
    p.add_argument("--visibility", choices=["private", "internal", "public"])
    p.add_argument("--name", dest="group_name", help="the display name (default: the last segment of the path)")
    p.add_argument("--description")

    project = what.add_parser("project").add_subparsers(dest="action", required=True)
    p = action(project, "add")
    p.add_argument("path")
    p.add_argument("--repo", required=True, metavar="GIT_DIR",
                   help="the repository; with --storage, its path relative to that storage's root")
    p.add_argument("--storage", metavar="NAME", help="a storage named in the configuration's storages")
    p.add_argument("--visibility", choices=["private", "internal", "public"])
    p.add_argument("--forked-from", metavar="PATH")

    member = what.add_parser("member").add_subparsers(dest="action", required=True)
    p = action(member, "add")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--group", metavar="PATH")
    source.add_argument("--project", metavar="PATH")
    p.add_argument("--user", required=True, metavar="NAME")
    p.add_argument("--access-level", type=int, required=True, metavar="N")
    p.add_argument("--member-role-id", type=int, metavar="ID")
    p.add_argument("--expires-at", metavar="YYYY-MM-DD", help="the day the membership ends (UTC)")

    job = what.add_parser("job-token").add_subparsers(dest="action", required=True)
    action(job, "add").add_argument("--project", required=True, metavar="PATH")

    copy = what.add_parser("store-copy", parents=[data_dir],
                           help="copy this instance's store into an empty PostgreSQL database")
    copy.add_argument("--to", required=True, metavar="POSTGRES_URL")
    copy.set_defaults(action="copy")
    return parser


def main(argv=None):
    parser = _parser()
    args = parser.parse_args(argv)
    if args.mode == "serve" and args.data_dir is None and "data_dir" not in (args.config or {}):
        parser.error("serve: --data-dir is required (or data_dir in the --config file)")
    return args.func(args)
