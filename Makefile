# Two entry points for a fresh machine with Python 3.11 and make:
#   make demo   install into .venv, aggregate the run shipped in results/ and compare the 13 vendored real runs
#               into comparison/ (results/ keeps holding runs only, so that `aggregate results/*/` reads runs)
#   make test   install into .venv, lint (ruff), type-check (mypy --strict, [tool.mypy]) and run the whole test suite on two cores (pytest-xdist)
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
DEMO_RUN := results/cr_n50_m1_v2__seed42
DEMO_RUNS := tests/fixtures/runs
DEMO_COMPARISON := comparison

.PHONY: demo test docs bench clean

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@

demo: $(BIN)/.installed
	$(BIN)/aggregate $(DEMO_RUN)
	$(BIN)/aggregate compare $(DEMO_RUNS)/* --outdir $(DEMO_COMPARISON)

test: $(BIN)/.installed
	$(BIN)/ruff check aggregator scorecards tests benchmarks
	$(BIN)/mypy
	$(BIN)/python -m pytest -n 2

docs: $(BIN)/.installed
	$(BIN)/python -m aggregator.metrics.docs
	$(BIN)/python -m aggregator.run_warnings.docs

bench: $(BIN)/.installed
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	$(BIN)/python benchmarks/bench.py
	$(BIN)/python benchmarks/scanners.py
	$(BIN)/python benchmarks/bench_compare.py
	$(BIN)/python benchmarks/bench_grid.py
	$(BIN)/python benchmarks/bench_families.py
	$(BIN)/python benchmarks/bench_score.py

clean:
	rm -rf $(VENV) $(DEMO_RUN)/derived $(DEMO_COMPARISON)
