"""Polarity repair (DIAGNOSTICS.md family 14): polarity labels repaired vs rejected as invalid.

``polarity_repair_n`` = Σ over rows of int ``meta.polarity_repair_count`` plus the side file's
``override_hint_repair_total`` (0 when the file or the key is absent, or when ``--profile``
matched no row); ``polarity_invalid_n`` likewise with ``meta.polarity_invalid_count`` and
``override_hint_invalid_total``. The two rates are each count over their sum, blank when it is 0.
The side file is the one of :mod:`aggregator.metrics.override` (quirk Q11), so these columns
are run-level.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from aggregator.metrics.family import Family, RowInput
from aggregator.metrics.override import SIDE, SIDE_NAME
from aggregator.metrics.reads import as_int
from aggregator.metrics.registry import Metric, Registry, RunContext, RunLevel
from aggregator.units.sample_counts import Column

if TYPE_CHECKING:
    import polars as pl

KINDS = {"repair": "override_hint_repair_total", "invalid": "override_hint_invalid_total"}


class _Meta(msgspec.Struct, gc=False):
    polarity_repair_count: Any = None
    polarity_invalid_count: Any = None


class _Fields(msgspec.Struct, gc=False):
    meta: _Meta | None = None


COLUMNS = (
    Column("polarity_repair_count", "int", "int meta.polarity_repair_count (0 when absent)"),
    Column("polarity_invalid_count", "int", "int meta.polarity_invalid_count (0 when absent)"),
)


def row(inp: RowInput) -> tuple[object, ...]:
    meta = inp.row.meta
    if meta is None:
        return (0, 0)
    return (as_int(meta.polarity_repair_count), as_int(meta.polarity_invalid_count))


def total(kind: str, table: pl.DataFrame, ctx: RunContext) -> int:
    """Σ of the rows' ``meta.polarity_<kind>_count`` plus the side file's total for ``kind``."""
    side = getattr(ctx.side.get(SIDE_NAME), KINDS[kind], None)
    return int(table.get_column(f"polarity_{kind}_count").sum()) + (side or 0)


def _count(kind: str) -> RunLevel:
    return lambda table, ctx: total(kind, table, ctx)


def _rate(kind: str) -> RunLevel:
    def rate(table: pl.DataFrame, ctx: RunContext) -> float | None:
        both = total("repair", table, ctx) + total("invalid", table, ctx)
        return total(kind, table, ctx) / both if both else None

    return rate


def declare(reg: Registry) -> None:
    what = {"repair": "repaired", "invalid": "rejected as invalid"}
    for kind in KINDS:
        reg.add(Metric(f"polarity_{kind}_n", f"Polarity labels {what[kind]}",
                       f"polarity labels {what[kind]}: the rows' counts plus the run's side-file total",
                       f"Σ int(meta.polarity_{kind}_count) + side {KINDS[kind]}", None, kind="int",
                       averaging="count", requires_gold=False, run_level=_count(kind)))
    for kind in KINDS:
        reg.add(Metric(f"polarity_{kind}_rate", f"Polarity {kind} rate",
                       f"share of problem polarity labels that were {what[kind]}",
                       f"polarity_{kind}_n / (polarity_repair_n + polarity_invalid_n)", None,
                       averaging="pooled", requires_gold=False, run_level=_rate(kind),
                       blank_when="polarity_repair_n + polarity_invalid_n = 0"))


FAMILY = Family(
    name="polarity_repair",
    title="Polarity repair",
    source="DIAGNOSTICS.md family 14",
    columns=COLUMNS,
    row=row,
    declare=declare,
    fields=_Fields,
    side_file=SIDE,
)
