"""``--interval welch|banerjee``: every output that states the method states the one used, and the
numbers are those of that method."""

from __future__ import annotations

import json
from html import escape
from pathlib import Path

import polars as pl
import pytest

from aggregator.compare.api import compare_runs
from aggregator.compare.files import comparison_files
from aggregator.compare.paper import latex_escape
from aggregator.compare.result import COMBINED_BY
from aggregator.stats.intervals import METHODS
from tests.conftest import RUNS, run_cli

PICKED = [RUNS / "cr_n50_m0_v2__seed42", RUNS / "cr_n50_m0_v2__seed123", RUNS / "cr_n50_m2_v2__seed42",
          RUNS / "cr_n50_m2_v2__seed101", RUNS / "cr_n50_m2_v2__seed456"]


@pytest.mark.parametrize("method", METHODS)
def test_every_output_states_the_method_used(method: str) -> None:
    result = compare_runs(PICKED, resamples=300, interval=method)
    assert result.interval == method
    files = comparison_files(result, paper="ci")
    other = next(m for m in METHODS if m != method)
    for name in ("comparison.md", "paper.md", "paper.tex", "comparison_report.html"):
        text = files[name].decode()
        said = {"comparison_report.html": escape(COMBINED_BY[method]),
                "paper.tex": latex_escape(COMBINED_BY[method])}.get(name, COMBINED_BY[method])
        assert said in text, name
        assert all(form(COMBINED_BY[other]) not in text for form in (str, escape, latex_escape)), name
    payload = result.to_dict()
    assert payload["interval"] == method and COMBINED_BY[method] in str(payload["interval_method"])


def test_the_methods_differ_only_in_the_contrasts_and_banerjee_is_wider() -> None:
    welch, banerjee = (compare_runs(PICKED, resamples=300, interval=m) for m in METHODS)
    assert welch.conditions.equals(banerjee.conditions)  # a condition's mean: Banerjee's rule under both
    rows = welch.paired.join(banerjee.paired, on=["condition_a", "condition_b", "metric"], suffix="_b")
    rows = rows.drop_nulls("se").filter(pl.col("se") > 0)
    assert rows.height > 40
    assert (rows.get_column("delta") == rows.get_column("delta_b")).all()
    assert (rows.get_column("se") == rows.get_column("se_b")).all()
    width = rows.get_column("ci_high") - rows.get_column("ci_low")
    assert (width <= (rows.get_column("ci_high_b") - rows.get_column("ci_low_b")) * (1 + 1e-12)).all()
    assert (width < rows.get_column("ci_high_b") - rows.get_column("ci_low_b")).sum() > 20


def test_the_command_line_option(tmp_path: Path) -> None:
    done = run_cli("compare", *PICKED, "--interval", "banerjee", "--resamples", "200", "--json", "--outdir", tmp_path)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["interval"] == "banerjee"
    bad = run_cli("compare", *PICKED, "--interval", "bonferroni", "--outdir", tmp_path / "x")
    assert bad.returncode == 2 and "bonferroni" in bad.stderr and not (tmp_path / "x").exists()


def test_the_api_refuses_an_unknown_method() -> None:
    with pytest.raises(ValueError, match="interval must be one of welch, banerjee"):
        compare_runs(PICKED, resamples=10, interval="bonferroni")
