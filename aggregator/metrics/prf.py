"""Precision, recall and F1 from counts: the one core every F1 in the project goes through.

P = tp / (tp + fp), R = tp / (tp + fn), F1 = 2PR / (P + R); each is 0 when its
denominator is 0 (the reference's zero-division policy).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl


def prf_exprs(tp: pl.Expr, fp: pl.Expr, fn: pl.Expr) -> tuple[pl.Expr, pl.Expr, pl.Expr]:
    """Polars expressions for (P, R, F1) of count columns, 0 on zero denominators."""
    import polars as pl

    precision = pl.when(tp + fp > 0).then(tp / (tp + fp)).otherwise(0.0)
    recall = pl.when(tp + fn > 0).then(tp / (tp + fn)).otherwise(0.0)
    f1 = pl.when(precision + recall > 0).then(2 * precision * recall / (precision + recall)).otherwise(0.0)
    return precision, recall, f1


def prf(tp: float, fp: float, fn: float) -> tuple[float, float, float]:
    """Scalar (P, R, F1) with the same policy.

    >>> prf(1, 1, 0)
    (0.5, 1.0, 0.6666666666666666)
    """
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return precision, recall, f1
