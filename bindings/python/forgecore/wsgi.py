"""The WSGI application: it carries one HTTP request from a WSGI server into the core
(`fc_call_open`, `fc_call_write`, `fc_call_finish`) and the answer back, unchanged. It rebuilds
the raw request target (keeping `%2F`), the header names, the connection's peer address and
scheme, and hands the body over in pieces as the core takes them (the core answers 413 itself; a
chunked body the server did not decode is refused 411, never taken for an empty one), adds the reason phrase to the core's status and passes the core's
headers and body through (streamed bodies chunk by chunk, freed in `close()`). Routing,
parameters, authentication and status codes all belong to the core.
"""

import atexit
import ipaddress
import json
import os
from http import HTTPStatus
from urllib.parse import quote
from wsgiref.util import is_hop_by_hop

from .core import Forgecore, ForgecoreError

_READ_CHUNK = 64 * 1024


def _wire_text(value):
    """A WSGI (latin-1 decoded) string back as the text that was on the wire (UTF-8 if it is)."""
    try:
        return value.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return value


def raw_target(environ):
    """The request target as sent: REQUEST_URI / RAW_URI when the server gives it."""
    target = environ.get("REQUEST_URI") or environ.get("RAW_URI")
    if not target:
        path = environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", "")
        target = quote(path.encode("latin-1"), safe="/;=,~!$&'()*+:@")
        if environ.get("QUERY_STRING"):
            target += "?" + environ["QUERY_STRING"]
    try:
        return target.encode("latin-1")
    except UnicodeEncodeError:
        return target.encode("utf-8")


def request_headers(environ):
    """(name, value) pairs of the request: HTTP_* variables plus CONTENT_TYPE and CONTENT_LENGTH."""
    headers = []
    for key, value in environ.items():
        if key.startswith("HTTP_"):
            name = key[5:]
        elif key in ("CONTENT_TYPE", "CONTENT_LENGTH") and value:
            name = key
        else:
            continue
        headers.append(("-".join(part.capitalize() for part in name.split("_")), _wire_text(value)))
    return headers


class LengthRequired(Exception):
    """A chunked body the server hands on undecoded: it cannot be read, and must not be
    taken for an empty one."""


def body_pieces(environ):
    """The body's pieces, read as the core asks for them (it stops asking past its limit). A body
    without a Content-Length (chunked) is read to its end when the server decoded it and says so
    (`wsgi.input_terminated`, as gunicorn and waitress do; the stdlib host decodes it and
    passes its length), else LengthRequired, raised before anything is read."""
    stream = environ.get("wsgi.input")
    chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
    if chunked and not environ.get("CONTENT_LENGTH"):
        if not environ.get("wsgi.input_terminated"):
            raise LengthRequired()
        return _pieces(stream, None)
    try:
        length = int(environ.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    return _pieces(stream, length) if length > 0 else iter(())


def _pieces(stream, remaining):
    """Pieces of `stream` up to `remaining` bytes (None: to its end)."""
    if stream is None:
        return
    while remaining is None or remaining > 0:
        piece = stream.read(_READ_CHUNK if remaining is None else min(remaining, _READ_CHUNK))
        if not piece:
            return
        if remaining is not None:
            remaining -= len(piece)
        yield piece


def peer_address(environ):
    """REMOTE_ADDR when it is an IP address (a Unix socket's peer is not), else None."""
    addr = environ.get("REMOTE_ADDR") or ""
    try:
        ipaddress.ip_address(addr.split("%", 1)[0])
    except ValueError:
        return None
    return addr


def status_line(status):
    try:
        return f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        return f"{status} Unknown"


class ForgecoreApp:
    """WSGI callable over an opened `Forgecore` (which the caller owns and closes)."""

    def __init__(self, core: Forgecore):
        self.core = core
        self.max_body_read = core.max_body_bytes + 1

    def __call__(self, environ, start_response):
        try:
            body = body_pieces(environ)
        except LengthRequired:
            answer = json.dumps({"message": "411 Length Required"}).encode()
            start_response(status_line(411), [("Content-Type", "application/json"),
                                              ("Content-Length", str(len(answer)))])
            return [answer]
        response = self.core.call(
            environ.get("REQUEST_METHOD", "GET"),
            raw_target(environ),
            request_headers(environ),
            body,
            peer_addr=peer_address(environ),
            scheme=environ.get("wsgi.url_scheme") if environ.get("wsgi.url_scheme") in ("http", "https") else None,
        )
        headers = [(name, value) for name, value in response.headers.items() if not is_hop_by_hop(name)]
        try:
            start_response(status_line(response.status), headers)
        except BaseException:
            response.close()
            raise
        if response.streamed:
            return response  # iterated in chunks; the server's close() frees it
        body = response.read()
        return [body] if body else []


def make_app(core: Forgecore):
    return ForgecoreApp(core)


CONFIG_ENV = "FORGECORE_CONFIG"
DATA_DIR_ENV = "FORGECORE_DATA_DIR"
REPOS_ENV = "FORGECORE_REPOS"


def config_from_env(environ=None):
    """The configuration the environment names: the JSON object in the file `FORGECORE_CONFIG`
    (what `serve --config` takes) over `{"data_dir": FORGECORE_DATA_DIR}`; one of the two must
    give data_dir."""
    environ = os.environ if environ is None else environ
    config = {}
    if environ.get(DATA_DIR_ENV):
        config["data_dir"] = environ[DATA_DIR_ENV]
    path = environ.get(CONFIG_ENV)
    if path:
        with open(path, encoding="utf-8") as file:
            loaded = json.load(file)
        if not isinstance(loaded, dict):
            raise ValueError(f"{CONFIG_ENV}={path} is not a JSON object")
        config.update(loaded)
    if "data_dir" not in config:
        raise ValueError(f"set {DATA_DIR_ENV}, or {CONFIG_ENV} to a JSON file with data_dir")
    return config


def app_from_env(environ=None):
    """A WSGI app for servers that import one, such as gunicorn:

        FORGECORE_CONFIG=/etc/forgecore.json gunicorn -k gthread --threads 8 'forgecore.wsgi:app_from_env()'

    It opens the core of `config_from_env()` (each worker process opens its own; the store
    is shared between them as between hosts) and keeps it open for the life of the process.
    When `FORGECORE_REPOS` names a directory, every git repository under it is registered as a
    public project first (as `serve --repos`). Administrators and tokens are made with
    `python -m forgecore admin`; external_url, when the configuration has none, is built by the
    core from each request's Host header. A refused configuration raises ForgecoreError.
    """
    environ = os.environ if environ is None else environ
    core = Forgecore(config_from_env(environ))
    atexit.register(core.close)
    repos = environ.get(REPOS_ENV)
    if repos:
        with core.admin({"command": "register_repos", "dir": repos}) as answer:
            if not 200 <= answer.status < 300:
                core.close()
                raise ForgecoreError(answer.status, answer.json())
    return make_app(core)
