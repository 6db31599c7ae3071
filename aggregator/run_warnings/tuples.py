"""Polarities of a run's tuples, counted in the per-sample table's tuple text.

The per-sample table keeps each sample's tuple sets as canonical JSON text
(:func:`aggregator.units.sample_counts.tuples_text`): ``[["ref","term","polarity"], ...]``. A
normalized polarity is one of four words and closes its triple, so ``,"positive"]`` occurs in
the text exactly once per tuple of that polarity (a quote inside a ref or term is escaped).
"""

from __future__ import annotations

import polars as pl

STAGE_COLUMNS = {"gold": "gold_tuples", "s1": "stage1_tuples", "s2": "final_tuples"}
POLARITIES = ("positive", "negative", "neutral", "mixed")


def polarities(table: pl.DataFrame, stage: str) -> dict[str, int]:
    """``{polarity: tuples}`` of ``stage`` (gold, s1 or s2) on the samples with gold; polarities never seen left out."""
    text = pl.col(STAGE_COLUMNS[stage]).filter(pl.col("has_gold"))
    row = table.select(text.str.count_matches(f',"{p}"]', literal=True).sum().alias(p) for p in POLARITIES).row(0)
    return {p: int(n) for p, n in zip(POLARITIES, row) if n}
