"""The Python API: ``from aggregator import aggregate_run, compare_runs`` and the typed RunResult."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

import aggregator
from aggregator import RunResult, aggregate_run
from aggregator.metrics.registry import UnknownMetric
from aggregator.outputs.cells import csv_cell
from scorecards.errors import InputError
from tests.conftest import CONFORMANCE, RUNS, run_cli
from tests.scorecard_rows import item, row, write_rows

SYNTH = CONFORMANCE / "synth_pub" / "scorecards.jsonl"


def test_metrics_equal_the_cli_csv(tmp_path: Path) -> None:
    done = run_cli(SYNTH, "--outdir", tmp_path, "--quiet")
    assert done.returncode == 0, done.stderr
    with open(tmp_path / "structural_metrics.csv", newline="", encoding="utf-8") as handle:
        (expected,) = list(csv.DictReader(handle))
    result = aggregate_run(SYNTH)
    assert isinstance(result, RunResult)
    assert {name: csv_cell(value) for name, value in result.metrics.items()} == expected


def test_result_carries_provenance_and_the_per_sample_table() -> None:
    result = aggregate_run(SYNTH, profile="paper_main")
    assert result.run_ids == ("synth_pub__seed7",)
    assert result.profile == "paper_main"
    assert result.rows_aggregated == result.metrics["n"] == 200
    assert len(result.input_sha256) == 64
    table = result.to_polars()
    assert isinstance(table, pl.DataFrame)
    assert table.height == result.rows_aggregated
    assert result.outdir is None and result.files == ()


def test_to_dict_is_json_with_null_for_undefined() -> None:
    result = aggregate_run(CONFORMANCE / "nogold" / "scorecards.jsonl")
    payload = json.loads(json.dumps(result.to_dict()))
    assert payload["metrics"]["tuple_f1_s2"] is None
    assert payload["metrics"]["gold_available"] is False
    assert payload["metrics"]["n"] == result.rows_aggregated
    assert "input_sha256" in payload and "_table" not in payload


def test_outdir_writes_the_cli_files(tmp_path: Path) -> None:
    result = aggregate_run(SYNTH, outdir=tmp_path / "out")
    assert "report.html" in result.files and "structural_metrics.csv" in result.files
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(result.files)
    assert result.outdir == str(tmp_path / "out")


def test_skip_bad_lines_lists_the_skipped_lines(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "run" / "scorecards.jsonl", [row("k1", gold=[item("본품#일반", "x")])])
    with open(path, "a", encoding="utf-8") as handle:
        handle.write("{not json\n")
    with pytest.raises(InputError, match=":2:"):
        aggregate_run(path)
    result = aggregate_run(path, skip_bad_lines=True)
    assert result.rows_skipped == 1
    assert result.skipped_lines[0].line == 2


def test_metric_lookup_suggests_a_close_name() -> None:
    result = aggregate_run(SYNTH)
    assert result.metric("tuple_f1_s2") == result.metrics["tuple_f1_s2"]
    with pytest.raises(UnknownMetric, match="did you mean 'tuple_f1_s2'"):
        result.metric("tuple_f1_s3")


def test_result_is_read_only() -> None:
    result = aggregate_run(SYNTH)
    with pytest.raises(ValueError):
        result.profile = "other"  # type: ignore[misc]


def test_compare_runs_is_exported() -> None:
    from aggregator import compare_runs
    from aggregator.compare import compare_runs as defined

    assert compare_runs is defined
    runs = sorted(RUNS.iterdir())[:2]
    result = compare_runs(runs, resamples=50)
    assert set(result.conditions_order) >= {"cr_n50_m0_v2"}


def test_import_aggregator_stays_cheap() -> None:
    code = "import sys, aggregator; print(sorted(m for m in ('polars', 'pydantic', 'numpy', 'rich') if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_aggregate_help_loads_no_reader_and_no_table_library() -> None:
    code = (
        "import sys\nfrom aggregator.commands.main import cli\n"
        "try:\n    cli.main(['--help'], prog_name='aggregate')\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('polars', 'pydantic', 'numpy', 'rich', 'msgspec', 'scorecards.reader') "
        "if m in sys.modules), file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "Usage: aggregate" in done.stdout
    assert done.stderr.strip() == "[]"


def test_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError):
        aggregator.no_such_name  # noqa: B018


def test_the_documented_examples_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every ```python block of docs/reports.md runs from the repository root."""
    import re
    import textwrap

    root = Path(__file__).resolve().parents[1]
    blocks = re.findall(r"```python\n(.*?)```", (root / "docs" / "reports.md").read_text(encoding="utf-8"), re.S)
    assert blocks
    monkeypatch.chdir(root)
    for block in blocks:
        exec(compile(textwrap.dedent(block), "docs/reports.md", "exec"), {})


def expected_metric(run: Path, name: str) -> float:
    """A metric of a vendored run as the research tool's own CSV has it."""
    with (run / "expected_structural_metrics.csv").open(encoding="utf-8") as handle:
        return float(next(csv.DictReader(handle))[name])


def test_the_readme_api_example_runs_and_prints_the_right_numbers(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ```python block of README.md, run from the repository root; what it prints and builds is checked
    against the research tool's CSVs of the same runs (results/cr_n50_m1_v2__seed42 is the conformance case)."""
    import contextlib
    import io
    import re
    import textwrap

    root = Path(__file__).resolve().parents[1]
    (block,) = re.findall(r"## Python API\n\n```python\n(.*?)```", (root / "README.md").read_text(encoding="utf-8"), re.S)
    monkeypatch.chdir(root)
    printed, namespace = io.StringIO(), {}  # type: ignore[var-annotated]
    with contextlib.redirect_stdout(printed):
        exec(compile(textwrap.dedent(block), "README.md", "exec"), namespace)
    lines = printed.getvalue().splitlines()
    own = CONFORMANCE / "cr_n50_m1_v2__seed42"
    assert float(lines[0]) == pytest.approx(expected_metric(own, "tuple_f1_s2_otepol"), abs=1e-9)
    assert float(lines[1]) == pytest.approx(expected_metric(own, "tuple_f1_s2"), abs=1e-9)
    assert namespace["table"].height == 50 == namespace["payload"]["metrics"]["n"]
    row = namespace["comparison"].paired.filter(metric="tuple_f1_s2_otepol").row(0, named=True)
    m0, m1 = (expected_metric(RUNS / f"cr_n50_{m}_v2__seed42", "tuple_f1_s2_otepol") for m in ("m0", "m1"))
    assert (row["condition_a"], row["condition_b"]) == ("cr_n50_m0_v2", "cr_n50_m1_v2")
    assert (row["mean_a"], row["mean_b"], row["delta"]) == pytest.approx((m0, m1, m1 - m0), abs=1e-9)
    assert row["ci_low"] <= row["delta"] <= row["ci_high"]
    width = namespace["comparison"].paired.width
    assert lines[2] == f"shape: (1, {width})"  # the printed paired row: one row, every column of paired.csv


def test_comparison_result_is_a_typed_read_only_model() -> None:
    from pydantic import BaseModel, ValidationError

    from aggregator import compare_runs

    result = compare_runs(sorted(RUNS.glob("cr_n50_m0_v2__seed*"))[:2], resamples=200)
    assert isinstance(result, BaseModel)
    assert result.to_polars().equals(result.per_sample)
    assert result.to_polars("paired").equals(result.paired)
    assert set(result.to_dict()) >= {"runs", "conditions", "paired", "flips", "self_consistency", "baseline"}
    with pytest.raises(ValidationError):
        result.baseline = "other"  # type: ignore[misc]


def test_the_exceptions_of_the_api_are_importable_from_aggregator(tmp_path: Path) -> None:
    from aggregator import InputError, OutputError, UnknownFamily, UnknownMetric, UnknownWarningCode

    assert set(aggregator.__all__) >= {"InputError", "BadLineError", "OutputError", "UnknownMetric", "UnknownFamily",
                                       "UnknownWarningCode"}
    with pytest.raises(InputError):
        aggregate_run(tmp_path / "missing")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OutputError):
        aggregate_run(RUNS / "cr_n50_m1_v2__seed42", outdir=blocker / "out")
    with pytest.raises(UnknownMetric):
        aggregate_run(RUNS / "cr_n50_m1_v2__seed42").metric("tuple_f1_s9")
    with pytest.raises(UnknownFamily):
        aggregate_run(RUNS / "cr_n50_m1_v2__seed42", families=["nope"])
    with pytest.raises(UnknownWarningCode):
        aggregate_run(RUNS / "cr_n50_m1_v2__seed42", allow=["nope"])
