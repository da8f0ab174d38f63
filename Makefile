# forgecore: build, serve, test and benchmark from a fresh checkout.
#   make run    build, then serve the API on 127.0.0.1 with this checkout as a public demo project
#   make test   every test: Rust, the header, C (also under AddressSanitizer), Python
#   make bench  in-process operations against the git CLI, and the Python host's throughput

CARGO  ?= cargo
PYTHON ?= python3
HOST   ?= 127.0.0.1
PORT   ?= 8080
VENV   := .venv
VPY    := $(VENV)/bin/python
LIBDIR := $(CURDIR)/target/debug

export FORGECORE_LIB := $(LIBDIR)/libforgecore.so

.PHONY: build run test test-rust test-header test-c test-python bench venv clean

build:
	$(CARGO) build

run: build
	mkdir -p .run/repos
	ln -sfn $(CURDIR) .run/repos/forgecore
	PYTHONPATH=bindings/python $(PYTHON) -m forgecore serve --listen $(HOST):$(PORT) \
		--data-dir .run/data --repos .run/repos --print-admin-token

test: test-rust test-header test-c test-python

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

bench: $(VPY)
	$(CARGO) build --release
	$(CARGO) run --release --quiet --example bench
	PYTHONPATH=bindings/python FORGECORE_LIB=$(CURDIR)/target/release/libforgecore.so \
		$(VPY) examples/bench/python_host.py
	PYTHONPATH=bindings/python FORGECORE_LIB=$(CURDIR)/target/release/libforgecore.so \
		$(VPY) examples/bench/archive_memory.py

clean:
	$(CARGO) clean
	rm -rf .run $(VENV) .bench
