"""The release of this package: the workspace version of Cargo.toml, the one version of forgecore.

setup.py refuses to build a wheel when the two differ, and the tests check that the library's
`GET /version` reports it as its `revision`.
"""

__version__ = "0.1.0"
