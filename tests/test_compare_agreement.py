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


def test_one_item_and_no_item() -> None:
    # One item (KEEP, KEEP, DROP): squares 2² + 1² = 5, P̄ = (5 − 3) / 6 = 1/3; p = (2/3, 1/3), P_e = 5/9,
    # κ = (1/3 − 5/9) / (4/9) = −1/2; Krippendorff: D_o = (9 − 5) / 2 / 3 = 2/3, D_e = (9 − 5) / 6 = 2/3, α = 0.
    got = ours([[["KEEP", "KEEP", "DROP"]]])
    assert got["observed_agreement"] == pytest.approx(1 / 3)
    assert got["fleiss_kappa"] == pytest.approx(-0.5) and got["krippendorff_alpha"] == pytest.approx(0.0)
    assert ours([[]]) == {"fleiss_kappa": None, "krippendorff_alpha": None, "observed_agreement": None}


def test_samples_without_labels_count_no_item() -> None:
    table = pl.DataFrame({"labels": [None, "[]", json.dumps([["KEEP", "DROP", "DROP"]])]})
    stats = sample_stats(table, "labels")
    assert stats.get_column("items").to_list() == [0, 0, 1] and stats.get_column("squares").to_list() == [0, 0, 5]
    assert stats.get_column("c_DROP").to_list() == [0, 0, 2]


def test_the_agreement_metrics_need_no_gold_and_are_better_higher() -> None:
    registry = agreement_registry()
    assert [(m.name, m.label, m.higher_is_better) for m in registry] == [
        ("fleiss_kappa", "Fleiss' κ", True), ("krippendorff_alpha", "Krippendorff's α (nominal)", True),
        ("observed_agreement", "Observed agreement (P̄)", True)]
    assert all(m.meaning == f"{m.label} of review agents A, B, C" and m.formula == "see aggregator.stats.agreement"
               for m in registry)
    table = sample_stats(pl.DataFrame({"labels": [json.dumps([["KEEP", "KEEP", "KEEP"], ["KEEP", "DROP", "DROP"]])]}),
                         "labels")
    assert registry.compute(table.with_columns(pl.lit(0).alias("n_gold")))["fleiss_kappa"] == pytest.approx(0.25)


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
