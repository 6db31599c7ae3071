"""Polarity conflict (DIAGNOSTICS.md family 6): one aspect ref, two polarities in the final output.

Per sample: ``polarity_conflict`` (PC) = some non-empty ref of S2 carries at least two
distinct polarities (refs and polarities as normalized in S2). Every column is over all
rows (N_rows), never blank.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from aggregator.metrics.family import Family, RowInput
from aggregator.metrics.registry import Metric, Registry
from aggregator.units.sample_counts import Column

if TYPE_CHECKING:
    from scorecards.tuples import TupleSet

COLUMNS = (Column("polarity_conflict", "bool", "PC: some non-empty ref carries ≥ 2 polarities in S2"),)


def has_conflict(tuples: TupleSet) -> bool:
    """Some non-empty ref of ``tuples`` carries two or more distinct polarities."""
    seen: dict[str, str] = {}
    for t in tuples:
        if t.aspect_ref and seen.setdefault(t.aspect_ref, t.polarity) != t.polarity:
            return True
    return False


def row(inp: RowInput) -> tuple[object, ...]:
    return (has_conflict(inp.record.final),)


def declare(reg: Registry) -> None:
    rate = pl.col("polarity_conflict").mean()
    reg.add(Metric("polarity_conflict_rate_raw", "Polarity conflict rate",
                   "share of rows whose final output gives one aspect ref two polarities",
                   "Σ [PC] / N_rows", rate, averaging="pooled", section="diagnostics",
                   requires_gold=False, higher_is_better=False))
    for name in ("polarity_conflict_rate", "polarity_conflict_rate_after_rep"):
        reg.alias(name, "polarity_conflict_rate_raw")


FAMILY = Family(
    name="conflict",
    title="Polarity conflict",
    source="DIAGNOSTICS.md family 6",
    columns=COLUMNS,
    row=row,
    declare=declare,
)
