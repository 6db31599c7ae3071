"""Rewriting a registry's metrics for resampling, checked on a real per-sample table.

A metric is *not resampled* (with the reason kept) when it is not a function of weighted sums
(:mod:`aggregator.stats.leaves`): another aggregation (max, n_unique, …), an aggregation nested in a
row-wise part, a row-wise part that does not commute with drawing rows (shift, rank, window), a
run-level metric, or a rewritten form that does not give the metric's own value on the run.
:func:`compile_metrics` checks the last two on a real table, so a metric is either resampled exactly
or reported as not resampled. A text column (``kind`` str, e.g. the provenance family's version) is
never resampled.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from aggregator.stats.leaves import NotResampled, Rewriter, expression_of
from aggregator.stats.weighted import WeightedMetrics

if TYPE_CHECKING:
    from aggregator.metrics.registry import Metric, Registry
    from aggregator.stats.leaves import Leaf, Node

_ROW_LOCAL_CHECK_SEED = 20240601
ROW_LOCAL_CHECK_ROWS = 50_000
"""The rows on which row-wise parts are checked to commute with drawing rows (the first ones: a part
that reads other rows shows it on any 50,000; checking a million held 135 MB more)."""
_REL_TOL = 1e-9


def _serialized(registry: Registry, metric: Metric) -> Node:
    return json.loads(registry.expression(metric).meta.serialize(format="json"))


def _row_local(leaves: Sequence[Leaf], table: pl.DataFrame, picks: np.ndarray) -> dict[str, bool]:
    """Per leaf: does its row-wise part commute with drawing rows (as it must for resampling)?"""
    rows = [leaf for leaf in leaves if leaf.row is not None]
    found = {leaf.key: True for leaf in leaves}
    if not rows:
        return found
    exprs = [leaf.row.alias(leaf.key) for leaf in rows if leaf.row is not None]
    try:
        whole = table.select(exprs)
    except pl.exceptions.ShapeError:
        whole = None
    drawn = _columns_read(table, exprs)[picks].select(exprs) if whole is not None else None
    for leaf in rows:
        if whole is None or drawn is None or whole.height != table.height:
            found[leaf.key] = _row_local(  # one by one: some part is not row-wise at all
                [leaf], table, picks)[leaf.key] if len(rows) > 1 else False
        else:
            found[leaf.key] = drawn.get_column(leaf.key).equals(whole.get_column(leaf.key)[picks])
    return found


def _columns_read(table: pl.DataFrame, exprs: Sequence[pl.Expr]) -> pl.DataFrame:
    """The columns of ``table`` that ``exprs`` read (all of them when some name is not known beforehand),
    so that drawing rows does not copy the whole per-sample table."""
    names = sorted({name for expr in exprs for name in expr.meta.root_names()})
    if not names or any(expr.meta.has_multiple_outputs() for expr in exprs):
        return table
    return table.select(names)


def compile_metrics(registry: Registry, table: pl.DataFrame, names: Iterable[str] | None = None) -> WeightedMetrics:
    """Rewrite the metrics ``names`` (default: every metric) of ``registry`` for resampling.

    ``table`` is a real per-sample table: the leaves' types come from it, every row-wise part is
    checked to commute with drawing rows (on its first :data:`ROW_LOCAL_CHECK_ROWS` rows), and every rewritten metric must give, with all weights
    1, the value ``registry.compute(table)`` gives (else it is not resampled).
    """
    rewriter = Rewriter()
    scalars: dict[str, pl.Expr] = {}
    not_resampled: dict[str, str] = {}
    wanted = list(registry.names if names is None else names)
    for name in wanted:
        metric = registry[name]
        if metric.run_level is not None:
            not_resampled[name] = "run-level metric (not an expression over samples)"
            continue
        if metric.kind == "str":
            not_resampled[name] = "text column (no number to resample)"
            continue
        try:
            scalars[name] = expression_of(rewriter.rewrite(_serialized(registry, metric)))
        except NotResampled as exc:
            not_resampled[name] = str(exc)
    leaves = list(rewriter.leaves.values())
    checked = table.slice(0, ROW_LOCAL_CHECK_ROWS)
    picks = np.random.default_rng(_ROW_LOCAL_CHECK_SEED).integers(0, max(checked.height, 1), checked.height)
    local = _row_local(leaves, checked, picks)
    dtypes = [_leaf_dtype(leaf, table) for leaf in leaves]
    compiled = WeightedMetrics(list(scalars), list(scalars.values()), leaves, dtypes, {})
    row = table.select(registry.expression(registry[n]).alias(n) for n in compiled.names).row(0, named=True) \
        if compiled.names else {}
    expected = {n: row[n] for n in compiled.names}
    got = compiled.evaluate(np.array([[column.sum() for column in compiled.sample_columns(table)]]))[0]
    kept = []
    for k, name in enumerate(compiled.names):
        uses = set(compiled.scalars[k].meta.root_names())
        if not all(local[key] for key in uses if key in local):
            not_resampled[name] = "a per-sample part depends on other samples"
        elif not _same(expected[name], got[k]):
            not_resampled[name] = "the weighted form does not reproduce the metric"
        else:
            kept.append(k)
    return WeightedMetrics(
        names=[compiled.names[k] for k in kept],
        scalars=[compiled.scalars[k] for k in kept],
        leaves=leaves,
        leaf_dtypes=dtypes,
        not_resampled={n: not_resampled[n] for n in wanted if n in not_resampled},
    )


def _leaf_dtype(leaf: Leaf, table: pl.DataFrame) -> pl.DataType:
    """The type Polars gives the aggregation itself (e.g. UInt32 for the sum of a flag)."""
    if leaf.kind == "len":
        return table.select(pl.len()).dtypes[0]
    assert leaf.row is not None
    if leaf.kind in ("mean", "var", "std"):
        return pl.Float64()
    agg = {"sum": leaf.row.sum(), "count": leaf.row.count()}[leaf.kind]
    return table.select(agg).dtypes[0]


def _same(expected: float | None, got: float) -> bool:
    """The metric's value on the whole table (a number, None when undefined) and the compiled one agree."""
    if expected is None:
        return bool(np.isnan(got))
    value = float(expected)
    return not np.isnan(got) and abs(value - got) <= _REL_TOL * max(1.0, abs(value))
