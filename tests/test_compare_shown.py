"""comparison.md and comparison_report.html are capped like the run report; the CSV files hold every row (issue #25).

``compare --each-run`` over 1,000 runs wrote a 315 MB comparison_report.html and a 128 MB comparison.md, most
of it the flips of 499,500 pairs. Measured on 1,000 runs: benchmarks/bench_hostile.py.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from aggregator.compare import compare_runs, shown
from aggregator.compare.files import comparison_files
from tests.conftest import run_cli
from tests.scorecard_rows import item, row, write_rows

if TYPE_CHECKING:
    import pytest


def merged(path: Path, runs: int, samples: int = 6) -> Path:
    rows = [row(f"k{j}", gold=[item("본품#일반", f"t{j}")],
                final=[item("본품#일반", f"t{j}" if (j * 7 + r) % 3 else "x")], run_id=f"c{r:02d}__seed{r}")
            for r in range(runs) for j in range(samples)]
    return write_rows(path, rows)


def flips_rows(markdown: str) -> list[str]:
    section = markdown.split("## Flips", 1)[1].split("\n## ", 1)[0]
    return [line for line in section.split("\n") if line.startswith("| `")]


def test_past_12_conditions_the_pairwise_tables_show_the_baseline_pairs(tmp_path: Path) -> None:
    data = merged(tmp_path / "m.jsonl", 16)
    done = run_cli("compare", data, "--each-run", "--outdir", tmp_path / "c", "--resamples", "20", "-q",
                   "--contrast", "c03__seed3:c07__seed7")
    assert done.returncode == 0, done.stderr
    out = tmp_path / "c"
    assert pl.read_csv(out / "flips.csv").height == 16 * 15 // 2 * 3
    markdown = (out / "comparison.md").read_text(encoding="utf-8")
    rows = flips_rows(markdown)
    assert len(rows) == (15 + 1) * 3
    assert all("c00__seed0" in line or ("c03__seed3" in line and "c07__seed7" in line) for line in rows)
    assert "Not shown here" in markdown.split("## Notes", 1)[1].split("\n## ", 1)[0] and "flips.csv" in markdown
    html = (out / "comparison_report.html").read_text(encoding="utf-8")
    flips = html.split("<h2>Flips</h2>", 1)[1].split("</table>", 1)[0]
    assert flips.count("<tr>") == 1 + (15 + 1) * 3
    assert "Not shown here" in html


def test_past_the_shown_conditions_and_rows_the_reports_are_cut_and_say_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(shown, "SHOWN_CONDITIONS", 5)
    result = compare_runs([merged(tmp_path / "m.jsonl", 9)], each_run=True, resamples=20,
                          contrasts=[("c06__seed6", "c08__seed8")])
    view = shown.shown_view(result)
    assert view.conditions_order == ("c00__seed0", "c01__seed1", "c02__seed2", "c06__seed6", "c08__seed8")
    assert set(view.runs.get_column("condition")) == set(view.conditions_order)
    assert view.notes[0].startswith("Not shown here") and "4 of 9 conditions" in view.notes[0]
    assert view.notes[1:] == result.notes
    files = comparison_files(result)
    assert pl.read_csv(files["conditions.csv"]).get_column("condition").n_unique() == 9
    markdown = files["comparison.md"].decode()
    assert "c04__seed4" not in markdown.split("## Conditions", 1)[1] and "c08__seed8" in markdown
    tables = re.findall(r"<table.*?</table>", files["comparison_report.html"].decode(), flags=re.S)
    assert len(tables) >= 4 and all("c04__seed4" not in table for table in tables)
    monkeypatch.setattr(shown, "MAX_ROWS", 7)  # and at most 7 // 3 = 2 conditions with 3 metrics shown
    view = shown.shown_view(result)
    for name in ("runs", "flips", "self_consistency"):
        assert getattr(view, name).height <= 7, name
    many = compare_runs([merged(tmp_path / "m.jsonl", 9)], each_run=True, resamples=20,
                        metrics=["tuple_f1_s2", "tuple_f1_s1", "delta_f1"])
    assert shown.shown_view(many).conditions_order == ("c00__seed0", "c01__seed1")


def test_a_small_comparison_is_shown_whole(tmp_path: Path) -> None:
    result = compare_runs([merged(tmp_path / "m.jsonl", 4)], each_run=True, resamples=20)
    assert shown.shown_view(result) is result
