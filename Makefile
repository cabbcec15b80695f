# rummy500 — the two commands a newcomer needs are `make play` and `make test`.
# Both create the virtual environment in .venv on first use (only python3 is required).
#
# make play installs the base only (the engine, the command line, the terminal game and the
# table server with SQLite) and starts the browser game's server; the terminal game is then
# `.venv/bin/rummy500 play`. make test adds the extras and the test tools to the same .venv.
# Each install has its stamp, redone when pyproject.toml changes: installing the base into a
# full .venv removes nothing, and make test after make play only adds what is missing.
# make test also checks the browser game's scripts with the machine's Node.js: npm ci puts the
# dev tools of package-lock.json into node_modules (stamped, redone when the lock changes), then
# ESLint (make lint-js) and node's own test runner over tests/js (make test-js) run before pytest,
# whose browser tests include the axe-core audit and the hand played with the keyboard alone.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PLAY_STAMP := $(VENV)/.installed-play
TEST_STAMP := $(VENV)/.installed-test
# The browser game's dev tools from npm (package.json: ESLint, preact-render-to-string for the
# unit tests, axe-core), redone when the lock changes
NODE_STAMP := node_modules/.installed

LOCALE := src/rummy500/locale
POT    := $(LOCALE)/rummy500.pot

.DEFAULT_GOAL := help

.PHONY: help venv venv-test play test lint lint-js test-js format docs schemas messages clean distclean
.PHONY: wheels test-compiled

# The compiled build (docs/compiled.md): the compiled wheel's own virtual environment, whose test
# tools are .venv's (a .pth file appends .venv's site-packages to its path)
COMPILED := .venv-compiled

help:
	@echo "make play      install the base into .venv if needed and start the browser game's server"
	@echo "               (http://localhost:8500/; the terminal game: .venv/bin/rummy500 play)"
	@echo "make cluster   PostgreSQL, 2 server processes and HAProxy on http://localhost:8500/ (Ctrl-C stops)"
	@echo "make test      install everything into .venv (and npm's dev tools into node_modules) if"
	@echo "               needed; lint, format check, type check, ESLint, the scripts' unit tests"
	@echo "               (node --test tests/js/) and all the Python and browser tests"
	@echo "make venv      only install what make play needs (make venv-test: what make test needs)"
	@echo "make lint      ruff check and ruff format --check"
	@echo "make lint-js   ESLint over the browser game's scripts (src/rummy500/web/js, tests/js)"
	@echo "make test-js   the unit tests of the browser game's pure modules (node --test tests/js/)"
	@echo "make format    ruff format and ruff check --fix"
	@echo "make docs      build the documentation site and API reference into site/ (open site/index.html)"
	@echo "make schemas   write the JSON Schemas of docs/schemas/ from the code's models"
	@echo "make messages  extract translatable messages into $(POT)"
	@echo "make wheels    the sdist, the compiled wheel built from it (mypyc) and the pure wheel, in dist/"
	@echo "make test-compiled  the engine, notation, bots and replay tests and the differential check"
	@echo "               on the compiled wheel of dist/, installed into $(COMPILED)"
	@echo "make clean     remove caches and build outputs (make distclean also removes .venv)"

venv: $(PLAY_STAMP)

venv-test: $(TEST_STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# The base: what playing needs (about 125 MB with pip itself).
$(PLAY_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	@touch $@

# Everything: the base, the extras sim, postgres, research and train, and the test and docs tools.
# PyTorch (the train extra, for examples/train_masked_pg.py) comes from PyTorch's CPU index, pinned:
# PyPI's Linux wheel is the CUDA build, several GB. Without that index (offline), the training
# example's test is skipped rather than the CUDA build downloaded; the rest never needs PyTorch.
$(TEST_STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --index-url https://download.pytorch.org/whl/cpu \
		'torch==2.13.0' || echo "PyTorch's CPU wheel is unavailable: the training example's test is skipped"
	$(BIN)/python -m pip install -e '.[dev,sim,postgres,research]'
	@touch $@ $(PLAY_STAMP)

play: $(PLAY_STAMP)
	$(BIN)/rummy500 serve $(ARGS)

# A site of several processes on loopback: PostgreSQL, 2 server processes and HAProxy on
# http://localhost:8500/ (make cluster ARGS="--processes 3"; ARGS="--host 0.0.0.0" also prints
# the address for the other devices of the network); Ctrl-C stops them all.
.PHONY: cluster
cluster: $(TEST_STAMP) test-deps
	$(BIN)/rummy500 cluster $(ARGS)

test: $(TEST_STAMP) test-deps $(NODE_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	npx --no-install eslint src/rummy500/web/js tests/js eslint.config.js
	node --test tests/js/
	$(BIN)/mypy src/rummy500/engine
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet --site-dir site
	$(MAKE) --no-print-directory wheels
	RUMMY500_WHEEL="$$(ls dist/rummy500-*-cp3*.whl)" $(BIN)/pytest -n auto --durations=25
	$(MAKE) --no-print-directory test-compiled

# PostgreSQL for the server's storage tests, which start a throw-away cluster of their own
# (initdb + pg_ctl under a temporary folder, on loopback). Installed with apt-get when missing.
.PHONY: test-deps
test-deps:
	@if ls /usr/lib/postgresql/*/bin/pg_ctl >/dev/null 2>&1 || command -v pg_ctl >/dev/null 2>&1; then \
		:; \
	elif command -v apt-get >/dev/null 2>&1; then \
		echo "Installing PostgreSQL (for the server's storage tests)"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && \
		$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null; \
	else \
		echo "PostgreSQL is missing and apt-get is not available: its storage tests are skipped"; \
	fi
	@# Debian's HAProxy for the cluster tests (PostgreSQL, server processes and HAProxy on loopback)
	@if command -v haproxy >/dev/null 2>&1 || [ -x /usr/sbin/haproxy ]; then \
		:; \
	elif command -v apt-get >/dev/null 2>&1; then \
		echo "Installing HAProxy (for the cluster tests)"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && \
		$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >/dev/null; \
	else \
		echo "haproxy is missing and apt-get is not available: the cluster tests are skipped"; \
	fi
	@# Debian's chromium for the browser game's tests (Playwright drives it; no browser download)
	@if [ -x /usr/bin/chromium ]; then \
		:; \
	elif command -v apt-get >/dev/null 2>&1; then \
		echo "Installing chromium (for the browser game's tests)"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && \
		$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	else \
		echo "chromium is missing and apt-get is not available: the browser tests are skipped"; \
	fi
	@# Node.js for the JavaScript example bot (examples/bots/bot.js, run against bot-match), and
	@# npm for the browser game's dev tools (ESLint, axe-core: package.json)
	@if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then \
		:; \
	elif command -v apt-get >/dev/null 2>&1; then \
		if command -v node >/dev/null 2>&1; then PKGS=npm; else PKGS="nodejs npm"; fi; \
		echo "Installing $$PKGS (for the JavaScript example bot's test and the browser game's lint)"; \
		if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
		$$SUDO apt-get update -qq && \
		$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$PKGS >/dev/null; \
	else \
		echo "node is missing and apt-get is not available: the JavaScript bot's test is skipped"; \
	fi

# npm ci: exactly the versions of package-lock.json (ESLint; preact-render-to-string, which the unit
# tests of tests/js use with web/vendor's Preact; axe-core, read by the accessibility tests from
# node_modules/axe-core), never anything the game itself loads.
$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

lint-js: $(NODE_STAMP)
	npx --no-install eslint src/rummy500/web/js tests/js eslint.config.js

test-js: $(NODE_STAMP)
	node --test tests/js/

lint: $(TEST_STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(TEST_STAMP)
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

# The documentation site, API reference from the docstrings (mkdocs.yml). --strict: a broken
# link between pages or a docstring reference to nothing fails the build.
docs: $(TEST_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --site-dir site

# The JSON Schemas of docs/schemas/, from the pydantic models of the messages (make test checks
# that the checked-in files are current).
schemas: $(PLAY_STAMP)
	$(BIN)/python -m rummy500.schemas --out docs/schemas

messages: $(TEST_STAMP)
	$(BIN)/pybabel extract -F babel.cfg \
		-k _ -k N_ -k ngettext:1,2 \
		--add-comments=TRANSLATORS: \
		--project=rummy500 --version=0.1.0 \
		--copyright-holder="The rummy500 authors" \
		-o $(POT) src/rummy500
	@# Every shipped language's catalog follows the template, then is compiled (the .mo files
	@# are committed; tests/test_i18n.py checks that they are current and complete).
	for po in $(LOCALE)/*/LC_MESSAGES/rummy500.po; do \
		lang=$$(basename $$(dirname $$(dirname $$po))); \
		$(BIN)/pybabel update --no-fuzzy-matching --ignore-obsolete -D rummy500 -i $(POT) \
			-d $(LOCALE) -l $$lang || exit 1; \
	done
	$(BIN)/pybabel compile --statistics -D rummy500 -d $(LOCALE)

# python -m build: the sdist, then the compiled wheel from it (RUMMY500_BUILD=compiled: failing to
# compile is an error here, where a user's install falls back to the pure build), then the pure
# wheel. --no-isolation: the build tools are .venv's (the dev extra), nothing is downloaded.
# MYPYC_OPT_LEVEL=1 builds faster for a trial (the release's is mypyc's 3). The compiled wheel is
# profile-guided with GCC (hatch_build.py; RUMMY500_PGO=0: compiled once, without a profile).
wheels: $(TEST_STAMP)
	rm -rf dist
	RUMMY500_BUILD=compiled $(BIN)/python -m build --no-isolation --outdir dist .
	RUMMY500_BUILD=pure $(BIN)/python -m build --no-isolation --wheel --outdir dist .

# The tests of the layers the compiled build changes, on it: engine, notation (records replayed)
# and bots, and the differential check of tests/test_builds.py (which the pure run skips).
# test_random_play's 2,016 hands of invariant checks run once, on the pure build: the
# differential check compares the compiled build with the pure one move by move. test_schemas
# compares docs/schemas with the installed package's, which is the source tree's only in .venv.
test-compiled: $(TEST_STAMP)
	test -x $(COMPILED)/bin/python || $(PYTHON) -m venv $(COMPILED)
	$(BIN)/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))' \
		> "$$($(COMPILED)/bin/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/rummy500-test-tools.pth"
	$(COMPILED)/bin/python -m pip install --quiet --no-deps --force-reinstall dist/rummy500-*-cp3*.whl
	$(COMPILED)/bin/python -m rummy500 --version | grep -q "compiled with mypyc"
	$(COMPILED)/bin/python -m pytest -n auto -p no:cacheprovider -m "not slow" \
		tests/engine tests/notation tests/bots tests/test_builds.py tests/envs/test_openspiel.py \
		--ignore tests/engine/test_random_play.py --ignore tests/bots/test_schemas.py

clean:
	rm -rf build dist .pytest_cache .mypy_cache .ruff_cache .hypothesis .coverage htmlcov
	find . -path ./$(VENV) -prune -o \( -name __pycache__ -o -name '*.egg-info' \) -type d -print \
		| xargs rm -rf

distclean: clean
	rm -rf $(VENV) $(COMPILED) node_modules
