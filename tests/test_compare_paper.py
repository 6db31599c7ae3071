"""The paper table: the numbers of conditions.csv and paired.csv, markers, bold, caption, LaTeX that compiles."""

from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from aggregator.compare.api import compare_runs
from aggregator.compare.paper import latex_escape, marker, paper_files, paper_table
from aggregator.compare.result import COMBINED_BY
from tests.conftest import RUNS

if TYPE_CHECKING:
    from aggregator.compare.result import ComparisonResult

METRICS = ["tuple_f1_s2_otepol", "delta_f1_otepol", "tuple_f1_s2_otepol_micro", "ref_fill_rate_s2"]


@pytest.fixture(scope="module")
def result() -> ComparisonResult:
    return compare_runs(sorted(RUNS.iterdir()), resamples=500, metrics=METRICS)


def test_paper_csv_holds_the_numbers_of_conditions_and_paired(result: ComparisonResult) -> None:
    rows = list(csv.DictReader(io.StringIO(paper_files(result, "sd")["paper.csv"].decode())))
    assert [r["condition"] for r in rows] == [result.baseline] + [c for c in result.conditions_order
                                                                   if c != result.baseline]
    conditions = {(r["condition"], r["metric"]): r for r in result.conditions.iter_rows(named=True)}
    paired = {(r["condition_b"], r["metric"]): r for r in result.paired.iter_rows(named=True)}
    for row in rows:
        for metric in METRICS:
            summary = conditions[(row["condition"], metric)]
            for field in ("mean", "sd", "ci_low", "ci_high"):
                assert row[f"{metric}_{field}"] == ("" if summary[field] is None else repr(summary[field]))
            delta = paired.get((row["condition"], metric))
            assert row[f"{metric}_delta"] == ("" if delta is None or delta["delta"] is None else repr(delta["delta"]))
            assert row[f"{metric}_p"] == ("" if delta is None or delta["p_value"] is None else repr(delta["p_value"]))


def test_markers_bold_and_caption(result: ComparisonResult) -> None:
    assert (marker(0.0004), marker(0.004), marker(0.04), marker(0.05), marker(None)) == ("***", "**", "*", "", "")
    table = paper_table(result, "ci")
    means = {c: table.cells[(c, "tuple_f1_s2_otepol")].mean for c in table.conditions}
    assert [c for c in table.conditions if table.cells[(c, "tuple_f1_s2_otepol")].best] == [max(means, key=means.get)]
    for words in ("500 resamples, seed 0", "Banerjee", "seeds 42, 101, 123, 456, 789", "mean [95% CI]"):
        assert words in table.caption
    assert "SD" not in table.caption and "ddof = " not in table.caption  # --paper-cells ci: no SD is shown
    assert "SD over seeds with ddof = 1" in paper_table(result, "sd").caption
    markdown = paper_files(result, "sd")["paper.md"].decode()
    assert "**" in markdown and "Table: Cells: mean ± SD over seeds" in markdown


def test_latex_escapes_what_latex_reads_as_commands() -> None:
    assert latex_escape("a_b & 50% #1 Δ±−") == r"a\_b \& 50\% \#1 $\Delta$$\pm$$-$"


def test_paper_tex_compiles_with_pdflatex(result: ComparisonResult, tmp_path: Path) -> None:
    if shutil.which("pdflatex") is None:
        if os.environ.get("CI"):
            pytest.fail("pdflatex is missing: .ci/run installs texlive-latex-recommended")
        pytest.skip("pdflatex is not installed (Debian: texlive-latex-recommended; .ci/run installs it)")
    (tmp_path / "paper.tex").write_bytes(paper_files(result, "sd")["paper.tex"])
    (tmp_path / "main.tex").write_text("\\documentclass{article}\n\\usepackage[margin=1cm,landscape]{geometry}\n"
                                       "\\usepackage{booktabs}\n\\begin{document}\n\\input{paper.tex}\n"
                                       "\\end{document}\n", encoding="utf-8")
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "main.tex"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:]
    assert (tmp_path / "main.pdf").stat().st_size > 1000


def test_readme_shows_the_paper_table_of_the_shared_runs() -> None:
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    metrics = ["tuple_f1_s2_otepol", "delta_f1_otepol", "tuple_f1_s2_otepol_micro", "ref_fill_rate_s2"]
    assert f"--paper --metrics {','.join(metrics)}" in readme
    result = compare_runs(sorted(RUNS.iterdir()), metrics=metrics)
    table, caption = paper_files(result, "sd")["paper.md"].decode().split("\n\nTable:")
    assert table in readme
    assert COMBINED_BY[result.interval] in caption and f"Table: {caption.strip()}" in readme  # the method actually used
