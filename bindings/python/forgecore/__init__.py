"""forgecore for Python: a thin carrier over the Rust core's C ABI. `core.Forgecore` opens an
instance and exposes every export; `wsgi` serves it to HTTP; `cli` is the command line. All
behaviour (routing, authentication, GitLab's answers) lives in the library, none here.
"""

from ._native import ABI_VERSION, LibraryError
from ._version import __version__
from .core import BodyStream, Forgecore, ForgecoreError, Response, log_to
from .wsgi import app_from_env, make_app

__all__ = ["ABI_VERSION", "LibraryError", "BodyStream", "Forgecore", "ForgecoreError", "Response", "__version__",
           "app_from_env", "make_app"]
