# Two entry points: `make demo` and `make test`. Each creates .venv on first use.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	# torch first, pinned: on these machines 2.13.0 is a local CPU wheel; an unpinned
	# torch pulled in by sentence-transformers would be a multi-GB CUDA download.
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/vault-graphrag index sample_vault --index-dir .demo-index
	$(BIN)/vault-graphrag focus "Shepherd's Hut" --vault sample_vault --index-dir .demo-index --budget 800 --prompt

test: $(STAMP)
	$(BIN)/ruff check indexer graphrag tests benchmarks examples
	$(BIN)/pytest -q

lint: $(STAMP)
	$(BIN)/ruff check indexer graphrag tests benchmarks examples
	$(BIN)/ruff format --check indexer graphrag tests benchmarks examples

clean:
	rm -rf $(VENV) .demo-index
