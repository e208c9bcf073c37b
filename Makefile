# colabench: `make run` sets everything up and runs the main job; `make test` runs the test suite.
SHELL := /bin/bash
ROOT := $(abspath .)
VENV = $(shell $(ROOT)/scripts/setup_env.sh)
PY = $(VENV)/bin/python
export PYTHONPATH := $(ROOT)
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: setup run test lint docs bench bench-peer smoke-llm

setup:
	@$(ROOT)/scripts/setup_env.sh >/dev/null
	@$(ROOT)/scripts/setup_system.sh

run: setup
	@$(ROOT)/scripts/main_job.sh

test: setup
	@$(ROOT)/scripts/setup_system.sh --with-browser
	@$(ROOT)/scripts/run_tests.sh

lint: setup
	$(VENV)/bin/ruff check .
	env -u PYTHONPATH $(VENV)/bin/mypy graph ingest query api agents cli

# The documentation site (mkdocs.yml, docs/) into site/ (git-ignored); its own small venv (requirements-docs.lock).
docs:
	@$(ROOT)/scripts/build_docs.sh

bench: setup
	@for b in bench/bench_*.py; do echo "== $$b"; $(PY) $$b || exit 1; done

# Retrieval side by side with neo4j-graphrag (a benchmark-only extra: requirements-bench.lock, own venv).
# BENCH_PEER_ARGS, e.g. "--subset sample --questions 1000", passes options to bench/bench_peer_retrieval.py.
bench-peer: setup
	@$$($(ROOT)/scripts/setup_bench_env.sh)/bin/python bench/bench_peer_retrieval.py $(BENCH_PEER_ARGS)

# Plumbing smoke test against a real llama-server (built once, 7-20 min); not part of `make test`.
smoke-llm: setup
	@$(ROOT)/scripts/smoke_llm.sh
