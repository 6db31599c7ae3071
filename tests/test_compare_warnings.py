"""``aggregate compare``: each condition's coded warnings, and ``compare_runs(..., outdir=...)``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

from aggregator import compare_runs
from tests.compare_grid import write_grid
from tests.conftest import CONFORMANCE, FIFTY_CONDITIONS, RUNS, run_cli

if TYPE_CHECKING:
    from aggregator.compare.result import ComparisonResult

REAL = sorted(p for p in RUNS.iterdir() if p.is_dir())


def test_a_code_every_run_raises_is_one_note_in_every_output(tmp_path: Path) -> None:
    done = run_cli("compare", *REAL, "--outdir", tmp_path, "--resamples", "20", "--json")
    assert done.returncode == 0, done.stderr
    notes = json.loads(done.stdout)["notes"]
    assert [n for n in notes if n.startswith("Warning ")] == [
        n for n in notes if n.startswith("Warning ref_unmeasurable in 13 of 13 runs (every condition); in ")]
    assert any(n.startswith("Warning ref_unmeasurable") for n in notes)
    assert notes[0].startswith("Warning ref_unmeasurable")  # ranked first
    assert "Warning ref_unmeasurable in 13 of 13 runs" in (tmp_path / "comparison.md").read_text(encoding="utf-8")
    assert "Warning ref_unmeasurable" in (tmp_path / "comparison_report.html").read_text(encoding="utf-8")


def test_a_code_some_runs_raise_is_named_per_condition(tmp_path: Path) -> None:
    """A condition of real runs (ref_unmeasurable) beside a conformance run with taxonomy refs."""
    synth = tmp_path / "synth_pub__seed1" / "scorecards.jsonl"
    synth.parent.mkdir()
    synth.write_bytes((CONFORMANCE / "synth_pub" / "scorecards.jsonl").read_bytes())
    result = compare_runs([REAL[0], REAL[1], synth.parent], resamples=20)  # two runs of cr_n50_m0_v2
    warned = [n for n in result.notes if n.startswith("Warning ")]
    assert [n.split("); in ")[0] for n in warned] == ["Warning ref_unmeasurable in 2 of 3 runs (cr_n50_m0_v2: 2 of 2"]
    assert result.lead_reason == ("Ref-F1 cannot be measured in 2 of 3 runs (ref_unmeasurable): showing Surface-F1")


@FIFTY_CONDITIONS
def test_a_code_many_conditions_raise_is_one_note_naming_a_few(fifty_conditions: tuple[ComparisonResult, Path]) -> None:
    """50 conditions, 12 of them with empty final sets: one note per code, not one per condition."""
    result, _ = fifty_conditions
    warned = [n for n in result.notes if n.startswith("Warning ")]
    assert [n.split()[1] for n in warned] == ["ref_unmeasurable", "empty_predictions"]
    assert warned[1].startswith("Warning empty_predictions in 24 of 100 runs (")
    assert "; and 7 more of the 50 conditions); in " in warned[1]


def test_compare_runs_writes_like_the_command(tmp_path: Path) -> None:
    source = write_grid(tmp_path / "grid" / "scorecards.jsonl", 2, 2)
    compare_runs([source], resamples=20, outdir=tmp_path / "api")
    assert run_cli("compare", source, "--outdir", tmp_path / "cli", "--resamples", "20", "-q").returncode == 0
    api = {p.name: p.read_bytes() for p in (tmp_path / "api").iterdir()}
    cli = {p.name: p.read_bytes() for p in (tmp_path / "cli").iterdir()}
    assert api == cli and "comparison_report.html" in api
