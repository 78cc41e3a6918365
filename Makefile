# Trainwreck: `make site` builds the site, `make serve` previews it, `make test` runs every test.
# Each target sets up .venv from the pinned requirements.txt on first use.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export NO_MKDOCS_2_WARNING := 1

.PHONY: all check site serve test lint fmt bench golden readme lock venv clean

all: check

venv: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

site: $(STAMP)
	$(BIN)/trainwreck build
	$(BIN)/mkdocs build --strict --quiet
	@echo "Site built in site/ (publish that folder). Preview it with 'make serve' at http://127.0.0.1:8000/trainwreck/"

serve: $(STAMP)
	$(BIN)/trainwreck build
	$(BIN)/mkdocs serve --dirty --livereload

test: $(STAMP)
	$(BIN)/python -m pytest -q
	node --test tests/js/

lint: $(STAMP)
	$(BIN)/ruff check generator tests benchmarks scripts
	$(BIN)/ruff format --check generator tests benchmarks scripts
	$(BIN)/trainwreck fmt --check

check: lint test

fmt: $(STAMP)
	$(BIN)/ruff format generator tests benchmarks scripts
	$(BIN)/ruff check --fix generator tests benchmarks scripts

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

golden: $(STAMP)
	$(BIN)/python tests/update_golden.py

readme: $(STAMP)
	$(BIN)/python scripts/corpus_stats.py --write
	$(BIN)/trainwreck export schema > entries/entry.schema.json

lock: $(STAMP)
	( echo "# Fully pinned from requirements.in by \`make lock\`. Do not edit by hand."; \
	  $(BIN)/python -m pip freeze --all --exclude-editable | grep -v "^pip==" ) > requirements.txt

clean:
	rm -rf build site .pytest_cache
