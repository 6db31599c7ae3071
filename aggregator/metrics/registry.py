"""The metric registry: each output column declared once, with its meaning and aggregation.

A :class:`Metric` is a Polars aggregation over the per-sample table that yields one
value, or null when the metric is undefined (a blank CSV cell, ``N/A`` in Markdown,
``null`` in JSON). The CSV column order is the registration order.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Literal

import polars as pl

Averaging = Literal["macro", "micro", "pooled", "count", "difference", "flag"]
Kind = Literal["int", "float", "bool"]
Section = Literal["headline", "units", "diagnostics", "appendix"]

AVERAGING_TEXT: dict[Averaging, str] = {
    "macro": "mean of per-sample values over samples with gold",
    "micro": "computed once from counts summed over samples",
    "pooled": "ratio of sums over samples",
    "count": "sum or count over samples",
    "difference": "difference of two metrics",
    "flag": "true/false",
}


@dataclass(frozen=True)
class Metric:
    """One output column.

    ``requires_gold``: blank when no sample has gold (``gold_available`` is False).
    ``alias_of``: the column repeats another column's value under a legacy name.
    """

    name: str
    label: str
    meaning: str
    formula: str
    expr: pl.Expr
    kind: Kind = "float"
    averaging: Averaging = "macro"
    section: Section = "diagnostics"
    blank_when: str = ""
    higher_is_better: bool | None = None
    requires_gold: bool = True
    alias_of: str | None = None


class UnknownMetric(KeyError):
    """A metric name that is not registered."""


class Registry:
    """Metrics in declaration order; refuses duplicate names."""

    def __init__(self) -> None:
        self._metrics: dict[str, Metric] = {}

    def add(self, metric: Metric) -> Metric:
        if metric.name in self._metrics:
            raise ValueError(f"metric {metric.name!r} is declared twice")
        self._metrics[metric.name] = metric
        return metric

    def alias(self, name: str, of: str, *, legacy: bool = False) -> Metric:
        """Register ``name`` as another name for the already declared metric ``of``."""
        target = self[of]
        kind = "legacy alias" if legacy else "alias"
        return self.add(replace(target, name=name, alias_of=of, meaning=f"{kind} of `{of}`"))

    def __getitem__(self, name: str) -> Metric:
        try:
            return self._metrics[name]
        except KeyError:
            import difflib

            close = difflib.get_close_matches(name, self._metrics, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise UnknownMetric(f"unknown metric {name!r}{hint}") from None

    def __iter__(self) -> Iterator[Metric]:
        return iter(self._metrics.values())

    def __len__(self) -> int:
        return len(self._metrics)

    def __contains__(self, name: object) -> bool:
        return name in self._metrics

    @property
    def names(self) -> list[str]:
        return list(self._metrics)

    @staticmethod
    def expression(metric: Metric) -> pl.Expr:
        """What :meth:`compute` evaluates for ``metric``: its expression, blank without gold when it requires gold."""
        return pl.when(pl.col("n_gold").sum() > 0).then(metric.expr) if metric.requires_gold else metric.expr

    def compute(self, table: pl.DataFrame) -> dict[str, object]:
        """Evaluate every metric over a per-sample table; None marks a blank value."""
        exprs = [self.expression(m).alias(m.name) for m in self]
        row = table.select(exprs).row(0, named=True)
        return {m.name: _python_value(row[m.name], m.kind) for m in self}


def _python_value(value: object, kind: Kind) -> object:
    if value is None:
        return None
    if kind == "int":
        return int(value)  # type: ignore[call-overload]
    if kind == "bool":
        return bool(value)
    return float(value)  # type: ignore[arg-type]
