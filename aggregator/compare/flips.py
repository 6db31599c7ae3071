"""``flips.csv``: per pair of conditions and unit, how final-stage correctness splits the samples.

Over samples that count (present with gold) in at least one run of each condition, a sample is
correct in a condition when its final stage is correct in most of the runs in which it counts
(strictly more than half). ``both + only_a + only_b + neither = n_samples``.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import polars as pl

from aggregator.compare.samples import UNIT_NAMES, ConditionSamples

SCHEMA = {
    "condition_a": pl.String,
    "condition_b": pl.String,
    "unit": pl.String,
    "n_samples": pl.Int64,
    "both": pl.Int64,
    "only_a": pl.Int64,
    "only_b": pl.Int64,
    "neither": pl.Int64,
}


def flips_table(conditions: Sequence[ConditionSamples]) -> pl.DataFrame:
    """Every pair (A, B) of ``conditions`` with A before B, then unit order."""
    rows: list[dict[str, object]] = []
    for a, b in combinations(conditions, 2):
        both = (a.n_counted > 0) & (b.n_counted > 0)
        for unit in UNIT_NAMES:
            ca, cb = a.correct[unit][both], b.correct[unit][both]
            rows.append({
                "condition_a": a.name,
                "condition_b": b.name,
                "unit": unit,
                "n_samples": int(both.sum()),
                "both": int((ca & cb).sum()),
                "only_a": int((ca & ~cb).sum()),
                "only_b": int((~ca & cb).sum()),
                "neither": int((~ca & ~cb).sum()),
            })
    return pl.DataFrame(rows, schema=SCHEMA, orient="row")
