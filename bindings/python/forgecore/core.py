"""`Forgecore`: one opened core instance and the Python face of every C export. It turns
Python values into the C arguments (UTF-8 strings, JSON texts, byte buffers) and answers every
call with one `Response`: status and headers copied out of the `fc_response`, an in-memory body
copied and the `fc_response` freed at once, a streamed body left to a `BodyStream` that frees it
when read to the end or closed. It also keeps `close()` from freeing the context while a call is
in flight. It decides nothing about HTTP or GitLab.
"""

import ctypes
import json
import threading

from . import _native

CHUNK_SIZE = 64 * 1024
# The core's request body limit when the configuration sets no limits.max_body_bytes.
DEFAULT_MAX_BODY_BYTES = 1 << 20


class ForgecoreError(Exception):
    """A failure answered by the core: its HTTP status and body (parsed JSON when it is JSON)."""

    def __init__(self, status, body):
        self.status = status
        self.body = body
        message = body.get("message", body) if isinstance(body, dict) else body
        super().__init__(f"{status}: {message}")


def _parse_json(data):
    if not data:
        return None
    try:
        return json.loads(data)
    except ValueError:
        return data


class BodyStream:
    """Iterator over a streamed body in chunks of at most 64 KiB; owns its `fc_response`.

    The response is freed at the end of the body, on an error, on `close()` and when collected.
    """

    def __init__(self, lib, response, chunk_size=CHUNK_SIZE):
        self._lib = lib
        self._response = response
        self._buffer = ctypes.create_string_buffer(chunk_size)
        self._lock = threading.Lock()

    def __iter__(self):
        return self

    def __next__(self):
        with self._lock:
            if self._response is None:
                raise StopIteration
            n = self._lib.fc_response_read(self._response, self._buffer, len(self._buffer))
            if n > 0:
                return ctypes.string_at(self._buffer, n)
        self.close()
        if n < 0:
            raise OSError("forgecore: reading the response body failed")
        raise StopIteration

    def read(self):
        """The rest of the body as one bytes object."""
        return b"".join(self)

    def close(self):
        with self._lock:
            response, self._response = self._response, None
        if response is not None:
            self._lib.fc_response_free(response)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        self.close()


class Response:
    """The core's answer to any call of `Forgecore`, as Go's `Response`: `status`, `headers` (a
    dict) and a body. `read()` answers the whole body, iterating gives it in chunks, `json()`
    parses it. A `streamed` body (archives, raw blobs, compares) is produced by the core while
    it is read and holds its `fc_response` until read to the end or closed: `close()` it, or
    use the response as a context manager."""

    def __init__(self, status, headers, body=b"", stream=None):
        self.status = status
        self.headers = headers
        self._body = body
        self._stream = stream

    @property
    def streamed(self):
        return self._stream is not None

    def __iter__(self):
        if self._stream is not None:
            return iter(self._stream)
        return iter((self._body,) if self._body else ())

    def read(self):
        """The whole body; of a streamed one, what is left of it, read to its end."""
        return self._stream.read() if self._stream is not None else self._body

    def json(self):
        """The body parsed as JSON; None for an empty body (a 204)."""
        data = self.read()
        return json.loads(data) if data else None

    def close(self):
        """Frees what the response still holds (a streamed body's `fc_response`)."""
        if self._stream is not None:
            self._stream.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _max_body_bytes(config):
    """limits.max_body_bytes of a configuration, or the core's default."""
    limits = config.get("limits") if isinstance(config, dict) else None
    value = limits.get("max_body_bytes") if isinstance(limits, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else DEFAULT_MAX_BODY_BYTES


def _text(value):
    return value.encode("utf-8") if isinstance(value, str) else value


def _json_arg(value):
    return json.dumps(value if value is not None else {}).encode("utf-8")


class Forgecore:
    """An opened instance: `Forgecore({"data_dir": ...})`; use as a context manager or `close()`."""

    def __init__(self, config, library=None):
        self._lib = _native.load(library)
        self._ctx = None
        self._in_flight = 0
        self._idle = threading.Condition()
        ctx = _native.CTX_P()
        failure = self._lib.fc_open(_json_arg(config), ctypes.byref(ctx))
        if failure:
            with self._wrap(failure) as refused:
                raise ForgecoreError(refused.status, _parse_json(refused.read()))
        if not ctx:
            raise ForgecoreError(500, {"message": "fc_open returned neither a context nor an error"})
        self._ctx = ctx
        self._max_body_bytes = _max_body_bytes(config)

    # -- context lifetime -------------------------------------------------------------------

    def _enter(self):
        with self._idle:
            if self._ctx is None:
                raise ValueError("forgecore instance is closed")
            self._in_flight += 1
            return self._ctx

    def _leave(self):
        with self._idle:
            self._in_flight -= 1
            if self._in_flight == 0:
                self._idle.notify_all()

    def _call(self, function, *args):
        ctx = self._enter()
        try:
            return function(ctx, *args)
        finally:
            self._leave()

    def close(self):
        """Refuses new calls, waits for the ones in flight, then closes the context."""
        with self._idle:
            ctx, self._ctx = self._ctx, None
            while self._in_flight:
                self._idle.wait()
        if ctx is not None:
            self._lib.fc_close(ctx)

    @property
    def closed(self):
        return self._ctx is None

    @property
    def max_body_bytes(self):
        """The request body limit of the configuration (limits.max_body_bytes): a host reads one
        byte more, so that the core sees an oversized body and answers 413 itself."""
        return self._max_body_bytes

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # -- responses --------------------------------------------------------------------------

    def _status_headers(self, response):
        status = self._lib.fc_response_status(response)
        raw = self._lib.fc_response_headers(response)
        headers = json.loads(ctypes.string_at(raw).decode("utf-8")) if raw else {}
        return status, headers

    def _body(self, response):
        """The in-memory body of a response that is not streamed."""
        size = ctypes.c_size_t(0)
        pointer = self._lib.fc_response_body(response, ctypes.byref(size))
        return ctypes.string_at(pointer, size.value) if pointer and size.value else b""

    def _wrap(self, response):
        """A `Response` from a raw one: in-memory bodies are copied and freed at once, a streamed
        body becomes a `BodyStream` that owns (and later frees) the raw response."""
        if not response:
            raise MemoryError("forgecore returned a NULL response")
        try:
            status, headers = self._status_headers(response)
            if self._lib.fc_response_streamed(response):
                stream, response = BodyStream(self._lib, response), None
                return Response(status, headers, stream=stream)
            return Response(status, headers, body=self._body(response))
        finally:
            if response is not None:
                self._lib.fc_response_free(response)

    def _typed(self, function, *json_args):
        """Calls a typed export with each argument as JSON text."""
        return self._wrap(self._call(function, *map(_json_arg, json_args)))

    # -- the doors --------------------------------------------------------------------------

    def request(self, method, target, headers=(), body=b""):
        """Serves one raw HTTP request; `headers` is a list of (name, value) pairs."""
        body = bytes(body or b"")
        pairs = _json_arg([[name, value] for name, value in headers])
        return self._wrap(self._call(self._lib.fc_request, _text(method), _text(target), pairs, body, len(body)))

    def call(self, method, target, headers=(), body=(), peer_addr=None, scheme=None):
        """Serves one HTTP request whose body arrives in pieces (an iterable of bytes, read only
        as far as the core wants it), with what the host knows about the connection: the peer's
        address (`"203.0.113.9:5123"`) and the scheme (`"http"`, `"https"`), which a client
        cannot forge. Hosts serve every request through this."""
        meta = {key: value for key, value in (("peer_addr", peer_addr), ("scheme", scheme)) if value}
        pairs = _json_arg([[name, value] for name, value in headers])
        lib = self._lib
        ctx = self._enter()
        try:
            handle = _native.CALL_P()
            answer = lib.fc_call_open(ctx, _json_arg(meta), _text(method), _text(target), pairs,
                                      ctypes.byref(handle))
            if answer:
                return self._wrap(answer)
            try:
                for piece in body:
                    if piece:
                        answer = lib.fc_call_write(handle, bytes(piece), len(piece))
                        if answer:
                            return self._wrap(answer)
                answer, handle = lib.fc_call_finish(handle), None
                return self._wrap(answer)
            finally:
                if handle:
                    lib.fc_call_free(handle)
        finally:
            self._leave()

    # Typed doors: `auth` is {"private_token": ...}, {"job_token": ...} or {}, `params` the
    # route's parameters; each answers the `Response` the HTTP route would.

    def member_roles_list(self, auth=None, params=None):
        return self._typed(self._lib.fc_member_roles_list, auth, params)

    def member_roles_create(self, auth=None, params=None):
        return self._typed(self._lib.fc_member_roles_create, auth, params)

    def member_roles_update(self, auth=None, params=None):
        return self._typed(self._lib.fc_member_roles_update, auth, params)

    def member_roles_delete(self, auth=None, params=None):
        return self._typed(self._lib.fc_member_roles_delete, auth, params)

    def admin(self, command):
        """Runs one admin command (`{"command": "user_add", ...}`)."""
        return self._typed(self._lib.fc_admin, command)

    def repository_tree(self, auth=None, params=None):
        return self._typed(self._lib.fc_repository_tree, auth, params)

    def repository_blob(self, auth=None, params=None):
        return self._typed(self._lib.fc_repository_blob, auth, params)

    def repository_raw_blob(self, auth=None, params=None):
        return self._typed(self._lib.fc_repository_raw_blob, auth, params)

    def repository_contributors(self, auth=None, params=None):
        return self._typed(self._lib.fc_repository_contributors, auth, params)

    def repository_merge_base(self, auth=None, params=None):
        return self._typed(self._lib.fc_repository_merge_base, auth, params)

    def repository_compare(self, auth=None, params=None):
        return self._typed(self._lib.fc_repository_compare, auth, params)

    def changelog_generate(self, auth=None, params=None):
        return self._typed(self._lib.fc_changelog_generate, auth, params)

    def changelog_commit(self, auth=None, params=None):
        return self._typed(self._lib.fc_changelog_commit, auth, params)

    def repository_health(self, auth=None, params=None):
        return self._typed(self._lib.fc_repository_health, auth, params)

    def repository_commits(self, auth=None, params=None):
        """The commits list (`project`, `ref_name`, `since`, `until`, `path`, `author`, `all`,
        `first_parent`, `order`, `with_stats`, `trailers`, `page`, `per_page`)."""
        return self._typed(self._lib.fc_repository_commits, auth, params)

    def repository_commit(self, auth=None, params=None):
        """One commit (`project`, `sha`, `stats`)."""
        return self._typed(self._lib.fc_repository_commit, auth, params)

    def repository_commit_diff(self, auth=None, params=None):
        """A commit's diff (`project`, `sha`, `unidiff`, `page`, `per_page`)."""
        return self._typed(self._lib.fc_repository_commit_diff, auth, params)

    def repository_commit_refs(self, auth=None, params=None):
        """The branches and tags containing a commit (`project`, `sha`, `type`, `page`, `per_page`)."""
        return self._typed(self._lib.fc_repository_commit_refs, auth, params)

    def repository_commit_sequence(self, auth=None, params=None):
        """How many commits are reachable from a commit (`project`, `sha`, `first_parent`)."""
        return self._typed(self._lib.fc_repository_commit_sequence, auth, params)

    def repository_commit_create(self, auth=None, params=None):
        """POST /projects/:id/repository/commits (`project`, `branch`, `commit_message`,
        `actions`, `start_branch` or `start_sha`, `force`, `author_name`, `author_email`)."""
        return self._typed(self._lib.fc_repository_commit_create, auth, params)

    def repository_file(self, auth=None, params=None):
        """GET /projects/:id/repository/files/:file_path (`project`, `file_path`, `ref`)."""
        return self._typed(self._lib.fc_repository_file, auth, params)

    def repository_file_raw(self, auth=None, params=None):
        """GET .../files/:file_path/raw (`project`, `file_path`, `ref`, `lfs`): a streamed body."""
        return self._typed(self._lib.fc_repository_file_raw, auth, params)

    def repository_file_blame(self, auth=None, params=None):
        """GET .../files/:file_path/blame (`project`, `file_path`, `ref`, `range`)."""
        return self._typed(self._lib.fc_repository_file_blame, auth, params)

    def repository_file_create(self, auth=None, params=None):
        """POST .../files/:file_path (`project`, `file_path`, `branch`, `commit_message`, `content`, ...)."""
        return self._typed(self._lib.fc_repository_file_create, auth, params)

    def repository_file_update(self, auth=None, params=None):
        """PUT .../files/:file_path (as `repository_file_create`, plus `last_commit_id`)."""
        return self._typed(self._lib.fc_repository_file_update, auth, params)

    def repository_file_delete(self, auth=None, params=None):
        """DELETE .../files/:file_path (`project`, `file_path`, `branch`, `commit_message`)."""
        return self._typed(self._lib.fc_repository_file_delete, auth, params)

    def projects_list(self, auth=None, params=None):
        return self._typed(self._lib.fc_projects_list, auth, params)

    def group_projects_list(self, auth=None, params=None):
        return self._typed(self._lib.fc_group_projects_list, auth, params)

    def project_get(self, auth=None, params=None):
        return self._typed(self._lib.fc_project_get, auth, params)

    def user_current(self, auth=None, params=None):
        return self._typed(self._lib.fc_user_current, auth, params)

    def user_get(self, auth=None, params=None):
        return self._typed(self._lib.fc_user_get, auth, params)

    def branches_list(self, auth=None, params=None):
        return self._typed(self._lib.fc_branches_list, auth, params)

    def branch_get(self, auth=None, params=None):
        return self._typed(self._lib.fc_branch_get, auth, params)

    def branch_create(self, auth=None, params=None):
        return self._typed(self._lib.fc_branch_create, auth, params)

    def branch_delete(self, auth=None, params=None):
        return self._typed(self._lib.fc_branch_delete, auth, params)

    def branches_delete_merged(self, auth=None, params=None):
        return self._typed(self._lib.fc_branches_delete_merged, auth, params)

    def tags_list(self, auth=None, params=None):
        return self._typed(self._lib.fc_tags_list, auth, params)

    def tag_get(self, auth=None, params=None):
        return self._typed(self._lib.fc_tag_get, auth, params)

    def tag_create(self, auth=None, params=None):
        return self._typed(self._lib.fc_tag_create, auth, params)

    def tag_delete(self, auth=None, params=None):
        return self._typed(self._lib.fc_tag_delete, auth, params)

    def protected_branches_list(self, auth=None, params=None):
        return self._typed(self._lib.fc_protected_branches_list, auth, params)

    def protected_branch_get(self, auth=None, params=None):
        return self._typed(self._lib.fc_protected_branch_get, auth, params)

    def protected_branch_create(self, auth=None, params=None):
        return self._typed(self._lib.fc_protected_branch_create, auth, params)

    def protected_branch_delete(self, auth=None, params=None):
        return self._typed(self._lib.fc_protected_branch_delete, auth, params)

    def repository_archive(self, auth=None, params=None):
        """The archive as a streamed body (`format`, `sha`, `path`, `exclude_paths`,
        `include_lfs_blobs` as on the HTTP route)."""
        return self._typed(self._lib.fc_repository_archive, auth, params)

    def repository_archive_write(self, write, auth=None, params=None):
        """Hands the archive to `write(bytes)` piece by piece as it is produced; `write`
        returning False stops it. Returns the `Response` (200 and an empty body once every
        byte was written; an error response otherwise). An exception in `write` stops the
        archive and is raised again here."""
        raised = []

        def callback(_user_data, data, length):
            try:
                return 0 if write(ctypes.string_at(data, length)) is not False else 1
            except BaseException as error:  # re-raised below, outside the C frames
                raised.append(error)
                return 1

        c_callback = _native.WRITE_FN(callback)
        response = self._wrap(self._call(self._lib.fc_repository_archive_write, _json_arg(auth),
                                         _json_arg(params), c_callback, None))
        if raised:
            raise raised[0]
        return response
