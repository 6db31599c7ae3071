"""The per-sample table: one row per sample, counts plus per-sample scores derived from them.

Derived columns, for each unit ``u`` in refpol/otepol/attrpol and stage ``s`` in s1/s2:

- ``u_s_precision``, ``u_s_recall``, ``u_s_f1``: :func:`~aggregator.metrics.prf.prf_exprs` of the counts;
- ``u_s_correct``: P = 1 and R = 1, i.e. fp = fn = 0 and tp > 0; for a unit with
  ``empty_gold_correct`` (attrpol) empty gold and empty prediction is correct too;
- ``u_transition``: fix (S1 wrong, S2 correct), break (S1 correct, S2 wrong),
  keep (both correct), still (both wrong).

Plus ``refpol_explicit_s2_f1``, ``otepol_explicit_s2_{precision,recall,f1}`` and
``implicit_polarity_f1`` (null when the sample is not eligible).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING

import polars as pl

from aggregator.metrics.prf import prf_exprs
from aggregator.run.sample_values import frame_of, pack_rows, table_of
from aggregator.units.projection import TRANSITIONS, UNITS
from aggregator.units.sample_counts import COLUMNS, STAGES, Column

if TYPE_CHECKING:
    from scorecards.read_result import Indices

TRANSITION = pl.Enum(TRANSITIONS)
"""The type of the transition columns (1 byte a row)."""


def _scores(prefix: str) -> list[pl.Expr]:
    tp, fp, fn = (pl.col(f"{prefix}_{c}") for c in ("tp", "fp", "fn"))
    precision, recall, f1 = prf_exprs(tp, fp, fn)
    return [
        precision.alias(f"{prefix}_precision"),
        recall.alias(f"{prefix}_recall"),
        f1.alias(f"{prefix}_f1"),
    ]


def _correct(prefix: str, empty_gold_correct: bool) -> pl.Expr:
    tp, fp, fn = (pl.col(f"{prefix}_{c}") for c in ("tp", "fp", "fn"))
    has_match = pl.lit(True) if empty_gold_correct else tp > 0
    return ((fp == 0) & (fn == 0) & has_match).alias(f"{prefix}_correct")


def _transition(unit: str) -> pl.Expr:
    before, after = pl.col(f"{unit}_s1_correct"), pl.col(f"{unit}_s2_correct")
    fix, broken, keep, still = (pl.lit(t, dtype=TRANSITION) for t in TRANSITIONS)
    return (
        pl.when(before & after).then(keep).when(after).then(fix).when(before).then(broken).otherwise(still)
        .alias(f"{unit}_transition")
    )


@cache
def _derived() -> tuple[list[pl.Expr], list[pl.Expr]]:
    """The derived columns in two steps (transitions read the correctness columns), built once."""
    scores = [e for unit in UNITS for stage in STAGES for e in _scores(f"{unit}_{stage}")]
    scores += _scores("refpol_explicit_s2") + _scores("otepol_explicit_s2")
    implicit_f1 = _scores("implicit_polarity")[2]
    scores.append(pl.when(pl.col("implicit_eligible")).then(implicit_f1).alias("implicit_polarity_f1"))
    correct = [_correct(f"{u.name}_{s}", u.empty_gold_correct) for u in UNITS.values() for s in STAGES]
    return scores + correct, [_transition(unit) for unit in UNITS]


def derive(counts: pl.DataFrame) -> pl.DataFrame:
    """Add per-sample scores, correctness and transitions to a counts table.

    One query; its result is made one chunk again, so that float sums over it (the
    metrics) do not depend on how many threads computed it. The in-memory engine gives one
    chunk for columns of one chunk (the default engine may split them, and the rechunk
    would then copy the whole table: 1 GB at 1,000,000 rows).
    """
    first, second = _derived()
    return counts.lazy().with_columns(first).with_columns(second).collect(engine="in-memory").rechunk()


def build_table(
    rows: Sequence[tuple[object, ...]], lines: Sequence[int], columns: Sequence[Column] = COLUMNS
) -> pl.DataFrame:
    """The per-sample table in sample-key order (code-point order), then split, then run id (then line).

    (sample key, split, run id) is unique, so the order, and every float sum over it, does
    not depend on the input's line order, also for merged files.

    ``rows`` are per-sample tuples in ``columns`` order (the core's
    :func:`~aggregator.units.sample_counts.sample_counts`, then each family's) and ``lines``
    their line numbers in the input file. (The pipeline builds the same table from the
    reader's blocks: :func:`table_of_blocks`.)
    """
    return table_of_blocks([frame_of([pack_rows(rows, columns)], columns)], lines, None)


def table_of_blocks(frames: list[pl.DataFrame], lines: Sequence[int], kept: Indices | None) -> pl.DataFrame:
    """:func:`build_table` of rows already in frames (:mod:`aggregator.run.sample_values`), consumed."""
    return derive(table_of(frames, lines, kept))


def filter_profile(table: pl.DataFrame, profile: str | None) -> pl.DataFrame:
    """Keep the samples of one profile (all samples when ``profile`` is None)."""
    return table if profile is None else table.filter(pl.col("profile") == profile)
