#!/usr/bin/env bash
# make test-install: forgecore installed as users install it, then used with nothing but the
# installed files. The Makefile has built the release library and the wheel (dist/) once and
# runs this without FORGECORE_LIB and PYTHONPATH.
#
#  1. make install PREFIX=<a mktemp -d prefix> (and once more under a DESTDIR, to see it honoured)
#  2. C: examples/c/roles.c compiled with `pkg-config --cflags --libs forgecore` and run against
#     the shared library through its soname; once more linked with the static library and
#     `pkg-config --static --libs` (Libs.private), needing no libforgecore.so at all
#  3. Python: the wheel in a fresh venv, python-gitlab against `python -m forgecore serve` and
#     gunicorn from it (tests/install/smoke_python.py), from outside the checkout
#  4. Go: examples/go and bindings/go vetted, tested and built with -tags forgecore_system
#     against the installed library (pkg-config), the example served and asked /api/v4/version
#  5. make uninstall: no file of ours is left in the prefix
# Environment: MAKE, GO, PYTHON (the interpreter for the venv), WHEEL (the wheel to install),
# PIP_PINS (requirement lines for python-gitlab and gunicorn).
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
MAKE=${MAKE:-make}
GO=${GO:-go}
PYTHON=${PYTHON:-python3}
: "${WHEEL:?WHEEL names the wheel to install}"
unset FORGECORE_LIB PYTHONPATH

tmp=$(mktemp -d "${TMPDIR:-/tmp}/forgecore-test-install-XXXXXX")
prefix=$(mktemp -d "${TMPDIR:-/tmp}/forgecore-prefix-XXXXXX")
pids=()
cleanup() {
	for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
	rm -rf "$tmp" "$prefix"
}
trap cleanup EXIT
step() { echo "== test-install: $*"; }
fail() { echo "test-install: $*" >&2; exit 1; }

step "make install PREFIX=$prefix"
"$MAKE" -s -C "$root" install PREFIX="$prefix"
find "$prefix" \( -type f -o -type l \) -printf '  %P\n' | sort

step "DESTDIR is honoured"
"$MAKE" -s -C "$root" install DESTDIR="$tmp/destdir" PREFIX=/opt/forgecore
test -f "$tmp/destdir/opt/forgecore/include/forgecore.h" || fail "DESTDIR: no header under DESTDIR/PREFIX"
grep -qx 'prefix=/opt/forgecore' "$tmp/destdir/opt/forgecore/lib/pkgconfig/forgecore.pc" || fail "DESTDIR leaked into the .pc file"
"$MAKE" -s -C "$root" uninstall DESTDIR="$tmp/destdir" PREFIX=/opt/forgecore
test -z "$(find "$tmp/destdir" -type f -o -type l)" || fail "uninstall under DESTDIR left files"

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
version=$(pkg-config --modversion forgecore)
soname=$(readelf -d "$prefix/lib/libforgecore.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
echo "  pkg-config: forgecore $version; cflags $(pkg-config --cflags forgecore); libs $(pkg-config --libs forgecore)"
echo "  soname $soname"
[[ $soname =~ ^libforgecore\.so\.[0-9]+$ ]] || fail "the installed library's soname is '$soname'"

step "C: examples/c/roles.c through pkg-config, the shared library by its soname"
# shellcheck disable=SC2046 # pkg-config's flags are words
cc -std=c99 -Wall -Wextra -pedantic -Werror $(pkg-config --cflags forgecore) -o "$tmp/roles" \
	"$root/examples/c/roles.c" $(pkg-config --libs forgecore)
readelf -d "$tmp/roles" | grep -q "NEEDED.*\[$soname\]" || fail "roles does not need $soname"
LD_LIBRARY_PATH="$prefix/lib" "$tmp/roles" "$tmp/c-shared" >"$tmp/roles.log" 2>&1 || { cat "$tmp/roles.log" >&2; fail "roles failed"; }
echo "  roles: $(tail -1 "$tmp/roles.log")"
LD_LIBRARY_PATH="$prefix/lib" ldd "$tmp/roles" | grep -q "$prefix/lib/$soname" || fail "roles did not load $prefix/lib/$soname"

step "C: the static library with pkg-config --static (Libs.private)"
# shellcheck disable=SC2046
cc -std=c99 -Wall -Wextra -pedantic -Werror $(pkg-config --cflags forgecore) -o "$tmp/roles-static" \
	"$root/examples/c/roles.c" $(pkg-config --static --libs forgecore | sed 's/-lforgecore\b/-l:libforgecore.a/')
if readelf -d "$tmp/roles-static" | grep -q 'NEEDED.*libforgecore'; then fail "roles-static needs libforgecore.so"; fi
"$tmp/roles-static" "$tmp/c-static" >"$tmp/roles.log" 2>&1 || { cat "$tmp/roles.log" >&2; fail "roles-static failed"; }
echo "  roles-static: $(tail -1 "$tmp/roles.log")"

step "Python: $(basename "$WHEEL") in a fresh venv"
"$PYTHON" -m venv "$tmp/venv"
# shellcheck disable=SC2086 # PIP_PINS is a list of requirements
"$tmp/venv/bin/python" -m pip install --quiet --disable-pip-version-check "$WHEEL" ${PIP_PINS:-python-gitlab gunicorn}
(cd "$tmp" && "$tmp/venv/bin/python" "$root/tests/install/smoke_python.py" --gunicorn --checkout "$root")
(cd "$tmp" && "$tmp/venv/bin/forgecore" --help >/dev/null) || fail "the forgecore console script does not run"

step "Go: -tags forgecore_system against the installed library"
export LD_LIBRARY_PATH="$prefix/lib"
# Go's build cache keys a cgo package on neither pkg-config's answer nor the headers it
# includes from elsewhere: a package built against an earlier prefix would be linked with that
# prefix's -L. A checksum of the installed .pc file (it names the prefix) and header in
# CGO_CFLAGS, which the cache does key on, keeps each prefix's build apart (as the Makefile's
# GO_LIB_STAMP does for the checkout's library).
export CGO_CFLAGS="-O2 -g -DFORGECORE_INSTALL_STAMP=$(cat "$PKG_CONFIG_PATH/forgecore.pc" "$prefix/include/forgecore.h" | cksum | cut -d' ' -f1)"
(cd "$root/examples/go" && "$GO" vet -tags forgecore_system ./... && "$GO" test -tags forgecore_system -count=1 ./... \
	&& "$GO" build -tags forgecore_system -o "$tmp/forgecore-example" .)
(cd "$root/bindings/go" && "$GO" vet -tags forgecore_system ./... && "$GO" test -tags forgecore_system -count=1 ./...)
readelf -d "$tmp/forgecore-example" | grep -q "NEEDED.*\[$soname\]" || fail "the Go example does not need $soname"
port=$("$tmp/venv/bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$tmp/forgecore-example" -data-dir "$tmp/go-data" -listen "127.0.0.1:$port" >"$tmp/go-example.log" 2>&1 &
pids+=($!)
answer=""
for _ in $(seq 100); do
	answer=$(curl -fsS "http://127.0.0.1:$port/api/v4/version" 2>/dev/null) && break
	sleep 0.1
done
echo "  examples/go: GET /api/v4/version -> $answer"
[[ $answer == *"\"revision\":\"$version\""* ]] || { cat "$tmp/go-example.log" >&2; fail "the Go example answered '$answer'"; }
kill "${pids[@]}"; wait "${pids[@]}" 2>/dev/null || true; pids=()
unset LD_LIBRARY_PATH CGO_CFLAGS

step "make uninstall PREFIX=$prefix"
"$MAKE" -s -C "$root" uninstall PREFIX="$prefix"
left=$(find "$prefix" -type f -o -type l)
test -z "$left" || fail "make uninstall left: $left"
echo "  the prefix holds no file"
step "passed"
