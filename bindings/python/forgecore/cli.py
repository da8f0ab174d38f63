"""The command line: `serve` runs the threaded stdlib HTTP host around the WSGI app (binding
first so that port 0 works, then opening the core, bootstrapping the administrator and
registering repositories; `--config FILE` is a JSON object merged over the configuration it
builds, so an operator sets rate limits, limits and features), and `admin` turns each subcommand into one admin JSON command of
the core, printing its JSON answer (exit 1 and the body on stderr when it is not 2xx). The
request handler here is the only socket code: it hands the raw target to the app and drains
a body the app left unread so that the client gets the answer instead of a reset.
"""

import argparse
import json
import signal
import socket
import socketserver
import sys
from wsgiref.simple_server import ServerHandler, WSGIRequestHandler, WSGIServer

from .core import Forgecore, ForgecoreError
from .wsgi import make_app

# A body the application did not read is discarded up to this size before the connection closes.
DRAIN_MAX = 64 << 20
DRAIN_TIMEOUT = 5.0


class _CountingReader:
    """wsgi.input that counts the body bytes the application read."""

    def __init__(self, raw):
        self.raw = raw
        self.count = 0

    def read(self, size=-1):
        data = self.raw.read(size)
        self.count += len(data)
        return data

    def readline(self, size=-1):
        data = self.raw.readline(size)
        self.count += len(data)
        return data


class RequestHandler(WSGIRequestHandler):
    """wsgiref's handler with the raw target in REQUEST_URI, no per-request log lines, and a
    lingering close for bodies the application did not read (a 413 answer, for one)."""

    def get_environ(self):
        environ = super().get_environ()
        environ["REQUEST_URI"] = self.path
        if self.headers.get("Content-Type") is None:
            environ.pop("CONTENT_TYPE", None)  # wsgiref invents text/plain
        return environ

    def log_request(self, code="-", size="-"):
        pass

    def handle(self):
        self.raw_requestline = self.rfile.readline(65537)
        if len(self.raw_requestline) > 65536:
            self.requestline = self.request_version = self.command = ""
            self.send_error(414)
            return
        if not self.parse_request():
            return
        body = _CountingReader(self.rfile)
        handler = ServerHandler(body, self.wfile, self.get_stderr(), self.get_environ(), multithread=True)
        handler.request_handler = self
        handler.run(self.server.get_app())
        self._drain(body)

    def _drain(self, body):
        try:
            unread = int(self.headers.get("Content-Length") or 0) - body.count
        except ValueError:
            return
        if unread <= 0 or unread > DRAIN_MAX:
            return
        try:
            self.wfile.flush()
            self.connection.settimeout(DRAIN_TIMEOUT)
            while unread > 0:
                chunk = self.rfile.read(min(unread, 1 << 16))
                if not chunk:
                    break
                unread -= len(chunk)
        except OSError:
            pass


class ThreadingWSGIServer(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 128


def parse_listen(text):
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit():
        raise argparse.ArgumentTypeError(f"--listen must be HOST:PORT, got {text!r}")
    return host.strip("[]") or "127.0.0.1", int(port)


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


def _fail(status, body):
    print(json.dumps(body) if body is not None else f"status {status}", file=sys.stderr)
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
        server = server_class((host, port), RequestHandler)
    except OSError as error:
        print(f"forgecore: cannot listen on {host}:{port}: {error}", file=sys.stderr)
        return 1
    real_port = server.server_address[1]
    url_host = f"[{host}]" if ":" in host else host
    url = (args.external_url or f"http://{url_host}:{real_port}").rstrip("/")
    # The file's top-level keys replace the built ones; the core checks everything.
    config = {"data_dir": args.data_dir, "external_url": url, **(args.config or {})}
    if isinstance(config.get("external_url"), str):
        url = config["external_url"].rstrip("/")  # the links the core builds start with it
    try:
        core = _open(config)
    except SystemExit:
        server.server_close()
        raise
    try:
        status, boot = core.admin({"command": "bootstrap", "issue_token": args.print_admin_token})
        if not 200 <= status < 300:
            return _fail(status, boot)
        token = boot.get("token")
        if boot.get("created"):
            print(f"created the administrator {boot.get('username')}")
        if token:
            print(f"admin token: {token}")
        projects = []
        if args.repos:
            status, registered = core.admin({"command": "register_repos", "dir": args.repos})
            if not 200 <= status < 300:
                return _fail(status, registered)
            projects = [p["path"] for p in registered.get("projects", [])]
            for project in registered.get("projects", []):
                print(f"project: {project['path']}{' (new)' if project.get('created') else ''}")
        server.set_app(make_app(core))
        print(f'try: curl -H "PRIVATE-TOKEN: {token or "<token>"}" {url}/api/v4/member_roles')
        if "forgecore" in projects:
            print(f"     curl {url}/api/v4/projects/forgecore/repository/tree")
        print(f"listening on {url}", flush=True)  # last: tells a supervisor the host is ready
        signal.signal(signal.SIGTERM, _interrupt)
        try:
            server.serve_forever(poll_interval=0.2)
        except KeyboardInterrupt:
            pass
        return 0
    finally:
        server.server_close()
        core.close()


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def _command(args):
    """The admin JSON command of a parsed `admin` subcommand; absent options are left out."""
    if args.what == "user":
        command = {"command": "user_add", "username": args.name, "admin": args.admin, "email": args.email}
    elif args.what == "token" and args.action == "add":
        command = {"command": "token_add", "username": args.name}
    elif args.what == "token":
        command = {"command": "token_revoke", "token": args.token}
    elif args.what == "group":
        command = {"command": "group_add", "path": args.path, "visibility": args.visibility}
    elif args.what == "project":
        command = {"command": "project_add", "path": args.path, "repo": args.repo,
                   "visibility": args.visibility, "forked_from": args.forked_from}
    elif args.what == "member":
        command = {"command": "member_add", "group": args.group, "project": args.project,
                   "username": args.user, "access_level": args.access_level,
                   "member_role_id": args.member_role_id}
    else:
        command = {"command": "job_token_add", "project": args.project}
    return {key: value for key, value in command.items() if value is not None}


def admin(args):
    if not getattr(args, "data_dir", None):
        print("forgecore admin: --data-dir is required", file=sys.stderr)
        return 2
    with _open({"data_dir": args.data_dir}) as core:
        status, body = core.admin(_command(args))
    if not 200 <= status < 300:
        return _fail(status, body)
    print(json.dumps(body))
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
    run.set_defaults(func=serve)

    adm = commands.add_parser("admin", help="administer the instance in --data-dir")
    adm.add_argument("--data-dir")
    adm.set_defaults(func=admin)
    # --data-dir is also accepted after the subcommand; SUPPRESS keeps an earlier one.
    data_dir = argparse.ArgumentParser(add_help=False)
    data_dir.add_argument("--data-dir", default=argparse.SUPPRESS)
    what = adm.add_subparsers(dest="what", required=True)

    def action(noun, verb):
        return noun.add_parser(verb, parents=[data_dir])

    user = what.add_parser("user").add_subparsers(dest="action", required=True)
    p = action(user, "add")
    p.add_argument("name")
    p.add_argument("--admin", action="store_true")
    p.add_argument("--email")

    token = what.add_parser("token").add_subparsers(dest="action", required=True)
    action(token, "add").add_argument("name")
    action(token, "revoke").add_argument("token")

    group = what.add_parser("group").add_subparsers(dest="action", required=True)
    p = action(group, "add")
    p.add_argument("path")
    p.add_argument("--visibility", choices=["private", "internal", "public"])

    project = what.add_parser("project").add_subparsers(dest="action", required=True)
    p = action(project, "add")
    p.add_argument("path")
    p.add_argument("--repo", required=True, metavar="GIT_DIR")
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

    job = what.add_parser("job-token").add_subparsers(dest="action", required=True)
    action(job, "add").add_argument("--project", required=True, metavar="PATH")
    return parser


def main(argv=None):
    parser = _parser()
    args = parser.parse_args(argv)
    if args.mode == "serve" and args.data_dir is None and "data_dir" not in (args.config or {}):
        parser.error("serve: --data-dir is required (or data_dir in the --config file)")
    return args.func(args)
