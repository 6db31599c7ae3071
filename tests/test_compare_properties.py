"""Properties of a comparison, on real runs loaded once and varied in memory (small hypothesis budgets)."""

from __future__ import annotations

import dataclasses
import functools
import json
import statistics

import numpy as np
import polars as pl
import pytest
from hypothesis import strategies as st
from scipy import stats

from aggregator.compare.api import compare_loaded
from aggregator.compare.files import comparison_files
from aggregator.compare.runs import Run, load_runs
from aggregator.compare.tables import HEADLINE
from aggregator.metrics.structural import STRUCTURAL
from tests.conftest import RUNS
from tests.strategies import fuzz_budgets

RESAMPLES = 200
NAMES = ["cr_n50_m0_v2__seed42", "cr_n50_m0_v2__seed123", "cr_n50_m1_v2__seed42", "cr_n50_m1_v2__seed101",
         "cr_n50_m2_v2__seed456"]
BUDGETS = functools.partial(fuzz_budgets, 4, 16)
"""The whole-comparison properties: 4 examples in ``make test``, 16 in the slow tier (``make test-all``)."""


@pytest.fixture(scope="module")
def runs() -> list[Run]:
    return load_runs([RUNS / name for name in NAMES])


def as_condition(run: Run, condition: str) -> Run:
    """The same run under another condition (and run id)."""
    run_id = f"{condition}__seed{run.seed}"
    return dataclasses.replace(run, run_id=run_id, condition=condition,
                               table=run.table.with_columns(pl.lit(run_id).alias("run_id")))


def without(run: Run, keys: list[str]) -> Run:
    """The run with some samples removed, its metrics recomputed by the core registry."""
    table = run.table.filter(~pl.col("sample_key").is_in(keys))
    return dataclasses.replace(run, table=table, metrics=STRUCTURAL.compute(table))


def test_headline_metrics_are_registered() -> None:
    assert all(name in STRUCTURAL for name in HEADLINE)


def check_a_condition_compared_with_itself(runs: list[Run], condition: str, count: int, seed: int) -> None:
    chosen = [r for r in runs if r.condition == condition][:count]
    copies = [as_condition(r, "zz_copy") for r in chosen]
    others = [r for r in runs if r.condition != condition]
    result = compare_loaded(others + chosen + copies, resamples=RESAMPLES, seed=seed, baseline="zz_copy")
    own = result.paired.filter(condition_b=condition).drop_nulls("delta")
    assert own.height > 150
    assert set(own.get_column("delta").to_list()) == {0.0}
    assert set(own.get_column("p_value").to_list()) == {1.0}
    # the general path: the paired sample component is exactly 0, so the interval is the two seed
    # components' alone, ±t(2 (S − 1)) · sqrt(2 var(θ_r) / S), from the runs' own values
    values = result.runs.filter(condition=condition)
    for row in own.iter_rows(named=True):
        thetas = [float(v) for v in values.get_column(row["metric"]).to_list() if v is not None]
        seeds = len(thetas)
        if seeds < 2 or np.var(thetas) == 0:
            assert row["ci_low"] == 0.0 == row["ci_high"], row
            continue
        se = np.sqrt(2 * np.var(thetas, ddof=1) / seeds)
        assert row["se"] == pytest.approx(se, rel=1e-9), row
        assert row["ci_high"] == pytest.approx(stats.t.ppf(0.975, 2 * (seeds - 1)) * se, rel=1e-9) == -row["ci_low"]
    flips = result.flips.filter(condition_a=condition, condition_b="zz_copy")
    assert flips.get_column("only_a").to_list() == [0, 0, 0] == flips.get_column("only_b").to_list()


test_a_condition_compared_with_itself, test_a_condition_compared_with_itself_slow = BUDGETS(
    condition=st.sampled_from(["cr_n50_m0_v2", "cr_n50_m1_v2", "cr_n50_m2_v2"]), count=st.integers(1, 3), seed=st.integers(0, 1000)
)(check_a_condition_compared_with_itself)


def check_run_order_changes_nothing(runs: list[Run], order: list[int], seed: int) -> None:
    first = comparison_files(compare_loaded(runs, resamples=RESAMPLES, seed=seed))
    shuffled = comparison_files(compare_loaded([runs[i] for i in order], resamples=RESAMPLES, seed=seed))
    assert first == shuffled


test_run_order_changes_nothing, test_run_order_changes_nothing_slow = BUDGETS(
    order=st.permutations(range(len(NAMES))), seed=st.integers(0, 2**31)
)(check_run_order_changes_nothing)


def check_condition_summaries_are_those_of_the_per_run_values(runs: list[Run], picked: list[int], ddof: int) -> None:
    result = compare_loaded([runs[i] for i in picked], resamples=RESAMPLES, seed=0, ddof=ddof)
    assert result.conditions.height == len(set(result.runs.get_column("condition"))) * len(STRUCTURAL)
    for row in result.conditions.iter_rows(named=True):
        members = result.runs.filter(condition=row["condition"]).sort("seed")
        assert row["n_runs"] == members.height
        assert row["seeds"] == members.get_column("seed").to_list()
        raw = [v for v in members.get_column(row["metric"]).to_list() if v is not None]
        assert row["n_defined"] == len(raw)
        if STRUCTURAL[row["metric"]].kind == "str":
            assert row["mean"] is None and row["pooled"] is None
            continue
        values = [float(v) for v in raw]
        if not values:
            assert row["mean"] is None and row["sd"] is None
            continue
        assert row["mean"] == pytest.approx(statistics.fmean(values), rel=1e-12, abs=1e-15)
        assert row["min"] == min(values) and row["max"] == max(values)
        if len(values) - ddof < 1:
            assert row["sd"] is None
        else:
            assert row["sd"] == pytest.approx(float(np.std(values, ddof=ddof)), rel=1e-9, abs=1e-15)


test_condition_summaries_are_those_of_the_per_run_values, test_condition_summaries_are_those_of_the_per_run_values_slow = BUDGETS(
    picked=st.lists(st.integers(0, len(NAMES) - 1), min_size=2, unique=True), ddof=st.sampled_from([0, 1])
)(check_condition_summaries_are_those_of_the_per_run_values)


def test_paired_means_match_condition_means_when_no_sample_is_missing(runs: list[Run]) -> None:
    result = compare_loaded(runs, resamples=RESAMPLES, seed=0)
    conditions = {(r["condition"], r["metric"]): r for r in result.conditions.iter_rows(named=True)}
    checked = 0
    for row in result.paired.drop_nulls("delta").iter_rows(named=True):
        for side in ("a", "b"):
            expected = conditions[(row[f"condition_{side}"], row["metric"])]["mean"]
            assert row[f"mean_{side}"] == pytest.approx(expected, abs=1e-12)
        assert row["delta"] == pytest.approx(row["mean_b"] - row["mean_a"], abs=1e-12)
        checked += 1
    assert checked > 300


def test_every_interval_excludes_zero_exactly_when_p_is_below_005(runs: list[Run]) -> None:
    result = compare_loaded(runs, resamples=RESAMPLES, seed=3)
    rows = result.paired.drop_nulls("p_value")
    excludes = (rows.get_column("ci_low") > 0) | (rows.get_column("ci_high") < 0)
    assert (excludes == (rows.get_column("p_value") < 0.05)).all()
    inside = rows.filter((pl.col("ci_low") <= pl.col("delta")) & (pl.col("delta") <= pl.col("ci_high")))
    assert inside.height == rows.height


def test_missing_samples_are_counted_and_reported(runs: list[Run]) -> None:
    keys = runs[2].table.get_column("sample_key").to_list()[:3]
    varied = [without(runs[2], keys), *runs[:2], *runs[3:]]
    result = compare_loaded(varied, resamples=RESAMPLES, seed=0)
    assert result.missing_samples.get_column("sample_key").to_list() == sorted(keys)
    assert result.missing_samples.get_column("missing_from").to_list() == [[runs[2].run_id]] * 3
    m0_vs_m1 = result.paired.filter(condition_b="cr_n50_m1_v2")
    assert m0_vs_m1.get_column("n_samples").unique().to_list() == [47]
    assert m0_vs_m1.get_column("n_partial").unique().to_list() == [3]
    assert any("3 of 50 samples are missing" in note for note in result.notes)
    merged = result.per_sample.filter(pl.col("sample_key").is_in(keys))
    assert merged.get_column("n_runs").to_list() == [4, 4, 4]
    assert merged.get_column(f"{runs[2].run_id}/refpol_s2_f1").null_count() == 3
    alone = compare_loaded([without(runs[0], keys), runs[2]], resamples=RESAMPLES, seed=0)
    row = alone.paired.row(0, named=True)
    assert (row["n_samples"], row["n_only_a"], row["n_only_b"]) == (47, 0, 3)


def test_tuple_agreement_and_jaccard_follow_their_definitions(runs: list[Run]) -> None:
    a, b = runs[0], runs[1]
    keys = a.table.get_column("sample_key").to_list()[:3]
    sets = {  # sample -> (final tuples of run a, of run b); Jaccard 1/3, 1 (both empty), 1 (identical)
        keys[0]: ('[["r","x","positive"],["r","y","negative"]]', '[["r","y","negative"],["r","z","neutral"]]'),
        keys[1]: ("[]", "[]"),
        keys[2]: ('[["r","x","positive"]]', '[["r","x","positive"]]'),
    }

    def with_sets(run: Run, side: int) -> Run:
        table = run.table.filter(pl.col("sample_key").is_in(keys)).sort("sample_key")
        texts = [sets[k][side] for k in table.get_column("sample_key").to_list()]
        return dataclasses.replace(run, table=table.with_columns(
            pl.Series("final_tuples", texts), pl.Series("n_s2", [len(json.loads(t)) for t in texts], pl.Int64)))

    result = compare_loaded([with_sets(a, 0), with_sets(b, 1)], resamples=RESAMPLES, seed=0)
    row = result.self_consistency.row(0, named=True)
    assert (row["n_samples"], row["cross_run_max_runs"]) == (3, 2)
    assert row["cross_run_tuple_agreement"] == pytest.approx(2 / 3)
    assert row["mean_jaccard"] == pytest.approx((1 / 3 + 1 + 1) / 3)


def test_flips_use_the_majority_of_runs(runs: list[Run]) -> None:
    result = compare_loaded(runs, resamples=RESAMPLES, seed=0)
    key_order = result.per_sample.get_column("sample_key")
    for row in result.flips.iter_rows(named=True):
        majority = []
        for condition in (row["condition_a"], row["condition_b"]):
            ids = result.runs.filter(condition=condition).get_column("run_id").to_list()
            votes = np.column_stack([result.per_sample.get_column(f"{i}/{row['unit']}_s2_correct") for i in ids])
            majority.append(votes.sum(axis=1) * 2 > len(ids))
        a, b = majority
        assert len(a) == len(key_order) == row["n_samples"]
        assert (row["both"], row["only_a"], row["only_b"], row["neither"]) == (
            int((a & b).sum()), int((a & ~b).sum()), int((~a & b).sum()), int((~a & ~b).sum()))


def test_to_dict_is_json_ready_and_matches_the_tables(runs: list[Run]) -> None:
    result = compare_loaded(runs[:3], resamples=RESAMPLES, seed=0)
    payload = json.loads(json.dumps(result.to_dict()))
    assert payload["baseline"] == "cr_n50_m0_v2" and payload["resamples"] == RESAMPLES
    assert payload["paired"] == result.paired.to_dicts()
    assert [r["run_id"] for r in payload["runs"]] == result.runs.get_column("run_id").to_list()
    assert "per_sample" not in payload and "per_sample" in result.to_dict(include_per_sample=True)
