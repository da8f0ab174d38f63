# forgecore: build, serve, test and benchmark from a fresh checkout.
#   make run    build, then serve the API on 127.0.0.1 with this checkout as a public demo project
#   make test   every test: Rust, the header, C (also under AddressSanitizer), Python
#   make bench  in-process operations against the git CLI, and the Python host's throughput
#               (and requests per second through the Go and Python hosts)

CARGO  ?= cargo
GO     ?= go
PYTHON ?= python3
HOST   ?= 127.0.0.1
PORT   ?= 8080
VENV   := .venv
VPY    := $(VENV)/bin/python
LIBDIR := $(CURDIR)/target/debug

export FORGECORE_LIB := $(LIBDIR)/libforgecore.so

.PHONY: build run test test-rust test-header test-c test-python bench venv clean
.PHONY: build-go test-go bench-go

build: build-go
	$(CARGO) build

run: build
	mkdir -p .run/repos
	ln -sfn $(CURDIR) .run/repos/forgecore
	PYTHONPATH=bindings/python $(PYTHON) -m forgecore serve --listen $(HOST):$(PORT) \
		--data-dir .run/data --repos .run/repos --print-admin-token

test: test-rust test-header test-c test-python test-go

test-rust:
	$(CARGO) test

# build.rs regenerates include/forgecore.h; a committed header that differs is drift.
test-header: build
	git diff --exit-code -- include/forgecore.h
	$(MAKE) -C examples/c header-check

test-c: build
	$(MAKE) -C examples/c test LIBDIR=$(LIBDIR)

$(VPY): bindings/python/requirements-test.txt
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --quiet --disable-pip-version-check -r bindings/python/requirements-test.txt
	touch $(VPY)

venv: $(VPY)

test-python: build $(VPY)
	PYTHONPATH=bindings/python $(VPY) -m pytest -q tests/python

bench: $(VPY) bench-go
	$(CARGO) build --release
	$(CARGO) run --release --quiet --example bench
	PYTHONPATH=bindings/python FORGECORE_LIB=$(CURDIR)/target/release/libforgecore.so \
		$(VPY) examples/bench/python_host.py

# The Go binding links target/debug/libforgecore.a (see bindings/go/native.go): the Go host
# binary needs no .so at run time. Modules come from the Go module proxy, pinned by go.sum.
build-go:
	$(CARGO) build
	cd bindings/go && $(GO) build ./... && $(GO) build -o $(LIBDIR)/forgecore-http ./cmd/forgecore-http
	cd examples/go && $(GO) build -o $(LIBDIR)/forgecore-example .

# -count=1: the tests read files go test does not track (fixture scripts, git repositories).
test-go: build-go
	cd bindings/go && $(GO) vet ./... && $(GO) test -race -count=1 ./...
	cd examples/go && $(GO) vet ./... && $(GO) test -race -count=1 ./...

# Requests per second through the Go host (linked with the release library: CGO_LDFLAGS puts
# target/release first on the link line) and the Python host, on loopback, bounded in time.
bench-go:
	$(CARGO) build --release
	cd bindings/go && CGO_LDFLAGS="-L$(CURDIR)/target/release" $(GO) build -o $(CURDIR)/target/release/forgecore-http ./cmd/forgecore-http
	cd bindings/go && $(GO) build -o $(CURDIR)/target/release/forgecore-bench ./cmd/forgecore-bench
	PYTHONPATH=bindings/python FORGECORE_LIB=$(CURDIR)/target/release/libforgecore.so \
		target/release/forgecore-bench -go-host target/release/forgecore-http -python $(PYTHON)

clean:
	$(CARGO) clean
	rm -rf .run $(VENV) .bench
