"""The ctypes binding of libforgecore: it finds the shared library, declares every export of
include/forgecore.h with its argument and result types, and refuses a library whose C ABI
version differs from ``ABI_VERSION``. It owns nothing else: no JSON, no HTTP, no memory
management beyond the declarations (``core`` frees what it gets). The library is loaded with
``ctypes.CDLL``, so the GIL is released during every call and threads can call in at once.
"""

import ctypes
import os
import threading
from pathlib import Path

ABI_VERSION = 2
"""The FC_ABI_VERSION this package was written against."""

LIBRARY_NAME = "libforgecore.so"


class fc_ctx(ctypes.Structure):
    """Opaque `fc_ctx`."""


class fc_response(ctypes.Structure):
    """Opaque `fc_response`."""


CTX_P = ctypes.POINTER(fc_ctx)
RESPONSE_P = ctypes.POINTER(fc_response)
CALL_P = ctypes.c_void_p
"""An `fc_call *`: opaque, only handed back to the core."""
BYTES_P = ctypes.POINTER(ctypes.c_uint8)
WRITE_FN = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, BYTES_P, ctypes.c_size_t)
"""`int32_t (*write)(void *user_data, const uint8_t *data, size_t len)` of fc_repository_archive_write."""

# name: (restype, argtypes), in the header's order.
_EXPORTS = {
    "fc_repository_archive": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_repository_archive_write": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p, WRITE_FN,
                                                 ctypes.c_void_p]),
    "fc_call_open": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                  ctypes.POINTER(CALL_P)]),
    "fc_call_write": (RESPONSE_P, [CALL_P, ctypes.c_char_p, ctypes.c_size_t]),
    "fc_call_finish": (RESPONSE_P, [CALL_P]),
    "fc_call_free": (None, [CALL_P]),
    "fc_abi_version": (ctypes.c_uint32, []),
    "fc_open": (RESPONSE_P, [ctypes.c_char_p, ctypes.POINTER(CTX_P)]),
    "fc_close": (None, [CTX_P]),
    "fc_request": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                ctypes.c_char_p, ctypes.c_size_t]),
    "fc_member_roles_list": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_member_roles_create": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_member_roles_update": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_member_roles_delete": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_admin": (RESPONSE_P, [CTX_P, ctypes.c_char_p]),
    "fc_repository_tree": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_repository_blob": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_repository_raw_blob": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_repository_contributors": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_repository_merge_base": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_repository_compare": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_changelog_generate": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_changelog_commit": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_repository_health": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_repository_commits": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_repository_commit": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_repository_commit_diff": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_repository_commit_refs": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_repository_commit_sequence": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_repository_commit_create": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_repository_file": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_repository_file_raw": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_repository_file_blame": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_repository_file_create": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_repository_file_update": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_repository_file_delete": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_projects_list": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_group_projects_list": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_project_get": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_user_current": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_user_get": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_branches_list": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_branch_get": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_branch_create": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_branch_delete": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_branches_delete_merged": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_tags_list": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_tag_get": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_tag_create": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_tag_delete": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_protected_branches_list": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_protected_branch_get": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_protected_branch_create": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_protected_branch_delete": (RESPONSE_P, [CTX_P, ctypes.c_char_p, ctypes.c_char_p]),
    "fc_response_status": (ctypes.c_uint16, [RESPONSE_P]),
    # c_void_p, not c_char_p: the text is borrowed, and core copies it with string_at.
    "fc_response_headers": (ctypes.c_void_p, [RESPONSE_P]),
    "fc_response_streamed": (ctypes.c_int32, [RESPONSE_P]),
    "fc_response_body": (BYTES_P, [RESPONSE_P, ctypes.POINTER(ctypes.c_size_t)]),
    "fc_response_read": (ctypes.c_ssize_t, [RESPONSE_P, ctypes.c_void_p, ctypes.c_size_t]),
    "fc_response_free": (None, [RESPONSE_P]),
}


class LibraryError(ImportError):
    """The library cannot be found or loaded, or its ABI version is not ours."""


def library_path():
    """`FORGECORE_LIB` if set; else the library bundled in this package (a wheel carries the
    release build next to these modules); else target/debug then target/release of the checkout
    this package sits in."""
    explicit = os.environ.get("FORGECORE_LIB")
    if explicit:
        return Path(explicit)
    bundled = Path(__file__).resolve().parent / LIBRARY_NAME
    if bundled.is_file():
        return bundled
    repo = Path(__file__).resolve().parents[3]
    candidates = [repo / "target" / profile / LIBRARY_NAME for profile in ("debug", "release")]
    for candidate in candidates:
        if candidate.is_file():
            return candidate
    raise LibraryError(
        f"{LIBRARY_NAME} not found (looked at {', '.join(map(str, [bundled] + candidates))}); "
        "install the forgecore wheel, run `cargo build` in the checkout, or set FORGECORE_LIB"
    )


_loaded = {}
_lock = threading.Lock()


def _declare(lib):
    for name, (restype, argtypes) in _EXPORTS.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    return lib


def load(path=None):
    """The declared library at `path` (default: `library_path()`), loaded once per path.

    Raises LibraryError when it is missing or when `fc_abi_version()` != `ABI_VERSION`.
    """
    path = str(path or library_path())
    with _lock:
        lib = _loaded.get(path)
        if lib is None:
            try:
                lib = _declare(ctypes.CDLL(path))
            except (OSError, AttributeError) as error:
                raise LibraryError(f"cannot load {path}: {error}") from error
            _loaded[path] = lib
    found = lib.fc_abi_version()
    if found != ABI_VERSION:
        raise LibraryError(
            f"{path} has C ABI version {found}, but this forgecore package needs {ABI_VERSION}; "
            "rebuild the library or use the matching Python package"
        )
    return lib
