"""The leaves of a metric's expression: its aggregation nodes, each a weighted sum over samples.

A metric's serialized Polars expression is rewritten by :class:`Rewriter`: each aggregation node
becomes a column of leaf sums, the scalar arithmetic around them stays (see
:mod:`aggregator.stats.weighted`). Leaves (``x`` a row-wise expression, nulls left out as Polars does):

- ``len()`` → Σ w;  ``x.sum()`` → Σ w·x;  ``x.count()`` → Σ w·[x not null];
- ``x.mean()`` → Σ w·x / Σ w·[x not null] (null when no value);
- ``x.var(ddof)`` → (Σ w·x² − (Σ w·x)² / N) / (N − ddof) with N = Σ w·[x not null] (null when
  N ≤ ddof; x centred on its mean first; a numerator within the rounding of the sums it cancels,
  :func:`aggregator.stats.sums.spread_rounding`, is 0: what drawn values that are all equal give);
  ``x.std(ddof)`` its square root;
- ``x.filter(c)`` inside them → ``x`` where ``c`` holds, else null.

Any other node raises :class:`NotResampled` with the reason: another aggregation (max, n_unique, …),
an aggregation nested in a row-wise part, or a per-sample column outside an aggregation.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field

import polars as pl

Node = object


class NotResampled(ValueError):
    """The metric is not a function of weighted sums; the message says why."""


@dataclass(frozen=True)
class Leaf:
    """One aggregation node: ``kind`` sum/mean/count/len/var/std of the row-wise ``row`` (None for len)."""

    kind: str
    row: pl.Expr | None
    key: str
    ddof: int = 0

    @property
    def width(self) -> int:
        """How many per-sample vectors the leaf sums: values, presence for a mean, squares for a spread."""
        return {"mean": 2, "var": 3, "std": 3}.get(self.kind, 1)


def expression_of(node: Node) -> pl.Expr:
    """The Polars expression of a serialized (JSON) expression tree."""
    return pl.Expr.deserialize(io.StringIO(json.dumps(node)), format="json")


def _row_expr(node: Node) -> pl.Expr:
    """A row-wise expression; ``filter`` becomes null where its condition does not hold."""
    if isinstance(node, dict) and "Filter" in node:
        inner = node["Filter"]
        return pl.when(_row_expr(inner["by"])).then(_row_expr(inner["input"]))
    _refuse_aggregations(node)
    return expression_of(node)


def _refuse_aggregations(node: Node) -> None:
    if node == "Len":
        raise NotResampled("len() inside a per-sample expression")
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("Agg", "Filter", "Window", "Slice", "Gather", "Sort", "SortBy"):
                raise NotResampled(f"{key.lower()} inside a per-sample expression")
            _refuse_aggregations(value)
    elif isinstance(node, list):
        for value in node:
            _refuse_aggregations(value)


@dataclass
class Rewriter:
    """Rewrites serialized expressions, collecting their leaves (one per distinct aggregation node)."""

    leaves: dict[str, Leaf] = field(default_factory=dict)

    def leaf(self, kind: str, inner: Node | None, ddof: int = 0) -> dict[str, str]:
        key = json.dumps([kind, inner, ddof], sort_keys=True)
        if key not in self.leaves:
            row = None if inner is None else _row_expr(inner)
            self.leaves[key] = Leaf(kind, row, f"__leaf{len(self.leaves)}", ddof)
        return {"Column": self.leaves[key].key}

    def rewrite(self, node: Node) -> Node:
        """The scalar part of an expression, each aggregation replaced by a leaf column."""
        if node == "Len":
            return self.leaf("len", None)
        if isinstance(node, list):
            return [self.rewrite(v) for v in node]
        if not isinstance(node, dict):
            return node
        if "Agg" in node:
            ((agg, inner),) = node["Agg"].items()
            if agg in ("Sum", "Mean"):
                return self.leaf(agg.lower(), inner)
            if agg in ("Std", "Var"):
                inner, ddof = node["Agg"][agg]
                return self.leaf(agg.lower(), inner, int(ddof))
            if agg == "Count":
                return self.leaf("len" if inner["include_nulls"] else "count",
                                 None if inner["include_nulls"] else inner["input"])
            raise NotResampled(f"aggregation {agg.lower()} has no weighted form")
        if "Column" in node or "Window" in node:
            raise NotResampled("a per-sample column outside an aggregation")
        return {k: self.rewrite(v) for k, v in node.items()}
