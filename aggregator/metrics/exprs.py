"""Polars building blocks every metric declaration uses: restriction to gold samples, ratios
that are blank on a zero denominator, counts, transitions and micro F1.

Kept apart from :mod:`aggregator.metrics.structural` (which builds the registry from the
families on import) so that a family module can import them at its top.
"""

from __future__ import annotations

import polars as pl

from aggregator.metrics.prf import prf_exprs

HAS_GOLD = pl.col("has_gold")


def on_gold(column: str) -> pl.Expr:
    """A per-sample column restricted to samples with gold."""
    return pl.col(column).filter(HAS_GOLD)


def ratio(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """numerator / denominator, null when the denominator is 0."""
    return pl.when(denominator > 0).then(numerator / denominator)


def count(condition: pl.Expr) -> pl.Expr:
    """How many samples satisfy ``condition``."""
    return condition.sum().cast(pl.Int64)


def transitions(unit: str, kind: str) -> pl.Expr:
    """Samples with gold whose ``unit`` transition is ``kind``."""
    return count(HAS_GOLD & (pl.col(f"{unit}_transition") == kind))


def transition_counts(table: pl.DataFrame) -> dict[str, dict[str, int]]:
    """``{unit: {fix|keep|break|still: samples with gold}}`` of a per-sample table."""
    from aggregator.units.projection import TRANSITIONS, UNITS  # here: keeps the declarations' import chain short

    row = table.select(transitions(u, k).alias(f"{u}:{k}") for u in UNITS for k in TRANSITIONS).row(0, named=True)
    return {u: {k: int(row[f"{u}:{k}"] or 0) for k in TRANSITIONS} for u in UNITS}


def f1_of_sums(tp: pl.Expr, fp: pl.Expr, fn: pl.Expr) -> pl.Expr:
    """Micro F1: :func:`~aggregator.metrics.prf.prf_exprs` of summed counts; null when all sums are 0."""
    return pl.when(tp + fp + fn > 0).then(prf_exprs(tp, fp, fn)[2])
