# The four commands of the EvidenceDesk course site. Each sets up .venv from requirements.lock first.
export NO_MKDOCS_2_WARNING := 1
export DISABLE_MKDOCS_2_WARNING := true
PYTHON ?= $(shell command -v python3.11 2>/dev/null || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
READY := $(VENV)/.ready

.PHONY: site test serve accept clean

site: $(READY)  ## build the site into site/, running and verifying every block; then check every block is marked verified
	$(BIN)/mkdocs build --strict
	$(BIN)/python -m sitebuild marks

test: $(READY)  ## pytest on tests/: the site, a strict build of the real site, the browser, and the kit's tests in a fresh install of the download; one worker per CPU, plus one
	PYTHONHASHSEED=0 $(BIN)/python -m pytest -n auto --dist loadfile --no-loadscope-reorder

serve: $(READY)  ## live preview on http://127.0.0.1:8000 with fresh outputs on every save
	$(BIN)/mkdocs serve --no-strict --dev-addr 127.0.0.1:8000

accept: $(READY)  ## approve new and changed block outputs in data/, drop stale ones, print what changed
	$(BIN)/python -m sitebuild accept

$(READY): requirements.lock pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11 or newer is needed; found " + sys.version.split()[0] + ". Run: make PYTHON=/path/to/python3.11")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -r requirements.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps --no-build-isolation -e .
	@# pytest rewrites the asserts of its plugins' packages (Hypothesis, xdist) as it imports them and keeps the
	@# result in __pycache__, which blocks never write (PYTHONDONTWRITEBYTECODE). Fill that cache once, here, with
	@# a run that collects nothing (exit code 5): each `python -m pytest` block then starts in about 0.5 s, not 1.3 s.
	mkdir -p $(VENV)/pytest-warmup
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest --collect-only -q -p no:cacheprovider $(VENV)/pytest-warmup >/dev/null || test $$? -eq 5
	touch $(READY)

clean:  ## remove the venv, the built site and the serve cache
	rm -rf $(VENV) site .cache
