"""The Polars building blocks of :mod:`aggregator.metrics.exprs`, on small hand-made per-sample tables."""

from __future__ import annotations

import polars as pl
import pytest

from aggregator.metrics.exprs import count, f1_of_sums, on_gold, ratio, transition_counts, transitions
from aggregator.units.projection import TRANSITIONS

TRANSITION = pl.Enum(TRANSITIONS)


def test_on_gold_keeps_the_samples_with_gold_only() -> None:
    table = pl.DataFrame({"has_gold": [True, False, True], "x": [1, 10, 100]})
    assert table.select(on_gold("x").sum()).item() == 101


def test_ratio_is_blank_when_the_denominator_is_zero() -> None:
    table = pl.DataFrame({"a": [3, 0, 2], "b": [4, 0, 1]})
    assert table.select(ratio(pl.col("a"), pl.col("b"))).to_series().to_list() == [0.75, None, 2.0]


def test_count_is_the_number_of_samples_where_the_condition_holds_as_int64() -> None:
    got = pl.DataFrame({"c": [True, False, True, True]}).select(count(pl.col("c")))
    assert got.item() == 3 and got.dtypes == [pl.Int64]


@pytest.mark.parametrize(("tp", "fp", "fn", "f1"), [
    ([1, 0], [1, 0], [0, 0], 2 / 3),  # sums 1, 1, 0: P 1/2, R 1, F1 2·(1/2)/(3/2)
    ([0, 0], [0, 1], [0, 0], 0.0),    # a prediction and nothing right: 0, not blank
    ([0, 0], [0, 0], [2, 1], 0.0),    # gold and nothing predicted: 0, not blank
    ([2, 1], [1, 0], [0, 3], 0.6),    # sums 3, 1, 3: P 3/4, R 1/2, F1 2·(3/8)/(5/4)
    ([0, 0], [0, 0], [0, 0], None),   # nothing predicted, nothing gold: blank
])
def test_f1_of_sums_is_micro_f1_blank_when_every_sum_is_zero(tp: list[int], fp: list[int], fn: list[int],
                                                           f1: float | None) -> None:
    table = pl.DataFrame({"tp": tp, "fp": fp, "fn": fn})
    got = table.select(f1_of_sums(pl.col("tp").sum(), pl.col("fp").sum(), pl.col("fn").sum())).item()
    assert got == (None if f1 is None else pytest.approx(f1))


def test_transition_counts_count_the_samples_with_gold_per_unit_and_kind() -> None:
    """Four samples with gold and two without (their transitions must not count)."""
    table = pl.DataFrame({
        "has_gold": [True, True, True, True, False, False],
        "refpol_transition": ["fix", "fix", "keep", "break", "still", "fix"],
        "otepol_transition": ["still", "still", "still", "keep", "keep", "keep"],
        "attrpol_transition": ["break", "fix", "keep", "still", "fix", "fix"],
    }).with_columns(pl.col(f"{u}_transition").cast(TRANSITION) for u in ("refpol", "otepol", "attrpol"))
    assert transition_counts(table) == {
        "refpol": {"fix": 2, "break": 1, "keep": 1, "still": 0},
        "otepol": {"fix": 0, "break": 0, "keep": 1, "still": 3},
        "attrpol": {"fix": 1, "break": 1, "keep": 1, "still": 1},
    }
    assert table.select(transitions("refpol", "fix")).item() == 2
    assert table.select(transitions("otepol", "keep")).item() == 1
