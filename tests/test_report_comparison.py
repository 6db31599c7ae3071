"""report.html of a comparison: the comparison's numbers, seed intervals, escaping (no browser here)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from aggregator.compare import compare_runs
from aggregator.compare.cells import interval, mean_sd
from aggregator.report.comparison_report import comparison_report, condition_rows, p_text
from tests.conftest import RUNS, run_cli
from tests.scorecard_rows import item, row, write_rows
from tests.test_report import markup, report_data

HOSTILE = "<script>alert(1)</script>"


@pytest.fixture(scope="module")
def fixture_runs() -> object:
    return compare_runs(sorted(RUNS.iterdir()), resamples=200)


def test_compare_command_writes_the_report(tmp_path: Path) -> None:
    done = run_cli("compare", *sorted(RUNS.iterdir())[:4], "--outdir", tmp_path, "--quiet", "--resamples", "50")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "comparison_report.html").read_bytes().startswith(b"<!DOCTYPE html>")


def test_a_run_and_a_comparison_in_one_directory_keep_each_other_s_files(tmp_path: Path) -> None:
    runs = sorted(RUNS.iterdir())[:2]
    assert run_cli(runs[0], "--outdir", tmp_path, "--quiet", "--allow", "ref_unmeasurable").returncode == 0
    run_files = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    done = run_cli("compare", *runs, "--outdir", tmp_path, "--quiet", "--resamples", "20")
    assert done.returncode == 0, done.stderr
    after = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert {name: after[name] for name in run_files} == run_files
    assert "comparison_report.html" in after and len(after) > len(run_files)


def test_tables_show_the_comparison_numbers(fixture_runs: object) -> None:
    result = fixture_runs
    text = markup(comparison_report(result))
    for r in result.conditions.filter(metric="tuple_f1_s2_otepol").iter_rows(named=True):
        assert f">{mean_sd(r)}<" in text
        assert f">{interval(r['ci_low'], r['ci_high'])}<" in text
    for r in result.paired.filter(metric="tuple_f1_s2_otepol").iter_rows(named=True):
        assert f">{interval(r['ci_low'], r['ci_high'], sign=True)}<" in text
    for note in result.notes:
        assert note.split("(")[0].strip() in text


def test_seed_dots_are_the_runs_and_bars_hold_the_mean(fixture_runs: object) -> None:
    result = fixture_runs
    rows = [r for r in condition_rows(result) if r["metric"] == "F1 S2" and r["unit"] == "Surface"]
    seeds = [r for r in rows if r["kind"] == "seed"]
    assert len(seeds) == result.runs.height
    assert sorted(r["value"] for r in seeds) == sorted(result.runs.get_column("tuple_f1_s2_otepol").to_list())
    for mean in (r for r in rows if r["kind"] == "mean"):
        assert mean["low"] <= mean["value"] <= mean["high"]


def test_condition_bars_are_the_intervals_of_conditions_csv(fixture_runs: object) -> None:
    result = fixture_runs
    summary = {r["condition"]: r for r in result.conditions.filter(metric="delta_f1_otepol").iter_rows(named=True)}
    bars = [r for r in condition_rows(result) if r["kind"] == "mean" and r["metric"] == "ΔF1 (S2 − S1)"
            and r["unit"] == "Surface"]
    assert {r["condition"]: (r["low"], r["high"]) for r in bars} == {
        c: (s["ci_low"], s["ci_high"]) for c, s in summary.items()}


def test_p_values_read_as_text() -> None:
    assert p_text(0.0950) == "p = 0.095"
    assert p_text(0.0001) == "p < 0.001"
    assert p_text(None) == ""


def _runs(tmp_path: Path, names: list[str]) -> list[Path]:
    paths = []
    for i, name in enumerate(names):
        rows = [row(f"k{j}", gold=[item("본품#일반", f"t{j}")], final=[item("본품#일반", f"t{j}" if (i + j) % 2 else "x")],
                    run_id=name) for j in range(6)]
        paths.append(write_rows(tmp_path / f"run{i}" / "scorecards.jsonl", rows))
    return paths


def test_condition_names_cannot_inject_markup(tmp_path: Path) -> None:
    result = compare_runs(_runs(tmp_path, [f"{HOSTILE}__seed1", f"{HOSTILE}__seed2", "b__seed1"]), resamples=20)
    page = comparison_report(result)
    assert b"<script>alert" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in markup(page)
    conditions = {r["condition"] for r in report_data(page)["charts"]["conditions"]["data"]["values"]}
    assert HOSTILE in conditions


def test_one_condition_has_no_paired_chart(tmp_path: Path) -> None:
    result = compare_runs(_runs(tmp_path, ["a__seed1", "a__seed2"]), resamples=20)
    page = comparison_report(result)
    assert "Only one condition: nothing to pair." in markup(page)
    assert set(report_data(page)["charts"]) == {"conditions"}
    assert not re.search(r'data-chart="paired"', markup(page))


def test_an_axis_over_one_value_gets_width(tmp_path: Path) -> None:
    result = compare_runs(_runs(tmp_path, ["a__seed1", "a__seed2"]), resamples=20)
    values = report_data(comparison_report(result))["charts"]["conditions"]["data"]["values"]
    values = [v for v in values if v["metric"] == "F1 S2" and v["unit"] == "Ref ⚠"]  # few_samples covers every unit
    pads = sorted(v["value"] for v in values if v["kind"] == "pad")
    mean = next(v["value"] for v in values if v["kind"] == "mean")
    assert pads == pytest.approx([mean - 0.01, mean + 0.01])


def test_spread_values_get_no_padding(fixture_runs: object) -> None:
    values = report_data(comparison_report(fixture_runs))["charts"]["conditions"]["data"]["values"]
    assert not [v for v in values if v["kind"] == "pad" and v["unit"] == "Surface" and v["metric"] == "F1 S2"]
