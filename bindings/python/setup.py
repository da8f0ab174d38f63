"""The wheel's two additions to pyproject.toml: the compiled library inside the package, and
the platform tag that says so.

The library is `FORGECORE_WHEEL_LIB`, by default the release build of the checkout this
directory sits in (`make wheel` builds it first); it is copied into the built package as
forgecore/libforgecore.so, where `forgecore._native` looks before anything but FORGECORE_LIB.
The wheel is tagged py3-none-<platform>: the library is native code for one platform but does
not depend on the Python ABI (ctypes loads it), as wasmtime-py's wheels are.

When the checkout's Cargo.toml is there, a version of forgecore/_version.py that differs from
its workspace version refuses the build: forgecore has one version number.
"""

import os
import re
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_py import build_py
from setuptools.dist import Distribution

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parents[1]


def package_version():
    text = (HERE / "forgecore" / "_version.py").read_text(encoding="utf-8")
    return re.search(r'^__version__ = "([^"]+)"', text, re.M).group(1)


def cargo_version():
    cargo = CHECKOUT / "Cargo.toml"
    if not cargo.is_file():
        return None
    section = None
    for line in cargo.read_text(encoding="utf-8").splitlines():
        header = re.match(r"^\[(.+)\]\s*$", line)
        if header:
            section = header.group(1)
        elif section == "workspace.package":
            match = re.match(r'^version\s*=\s*"([^"]+)"', line)
            if match:
                return match.group(1)
    raise SystemExit(f"{cargo}: no version in [workspace.package]")


class BuildWithLibrary(build_py):
    def run(self):
        super().run()
        library = Path(os.environ.get("FORGECORE_WHEEL_LIB") or CHECKOUT / "target" / "release" / "libforgecore.so")
        if not library.is_file():
            raise SystemExit(f"{library} is missing: run `make wheel` (or cargo build --release), or set FORGECORE_WHEEL_LIB")
        shutil.copyfile(library, Path(self.build_lib) / "forgecore" / "libforgecore.so")


class PlatformWheel(bdist_wheel):
    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        _, _, platform = super().get_tag()
        return "py3", "none", platform


class BinaryDistribution(Distribution):
    def has_ext_modules(self):
        return True


cargo = cargo_version()
if cargo is not None and cargo != package_version():
    raise SystemExit(f"forgecore/_version.py says {package_version()} but Cargo.toml says {cargo}: "
                     "set one version (Cargo.toml's [workspace.package]) in both")

setup(cmdclass={"build_py": BuildWithLibrary, "bdist_wheel": PlatformWheel}, distclass=BinaryDistribution)
