"""``aggregate compare`` reads a run from what ``aggregate RUN`` wrote when, and only when, it was made
from the same bytes, code and settings (aggregator/compare/reuse.py); the comparison is the same bytes."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest

from aggregator.api.run import aggregate_run
from aggregator.compare import reuse
from aggregator.compare.reuse import OUTPUTS, reused_run
from aggregator.metrics.registry import RunContext
from aggregator.metrics.structural import STRUCTURAL
from aggregator.outputs.names import METADATA_JSON, METRICS_CSV, PER_SAMPLE_PARQUET
from aggregator.run.pipeline import evaluate_run
from aggregator.run_warnings import check_run
from aggregator.units.taxonomy import use_taxonomy
from tests.conftest import CONFORMANCE, RUNS, run_cli

SOME_RUNS = ("cr_n50_m0_v2__seed42", "cr_n50_m1_v2__seed101")
CASES = ("beta_n50_c2__seed123", "synth_diag_pub", "cr_n50_m1_merged", "nogold", "synth_legacy_pub")
"""A side file, several run ids and every diagnostic, three run ids, no gold, legacy shapes."""


@pytest.fixture(scope="module")
def aggregated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Copies of the 13 real runs and of five conformance cases, each aggregated into its derived/metrics."""
    root = tmp_path_factory.mktemp("reuse")
    for run in sorted(RUNS.iterdir()):
        shutil.copytree(run, root / "runs" / run.name)
    for case in CASES:
        shutil.copytree(CONFORMANCE / case, root / "cases" / case)
    for group in ("runs", "cases"):
        done = run_cli(*sorted((root / group).iterdir()), "--quiet")
        assert done.returncode == 0, done.stderr
    return root


@pytest.fixture
def one_run(tmp_path: Path) -> Path:
    """A fresh copy of one real run, aggregated by the API into its derived/metrics."""
    run = shutil.copytree(RUNS / SOME_RUNS[0], tmp_path / SOME_RUNS[0])
    aggregate_run(run, outdir=run.joinpath(*OUTPUTS))
    assert reused_run(run) is not None
    return run


def test_a_second_comparison_reads_every_run_from_its_outputs_and_writes_the_same_bytes(
    aggregated: Path, tmp_path: Path
) -> None:
    runs = sorted((aggregated / "runs").iterdir())
    fresh = run_cli("compare", *runs, "--outdir", tmp_path / "fresh", "--no-cache", "--paper", "--paper-cells", "sd")
    again = run_cli("compare", *runs, "--outdir", tmp_path / "again", "--paper", "--paper-cells", "sd")
    assert fresh.returncode == again.returncode == 0, fresh.stderr + again.stderr
    assert "read 13 runs from their scorecards (--no-cache)" in fresh.stdout
    assert "read 13 of 13 runs from what aggregate wrote (RUN/derived/metrics), 0 decoded" in again.stdout
    names = sorted(p.name for p in (tmp_path / "fresh").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "again").iterdir())
    assert [n for n in names if (tmp_path / "fresh" / n).read_bytes() != (tmp_path / "again" / n).read_bytes()] == []


def test_runs_never_aggregated_are_decoded_and_the_summary_says_how_to_reuse(tmp_path: Path) -> None:
    runs = [shutil.copytree(RUNS / name, tmp_path / name) for name in SOME_RUNS]
    done = run_cli("compare", *runs, "--outdir", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    assert "read 0 of 2 runs from what aggregate wrote (RUN/derived/metrics), 2 decoded; `aggregate RUN...`" in done.stdout
    assert not any((run / "derived").exists() for run in runs), "a comparison never writes into a run's folder"


@pytest.mark.parametrize("group,name", [("runs", n) for n in SOME_RUNS] + [("cases", n) for n in CASES])
def test_what_compare_reads_from_the_outputs_equals_a_fresh_read(aggregated: Path, group: str, name: str) -> None:
    """Table (every column, its type: Enums, Categoricals, nulls), metrics, coded warnings and absent
    fields, as a comparison uses them."""
    path = aggregated / group / name
    reused = reused_run(path)
    assert reused is not None
    fresh = evaluate_run(path)
    table = fresh.table.drop("line")
    assert reused.table.schema == table.schema
    assert reused.table.equals(table, null_equal=True)
    assert reused.metrics == fresh.metrics
    assert [type(v) for v in reused.metrics.values()] == [type(v) for v in fresh.metrics.values()]
    counts = {"polarity_defaulted": fresh.warnings["polarity_defaulted"]}
    assert check_run(reused.table, reused.metrics, counts).shown == check_run(table, fresh.metrics, counts).shown
    assert STRUCTURAL.absent_fields(reused.table) == STRUCTURAL.absent_fields(table)
    if group == "cases" and name == "cr_n50_m1_merged":  # a merged file: each run's metrics from its part
        part = reused.table.filter(pl.col("run_id") == reused.table.get_column("run_id")[0])
        assert STRUCTURAL.compute(part, RunContext(all_rows=part)) == STRUCTURAL.compute(
            table.filter(pl.col("run_id") == part.get_column("run_id")[0]), RunContext(all_rows=part))


def _edit(path: Path, old: bytes, new: bytes) -> None:
    data = path.read_bytes()
    assert old in data
    path.write_bytes(data.replace(old, new, 1))


def _one_byte_of_the_input(run: Path) -> None:
    _edit(run / "scorecards.jsonl", b'"mode": "proposed"', b'"mode":\t"proposed"')  # same JSON, other bytes


def _aggregated_again(**options: object) -> Callable[[Path], None]:
    def change(run: Path) -> None:
        aggregate_run(run, outdir=run.joinpath(*OUTPUTS), **options)  # type: ignore[arg-type]
        use_taxonomy(None)
    return change


def _a_side_file_appears(run: Path) -> None:
    shutil.copy(CONFORMANCE / "beta_n50_c2__seed123" / "override_gate_debug_summary.json", run)


def _the_table_is_rewritten(run: Path) -> None:
    table = pl.read_parquet(run.joinpath(*OUTPUTS, PER_SAMPLE_PARQUET))
    table.write_parquet(run.joinpath(*OUTPUTS, PER_SAMPLE_PARQUET), compression="lz4")


def _a_metric_is_edited(run: Path) -> None:
    _edit(run.joinpath(*OUTPUTS, METRICS_CSV), b",0.0,", b",1.0,")


def _written_without_input_blake3(run: Path) -> None:
    path = run.joinpath(*OUTPUTS, METADATA_JSON)
    metadata = json.loads(path.read_bytes())
    del metadata["reuse"]["input_blake3"]  # as an older version wrote it
    path.write_text(json.dumps(metadata))


def _the_metadata_is_gone(run: Path) -> None:
    run.joinpath(*OUTPUTS, METADATA_JSON).unlink()


def _the_metadata_is_not_json(run: Path) -> None:
    run.joinpath(*OUTPUTS, METADATA_JSON).write_text("{")


def _a_bad_line_was_skipped(run: Path) -> None:
    with open(run / "scorecards.jsonl", "ab") as handle:
        handle.write(b"not json\n")
    aggregate_run(run, outdir=run.joinpath(*OUTPUTS), skip_bad_lines=True)


def _taxonomy(run: Path) -> None:
    (run / "taxonomy.json").write_text('{"name": "other", "refs": ["a#b"]}')
    _aggregated_again(taxonomy=run / "taxonomy.json")(run)


CHANGES: dict[str, Callable[[Path], None]] = {
    "one byte of the input": _one_byte_of_the_input,
    "--families": _aggregated_again(families=["core", "conflict"]),
    "--profile": _aggregated_again(profile="paper_main"),
    "--taxonomy": _taxonomy,
    "--skip-bad-lines skipped a line": _a_bad_line_was_skipped,
    "a side file appears": _a_side_file_appears,
    "per_sample.parquet rewritten": _the_table_is_rewritten,
    "structural_metrics.csv edited": _a_metric_is_edited,
    "run_metadata.json without the input's BLAKE3": _written_without_input_blake3,
    "run_metadata.json missing": _the_metadata_is_gone,
    "run_metadata.json unreadable": _the_metadata_is_not_json,
}


@pytest.mark.parametrize("change", CHANGES)
def test_any_change_to_the_input_options_or_outputs_means_decoding_again(one_run: Path, change: str) -> None:
    CHANGES[change](one_run)
    assert reused_run(one_run) is None


@pytest.mark.parametrize("name,value", [("__version__", "99.0.0"), ("code_sha256", lambda: "0" * 64),
                                        ("policy_hash", lambda registry: "0" * 16)])
def test_other_code_means_decoding_again(one_run: Path, monkeypatch: pytest.MonkeyPatch, name: str, value: object) -> None:
    monkeypatch.setattr(reuse, name, value)
    assert reused_run(one_run) is None


def test_a_changed_input_is_decoded_and_its_new_numbers_used(one_run: Path, tmp_path: Path) -> None:
    """End to end: after one byte of one run changed, the comparison decodes that run (not its old table)."""
    other = shutil.copytree(RUNS / SOME_RUNS[1], tmp_path / SOME_RUNS[1])
    aggregate_run(other, outdir=other.joinpath(*OUTPUTS))
    _one_byte_of_the_input(one_run)
    done = run_cli("compare", one_run, other, "--outdir", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    assert "read 1 of 2 runs from what aggregate wrote (RUN/derived/metrics), 1 decoded" in done.stdout


def test_metrics_read_back_exactly_or_not_at_all(aggregated: Path) -> None:
    """The CSV cells give back every value and its type; a text that is "" would come back blank,
    so such a run's metrics get no digest and the run is decoded."""
    from aggregator.outputs.metrics_csv import metrics_csv, read_metrics_csv

    metrics = evaluate_run(aggregated / "cases" / "synth_diag_pub").metrics
    assert read_metrics_csv(metrics_csv([metrics]), STRUCTURAL) == metrics
    text = next(m.name for m in STRUCTURAL if m.kind == "str")
    assert read_metrics_csv(metrics_csv([{**metrics, text: ""}]), STRUCTURAL) != {**metrics, text: ""}
    assert read_metrics_csv(b"not,a,metrics,file\n1,2,3,4\n", STRUCTURAL) is None
