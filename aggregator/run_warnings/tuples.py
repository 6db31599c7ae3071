"""Facts about the predicted and gold tuples of a run, read from the per-sample table's tuple text.

The per-sample table keeps each sample's tuple sets as canonical JSON text
(:func:`aggregator.sample_counts.tuples_text`); the checks that need single tuples
(polarities, refs against terms) explode that text into one row per tuple.
"""

from __future__ import annotations

from collections.abc import Iterable

import polars as pl

from aggregator.units import surface_key
from scorecards.normalize import norm_term

STAGE_COLUMNS = {"gold": "gold_tuples", "s1": "stage1_tuples", "s2": "final_tuples"}
_TRIPLES = pl.List(pl.List(pl.String))


def exploded(table: pl.DataFrame, stage: str, *, gold_only: bool = True) -> pl.DataFrame:
    """One row per tuple of ``stage`` (gold, s1 or s2): ``ref``, ``term``, ``polarity``;
    only the samples with gold unless ``gold_only`` is False."""
    rows = table.lazy()
    if gold_only:
        rows = rows.filter(pl.col("has_gold"))
    triples = (
        rows.select(pl.col(STAGE_COLUMNS[stage]).str.json_decode(_TRIPLES).alias("t"))
        .explode("t")
        .drop_nulls("t")
    )
    return triples.select(
        pl.col("t").list.get(0).alias("ref"),
        pl.col("t").list.get(1).alias("term"),
        pl.col("t").list.get(2).alias("polarity"),
    ).collect()


def polarities(table: pl.DataFrame, stage: str) -> dict[str, int]:
    """``{polarity: tuples}`` of ``stage`` on the samples with gold."""
    counts = exploded(table, stage).get_column("polarity").value_counts()
    return dict(sorted(counts.iter_rows()))


def is_copy_of_term(ref: str, term: str) -> bool:
    """The ref is the tuple's own term: they are equal once the ref is normalized as a term."""
    return bool(ref) and surface_key(norm_term(ref)) == surface_key(term)


def refs_copying_terms(table: pl.DataFrame, stages: Iterable[str] = ("s1", "s2")) -> tuple[int, int]:
    """(predicted tuples whose non-empty ref copies their term, predicted tuples with a non-empty ref),
    over the samples with gold."""
    copies = filled = 0
    for stage in stages:
        pairs = exploded(table, stage).filter(pl.col("ref") != "").group_by("ref", "term").len()
        for ref, term, n in pairs.iter_rows():
            filled += n
            copies += n if is_copy_of_term(ref, term) else 0
    return copies, filled
