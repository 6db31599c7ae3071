"""Agreement of the review agents: hand-worked, against statsmodels and krippendorff, and on the real runs."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aggregator.compare.agreement import agreement_table
from aggregator.compare.runs import load_runs
from aggregator.stats.agreement import CATEGORIES, agreement_registry, sample_stats
from tests.conftest import RUNS


def oracles() -> tuple[object, object]:
    """The maintained implementations (test extras): krippendorff and statsmodels' inter_rater."""
    return pytest.importorskip("krippendorff"), pytest.importorskip("statsmodels.stats.inter_rater")


def ours(samples: list[list[list[str]]]) -> dict[str, object]:
    table = sample_stats(pl.DataFrame({"labels": [json.dumps(s) for s in samples]}), "labels")
    return agreement_registry().compute(table.with_columns(pl.lit(1).alias("n_gold")))


def counts(samples: list[list[list[str]]]) -> np.ndarray:
    """Items × categories: how many of the three agents gave each label."""
    return np.array([[labels.count(c) for c in CATEGORIES] for sample in samples for labels in sample])


def test_hand_worked_example() -> None:
    # Items (KEEP, KEEP, KEEP) and (KEEP, DROP, DROP); n = 2 items, m = 3 agents.
    # Fleiss: P1 = 1, P2 = (1 + 4 - 3) / 6 = 1/3, P̄ = 2/3; p_KEEP = 4/6, p_DROP = 2/6, P_e = 5/9;
    #         κ = (2/3 - 5/9) / (1 - 5/9) = 1/4.
    # Krippendorff: 6 values; D_o = (0 + (9 - 5) / 2) / 6 = 1/3; D_e = (36 - 16 - 4) / (6 · 5) = 8/15;
    #         α = 1 - (1/3) / (8/15) = 3/8.
    got = ours([[["KEEP", "KEEP", "KEEP"]], [["KEEP", "DROP", "DROP"]]])
    assert got["fleiss_kappa"] == pytest.approx(0.25)
    assert got["krippendorff_alpha"] == pytest.approx(0.375)
    assert got["observed_agreement"] == pytest.approx(2 / 3)


label = st.sampled_from(CATEGORIES[:4])
samples = st.lists(st.lists(st.lists(label, min_size=3, max_size=3), min_size=1, max_size=4), min_size=2, max_size=12)


@settings(max_examples=60, deadline=None)
@given(samples)
def test_same_as_the_maintained_implementations(drawn: list[list[list[str]]]) -> None:
    krippendorff, inter_rater = oracles()
    table = counts(drawn)
    got = ours(drawn)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected_kappa = inter_rater.fleiss_kappa(table, method="fleiss")
    if np.isfinite(expected_kappa):
        assert got["fleiss_kappa"] == pytest.approx(expected_kappa, abs=1e-12)
    else:
        assert got["fleiss_kappa"] is None
    used = table[:, table.sum(axis=0) > 0]
    if used.shape[1] > 1:
        expected_alpha = krippendorff.alpha(value_counts=used, level_of_measurement="nominal")
        assert got["krippendorff_alpha"] == pytest.approx(expected_alpha, abs=1e-12)
    else:
        assert got["krippendorff_alpha"] is None


def test_the_real_runs_pooled_and_per_condition() -> None:
    krippendorff, inter_rater = oracles()
    runs = load_runs(sorted(RUNS.iterdir()))
    table = agreement_table(runs, ["cr_n50_m0_v2", "cr_n50_m1_v2", "cr_n50_m2_v2"], resamples=500, seed=0)
    assert table.get_column("scope").to_list() == ["pooled", "cr_n50_m0_v2", "cr_n50_m1_v2", "cr_n50_m2_v2"]
    assert table.get_column("n_runs").to_list() == [13, 3, 5, 5]
    pooled = pl.concat([sample_stats(r.table, "aar_labels") for r in runs])
    matrix = np.concatenate([counts([json.loads(t)]) for r in runs
                             for t in r.table.get_column("aar_labels").drop_nulls().to_list() if t != "[]"])
    row = table.row(0, named=True)
    assert row["n_items"] == int(pooled.get_column("items").sum()) == len(matrix)
    assert row["fleiss_kappa"] == pytest.approx(inter_rater.fleiss_kappa(matrix), abs=1e-12)
    assert row["krippendorff_alpha"] == pytest.approx(
        krippendorff.alpha(value_counts=matrix[:, matrix.sum(axis=0) > 0], level_of_measurement="nominal"), abs=1e-12)
    for stat in ("fleiss_kappa", "krippendorff_alpha", "observed_agreement"):
        for r in table.iter_rows(named=True):
            assert r[f"{stat}_ci_low"] <= r[stat] <= r[f"{stat}_ci_high"]
