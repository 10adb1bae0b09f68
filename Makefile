# The two commands a newcomer needs: `make serve` and `make test`. Everything they need is
# installed from this repository's own files; stamps make reruns fast.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
export NO_MKDOCS_2_WARNING := 1

.PHONY: serve build test test-profile bench bundle scorm lms chromium engines setup models clean
.DEFAULT_GOAL := serve

# uv installs the pinned dependencies in seconds where pip takes about 18 (site) and 17 (tests),
# and the site's install is on the way to the first build's training. Should uv fail, pip does it.
UV_VERSION := 0.13.9
INSTALL = $(PY) -m uv pip install --quiet --python $(PY) $(1) || $(PY) -m pip install --quiet $(1)

$(VENV)/bin/python:
	python3 -m venv $(VENV)

$(VENV)/.uv: | $(VENV)/bin/python
	$(PY) -m pip install --quiet uv==$(UV_VERSION) || true
	touch $@

$(VENV)/.site-deps: pyproject.toml | $(VENV)/.uv
	$(call INSTALL,-e .)
	touch $@

$(VENV)/.test-deps: pyproject.toml $(VENV)/.site-deps
	$(call INSTALL,-e '.[test]')
	touch $@

node_modules/.installed: package.json package-lock.json
	PUPPETEER_SKIP_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error
	touch $@

build/assets/vendor/.stamp: node_modules/.installed $(VENV)/.site-deps py/seqbuild/vendor.py
	$(PY) -m seqbuild.vendor

setup: build/assets/vendor/.stamp

build: setup
	$(VENV)/bin/mkdocs build --strict

serve: setup
	@echo "Serving the site at http://$(HOST):$(PORT)/ (Ctrl+C stops it)"
	$(VENV)/bin/mkdocs serve --strict --dev-addr $(HOST):$(PORT)

chromium:
	@test -x /usr/bin/chromium || { apt-get update && apt-get install -y chromium; }

# The cross-engine suite (tests/test_engines.py): Firefox driven over WebDriver BiDi by
# puppeteer-core (no geckodriver, no browser download), WebKitGTK's MiniBrowser by
# WebKitWebDriver under a virtual X display. One apt command at a time: two at once fail on
# the dpkg lock.
engines: chromium
	@test -x /usr/bin/firefox-esr && test -x /usr/bin/WebKitWebDriver && test -x /usr/bin/xvfb-run \
	  && test -x /usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser \
	  || { apt-get update && apt-get install -y firefox-esr webkit2gtk-driver xvfb; }

# The installs first, side by side where they do not depend on each other (npm ci while pip
# installs, the browsers from Debian meanwhile). Then the suite in WORKERS processes: tests that
# share a module fixture stay on one worker (--dist loadgroup, groups set in tests/conftest.py),
# every other test goes to whichever is free; the site is built once and shared.
WORKERS ?= 3
PYTEST_ARGS ?=
test:
	$(MAKE) --no-print-directory -j3 setup $(VENV)/.test-deps engines models
	$(PY) -m pytest -n $(WORKERS) --dist loadgroup --durations=15 $(PYTEST_ARGS)

# The same suite, then the CPU seconds each file and test cost (tests/cpu_profile.py): the suite
# keeps both cores busy, so what a test costs, not how long it waited, says where time goes.
test-profile:
	$(MAKE) --no-print-directory -j3 setup $(VENV)/.test-deps engines models
	$(PY) -m pytest -n $(WORKERS) --dist loadgroup --cpu-profile $(PYTEST_ARGS)

# The first build's training (what the labs declare as TRAINED: about 80 s on two cores), here so
# that make test runs it beside npm ci and the test dependencies instead of holding up every
# worker's first build. A no-op while the stamps match.
models: $(VENV)/.site-deps
	$(PY) -m seqbuild.models

bundle: build
	$(PY) -m seqbuild.package site dist/sequences-before-transformers.zip

scorm: build
	$(PY) -m seqbuild.scorm site dist

# Native quizzes (Canvas QTI, Moodle XML), a Common Cartridge of links and two PDFs. The
# cartridge links to the deployed site: build with SITE_URL=https://<owner>.github.io/<repo>/.
$(VENV)/.lms-deps: pyproject.toml $(VENV)/.site-deps
	$(PY) -m pip install --quiet -e '.[lms]'
	touch $@

lms: build $(VENV)/.lms-deps chromium
	$(PY) -m seqbuild.lms site dist

clean:
	rm -rf site build dist

# Lighthouse (bench/package.json) is the bench's own: make test never installs it.
bench/node_modules/.installed: bench/package.json bench/package-lock.json
	PUPPETEER_SKIP_DOWNLOAD=1 npm ci --prefix bench --no-audit --no-fund --loglevel=error
	touch $@

bench: setup $(VENV)/.test-deps chromium bench/node_modules/.installed
	$(PY) bench/run.py
