# Two entry points: `make demo` and `make test`. Each creates .venv on first use.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
NODE_STAMP := node_modules/.installed

.PHONY: demo test lint bench clean js chromium

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

test: $(STAMP) $(NODE_STAMP) chromium
	$(BIN)/ruff check indexer graphrag tests benchmarks examples
	$(BIN)/ruff format --check indexer graphrag tests benchmarks examples
	$(BIN)/mypy
	$(BIN)/pytest -q
	npx tsc --noEmit -p tsconfig.json
	npx vitest run

# The web page and the Obsidian plugin (TypeScript): `npm ci` with the committed lock file, then
# esbuild writes the bundles into the Python package (graphrag/serve/static, graphrag/serve/plugin),
# where pip users get them. Run after editing client/, web/ or obsidian-plugin/ and commit the
# bundles; a test fails while they differ from a fresh build.
$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund
	touch $(NODE_STAMP)

js: $(NODE_STAMP)
	npm run build

# Debian's Chromium for the page's browser test (playwright-core drives it; it never downloads
# a browser). Installed with apt-get, as root, only when missing.
chromium:
	@test -x /usr/bin/chromium || { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; }

lint: $(STAMP)
	$(BIN)/ruff check indexer graphrag tests benchmarks examples
	$(BIN)/ruff format --check indexer graphrag tests benchmarks examples
	$(BIN)/mypy

clean:
	rm -rf $(VENV) .demo-index
