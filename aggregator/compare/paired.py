"""``paired.csv``: every condition against the baseline, per unit, for per-sample F1 S2 and ΔF1.

A sample enters a pair when it counts (present with gold) in at least one run of each
condition; its score in a condition is its mean over that condition's runs in which it counts
(:class:`~aggregator.compare.samples.ConditionSamples`). Samples counting in only one of the two
conditions are reported as ``n_only_a`` / ``n_only_b``, never used. Statistics: :mod:`.stats`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from aggregator.compare.samples import UNIT_NAMES, ConditionSamples
from aggregator.compare.stats import PairedTests, paired_tests

STATISTICS = ("f1_s2", "delta_f1")
SCHEMA = {
    "condition_a": pl.String,
    "condition_b": pl.String,
    "unit": pl.String,
    "statistic": pl.String,
    "n_samples": pl.Int64,
    "n_only_a": pl.Int64,
    "n_only_b": pl.Int64,
    "mean_a": pl.Float64,
    "mean_b": pl.Float64,
    "delta": pl.Float64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
    "p_value": pl.Float64,
}


def _scores(condition: ConditionSamples, mask: np.ndarray) -> np.ndarray:
    """``(n, units × statistics)`` per-sample scores of ``condition`` on the samples of ``mask``."""
    return np.column_stack([getattr(condition, stat)[u][mask] for u in UNIT_NAMES for stat in STATISTICS])


def _means(scores: np.ndarray) -> np.ndarray:
    """Column means, NaN when there is no sample."""
    return scores.mean(axis=0) if len(scores) else np.full(scores.shape[1], np.nan)


def _number(value: float) -> float | None:
    return None if np.isnan(value) else float(value)


def _tests_by_size(diffs: list[np.ndarray], resamples: int, seed: int) -> list[PairedTests]:
    """:func:`paired_tests` of each matrix; matrices with the same number of samples share one call.

    The draws depend only on the number of samples, the resamples and the seed, so sharing a call
    gives each pair the same numbers as a call of its own, at a fraction of the cost.
    """
    results: list[PairedTests | None] = [None] * len(diffs)
    for n in sorted({d.shape[0] for d in diffs}):
        members = [i for i, d in enumerate(diffs) if d.shape[0] == n]
        joint = paired_tests(np.hstack([diffs[i] for i in members]), resamples=resamples, seed=seed)
        k = diffs[members[0]].shape[1]
        for place, i in enumerate(members):
            results[i] = joint.columns(slice(place * k, (place + 1) * k))
    return [r for r in results if r is not None]


def paired_table(
    baseline: ConditionSamples, others: Sequence[ConditionSamples], *, resamples: int, seed: int
) -> pl.DataFrame:
    """Rows in condition, unit, statistic order; see :data:`SCHEMA` for the columns."""
    labels = [(u, stat) for u in UNIT_NAMES for stat in STATISTICS]
    masks = [(baseline.n_counted > 0, other.n_counted > 0) for other in others]
    scores = [(_scores(baseline, a & b), _scores(other, a & b)) for other, (a, b) in zip(others, masks)]
    tests = _tests_by_size([b - a for a, b in scores], resamples, seed)
    rows: list[dict[str, object]] = []
    for other, (in_a, in_b), (a, b), test in zip(others, masks, scores, tests):
        mean_a, mean_b = _means(a), _means(b)
        for j, (unit, stat) in enumerate(labels):
            rows.append({
                "condition_a": baseline.name,
                "condition_b": other.name,
                "unit": unit,
                "statistic": stat,
                "n_samples": len(a),
                "n_only_a": int((in_a & ~in_b).sum()),
                "n_only_b": int((in_b & ~in_a).sum()),
                "mean_a": _number(mean_a[j]),
                "mean_b": _number(mean_b[j]),
                "delta": _number(test.delta[j]),
                "ci_low": _number(test.ci_low[j]),
                "ci_high": _number(test.ci_high[j]),
                "p_value": _number(test.p_value[j]),
            })
    return pl.DataFrame(rows, schema=SCHEMA, orient="row")
