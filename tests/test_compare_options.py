"""``aggregate compare`` options: --each-run, --baseline by run, --skip-bad-runs, --contrast, --holm, --by,
--metrics, --samples, runs without common samples, degenerate cases, names and the merged view."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import polars as pl
import pytest

from aggregator.compare.api import compare_runs
from tests.conftest import RUNS, run_cli
from tests.scorecard_rows import item, row, write_rows
from tests.test_compare_cli import one_error_line

M1 = [RUNS / "cr_n50_m1_v2__seed42", RUNS / "cr_n50_m1_v2__seed101"]
SMALL = [RUNS / "cr_n50_m0_v2__seed42", RUNS / "cr_n50_m0_v2__seed123", *M1, RUNS / "cr_n50_m2_v2__seed42"]


def test_each_run_compares_two_seeds_of_one_condition() -> None:
    result = compare_runs(M1, resamples=200, each_run=True)
    assert result.conditions_order == ("cr_n50_m1_v2__seed101_proposed", "cr_n50_m1_v2__seed42_proposed")
    assert result.contrasts == (result.conditions_order,)
    row = result.paired.filter(metric="tuple_f1_s2_otepol").row(0, named=True)
    runs = {r["run_id"]: r["tuple_f1_s2_otepol"] for r in result.runs.iter_rows(named=True)}
    assert row["delta"] == pytest.approx(runs[row["condition_b"]] - runs[row["condition_a"]], abs=1e-12)
    assert "1 seed" in row["note"]


def test_baseline_can_name_a_run() -> None:
    result = compare_runs(SMALL, resamples=50, baseline="cr_n50_m1_v2__seed42_proposed")
    assert result.baseline == "cr_n50_m1_v2"
    assert {tuple(p) for p in result.contrasts} == {("cr_n50_m1_v2", "cr_n50_m0_v2"), ("cr_n50_m1_v2", "cr_n50_m2_v2")}


def test_skip_bad_runs_reports_and_goes_on(tmp_path: Path) -> None:
    bad = write_rows(tmp_path / "bad" / "scorecards.jsonl", [row("k1"), {"not": "a row"}])
    args = ["compare", *M1, bad, "--outdir", tmp_path / "out", "--resamples", "50"]
    strict = run_cli(*args)
    assert strict.returncode == 2 and "scorecards.jsonl:2" in one_error_line(strict.stderr)
    done = run_cli(*args, "--skip-bad-runs", "--json")
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith(f"aggregate: skipped {bad}: {bad}:2:")
    payload = json.loads(done.stdout)
    assert [s["path"] for s in payload["skipped_runs"]] == [str(bad)]
    assert any(n.startswith(f"Skipped unreadable input {bad}") for n in payload["notes"])


def _disjoint(tmp_path: Path) -> list[Path]:
    paths = []
    for name, keys in (("a__seed1", ["k1", "k2"]), ("b__seed1", ["k3", "k4"])):
        rows = [row(k, gold=[item("본품#일반", "t")], final=[item("본품#일반", "t")], run_id=name)
                for k in keys]
        paths.append(write_rows(tmp_path / name / "scorecards.jsonl", rows))
    return paths


def test_runs_without_common_samples_are_reported_not_paired(tmp_path: Path) -> None:
    result = compare_runs(_disjoint(tmp_path), resamples=50)
    assert set(result.paired.get_column("n_samples")) == {0}
    assert result.paired.get_column("delta").null_count() == result.paired.height
    assert set(result.paired.get_column("note").str.contains("no samples in common")) == {True}
    kinds = [d for d in result.degenerate if d["kind"] == "no_common_samples"]
    assert kinds == [{"kind": "no_common_samples", "condition_a": "a", "condition_b": "b", "n_samples": 0}]
    assert any("no sample is present in every run of both" in n for n in result.notes)


def test_contrast_holm_and_metrics(tmp_path: Path) -> None:
    result = compare_runs(SMALL, resamples=200, contrasts=[("cr_n50_m1_v2", "cr_n50_m2_v2")], holm=True,
                          metrics=["tuple_f1_s2_otepol", "delta_f1_otepol"])
    assert result.contrasts[-1] == ("cr_n50_m1_v2", "cr_n50_m2_v2")
    rows = result.paired.drop_nulls("p_value")
    assert (rows.get_column("p_holm") >= rows.get_column("p_value")).all()
    assert result.metrics_shown == ("tuple_f1_s2_otepol", "delta_f1_otepol")
    for args, message in ((["--contrast", "cr_n50_m1_v2"], "write A:B"),
                          (["--contrast", "cr_n50_m1_v2:nope"], "no condition 'nope'"),
                          (["--metrics", "tuple_f1_s3"], "did you mean 'tuple_f1_s2'"),
                          (["--by", "n_gold"], "needs a boolean or text column"),
                          (["--by", "nope"], "no such per-sample column")):
        done = run_cli("compare", *M1, "--outdir", tmp_path / "out", "--resamples", "20", *args)
        assert done.returncode == 2 and message in one_error_line(done.stderr), args


def test_subsets_by_built_in_and_flag_columns() -> None:
    result = compare_runs(SMALL, resamples=100, by=["gold_explicitness", "gold_has_empty_term"],
                          metrics=["tuple_f1_s2_otepol"])
    subsets = result.subsets
    assert set(subsets.get_column("by")) == {"gold_explicitness", "gold_has_empty_term"}
    assert set(subsets.filter(by="gold_has_empty_term").get_column("level")) == {"True", "False"}
    for r in subsets.iter_rows(named=True):
        assert r["small"] == (r["n_samples"] < 10)
        if r["mean"] is not None and r["ci_low"] is not None:
            assert r["ci_low"] <= r["mean"] <= r["ci_high"]
    explicit = subsets.filter(by="gold_explicitness")
    assert explicit.group_by("condition").agg(pl.col("n_samples").sum()).get_column("n_samples").to_list() == [50] * 3


def test_samples_behind_the_contrasts_match_the_flips() -> None:
    result = compare_runs(SMALL, resamples=50, samples="changed")
    assert result.selected is not None
    for flip in result.flips.filter(condition_a="cr_n50_m0_v2").iter_rows(named=True):
        rows = result.selected.filter(condition_b=flip["condition_b"], unit=flip["unit"])
        assert rows.height == flip["only_a"] + flip["only_b"]
        assert (rows.get_column("correct_a") != rows.get_column("correct_b")).all()
    assert result.selected.get_column("input_text").null_count() == 0


def test_names_merged_view_and_identical_runs(tmp_path: Path) -> None:
    copy = write_rows(tmp_path / "copy" / "scorecards.jsonl", [
        {**json.loads(line), "run_id": "cr_n50_m1_v2__seed7_proposed"}
        for line in (M1[0] / "scorecards.jsonl").read_text(encoding="utf-8").splitlines()])
    done = run_cli("compare", *M1, copy, "--outdir", tmp_path / "out", "--resamples", "50", "--json")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    identical = [d for d in payload["degenerate"] if d["kind"] == "identical_runs"]
    assert identical == [{"kind": "identical_runs", "condition": "cr_n50_m1_v2",
                          "runs": ["cr_n50_m1_v2__seed7_proposed", "cr_n50_m1_v2__seed42_proposed"]}]
    header = next(csv.reader(open(tmp_path / "out" / "self_consistency.csv", encoding="utf-8")))
    assert "cross_run_tuple_agreement" in header and "cross_run_max_runs" in header
    assert "tuple_agreement_rate" not in header and "n_trials" not in header
    markdown = (tmp_path / "out" / "comparison.md").read_text(encoding="utf-8")
    assert "Cross-run tuple agreement" in markdown and "are identical" in markdown
    merged = pl.read_parquet(tmp_path / "out" / "per_sample_merged.parquet")
    assert merged.columns[:4] == ["split", "sample_key", "input_text", "n_runs"]
    assert merged.get_column("input_text").null_count() == 0
    assert "cr_n50_m1_v2__seed42_proposed/polarity_conflict" in merged.columns


def test_subsets_by_a_label_column() -> None:
    """A label (held as a Categorical or Enum) is a text column for --by: one subset per value."""
    result = compare_runs(SMALL, resamples=50, by=["otepol_transition", "change_type"], metrics=["tuple_f1_s2_otepol"])
    levels = {by: set(result.subsets.filter(by=by).get_column("level")) for by in ("otepol_transition", "change_type")}
    assert levels == {"otepol_transition": {"keep", "still"}, "change_type": {"none", "guided_by_review"}}
