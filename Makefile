# Two entry points for a fresh machine with Python 3.11 and make:
#   make demo   install into .venv, aggregate the run shipped in results/ and compare the 13 vendored real runs
#               into comparison/ (results/ keeps holding runs only, so that `aggregate results/*/` reads runs)
#   make test   install into .venv, lint (ruff), type-check (mypy --strict, [tool.mypy]) and run the whole test suite on two cores (pytest-xdist)
#   make test-all   the same with the slow tier (--run-slow: larger fuzz budgets, long inputs, the large simulation)
#   make mutation   mutation testing (mutmut) of the modules behind published numbers; report in mutation/report.md
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
DEMO_RUN := results/cr_n50_m1_v2__seed42
DEMO_RUNS := tests/fixtures/runs
DEMO_COMPARISON := comparison

.PHONY: demo test test-all mutation docs bench clean

# Packages are installed without compiling their modules (10 CPU-s, most never imported); Python compiles
# a module when it is first imported and keeps the bytecode, which is why it may write it here.
unexport PYTHONDONTWRITEBYTECODE

$(BIN)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --no-compile -e '.[test]'
	touch $@

demo: $(BIN)/.installed
	$(BIN)/aggregate $(DEMO_RUN)
	$(BIN)/aggregate compare $(DEMO_RUNS)/* --outdir $(DEMO_COMPARISON)

test: $(BIN)/.installed
	$(BIN)/ruff check aggregator scorecards tests benchmarks
	$(BIN)/mypy
	$(BIN)/python -m pytest -n 2 --dist loadgroup

test-all: $(BIN)/.installed
	$(BIN)/ruff check aggregator scorecards tests benchmarks
	$(BIN)/mypy
	$(BIN)/python -m pytest -n 2 --dist loadgroup --run-slow

mutation: $(BIN)/.installed
	$(BIN)/python -m pip install --quiet -e '.[mutation]'
	$(BIN)/python -m tests.mutation $(MODULES)

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
