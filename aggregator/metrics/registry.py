"""The metric registry: each output column declared once, with its meaning and aggregation.

A :class:`Metric` is a Polars aggregation over the per-sample table that yields one
value, or null when the metric is undefined (a blank CSV cell, ``N/A`` in Markdown,
``null`` in JSON). The CSV column order is the registration order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import polars as pl

from aggregator.metrics.values import Kind, MetricValue, python_value

Averaging = Literal["macro", "micro", "pooled", "count", "difference", "flag", "text"]
Section = Literal["headline", "units", "diagnostics", "appendix"]

AVERAGING_TEXT: dict[Averaging, str] = {
    "macro": "mean of per-sample values over samples with gold",
    "micro": "computed once from counts summed over samples",
    "pooled": "ratio of sums over samples",
    "count": "sum or count over samples",
    "difference": "difference of two metrics",
    "flag": "true/false",
    "text": "a text about the run (provenance), not an aggregate",
}


@dataclass(frozen=True)
class RunContext:
    """What a run-level metric may read beside the per-sample table.

    ``side``: side files read next to the input, by file name (None when absent or ignored);
    ``profile``: the ``--profile`` asked for; ``profile_fallback``: it matched no row, so every
    row was aggregated (SCORECARDS.md); ``all_rows``: the per-sample table before ``--profile``
    filtering (cross-run agreement reads it, DIAGNOSTICS.md quirk Q13).
    """

    side: Mapping[str, Any] = field(default_factory=dict)
    profile: str | None = None
    profile_fallback: bool = False
    all_rows: pl.DataFrame | None = None


RunLevel = Callable[["pl.DataFrame", RunContext], MetricValue]
"""A run-level metric's function (Polars named as text: importing the registry must not load it)."""


@dataclass(frozen=True)
class Metric:
    """One output column.

    ``expr``: a Polars aggregation over the per-sample table giving one value (null = blank);
    ``run_level``: instead of ``expr``, a function of the table and the :class:`RunContext`
    (for the few columns that are not aggregations of per-sample values; they cannot be resampled).
    ``requires_gold``: blank when no sample has gold (``gold_available`` is False).
    ``alias_of``: the column repeats another column's value under a legacy name.
    ``family``: the metric family that declares it (:mod:`aggregator.metrics.family`).
    ``present``: a Polars aggregation that is False when the optional input field the column
    counts was absent from every row (the value is then 0 or blank by the spec's rule, not a finding).
    ``compat``: why the column is kept for compatibility only and should not be cited (None: cite freely).
    ``fixes``: the compatibility column this one corrects.
    """

    name: str
    label: str
    meaning: str
    formula: str
    expr: pl.Expr | None
    kind: Kind = "float"
    averaging: Averaging = "macro"
    section: Section = "diagnostics"
    blank_when: str = ""
    higher_is_better: bool | None = None
    requires_gold: bool = True
    alias_of: str | None = None
    family: str = "core"
    run_level: RunLevel | None = None
    present: pl.Expr | None = None
    compat: str | None = None
    fixes: str | None = None


class UnknownMetric(KeyError):
    """A metric name that is not registered."""


class Registry:
    """Metrics in declaration order; refuses duplicate names."""

    _metrics: dict[str, Metric]
    _selected: list[pl.Expr] | None
    """What :meth:`compute` selects, built on first use after the last change (a comparison computes
    every run's metrics, and building the expressions cost as much as evaluating them)."""
    _parts: dict[frozenset[str], Registry]
    """The registries :meth:`only` made since the last change, with the expressions they built."""

    def __init__(self, family: str = "core") -> None:
        self._metrics = {}
        self._changed()
        self.family = family

    def _changed(self) -> None:
        self._selected = None
        self._parts = {}

    def add(self, metric: Metric) -> Metric:
        """Declare ``metric`` (in the family being declared, unless it names another)."""
        if metric.name in self._metrics:
            earlier = self._metrics[metric.name]
            raise ValueError(f"metric {metric.name!r} is declared twice (families {earlier.family!r} and {self.family!r})")
        if metric.family == "core" and self.family != "core":
            metric = replace(metric, family=self.family)
        self._metrics[metric.name] = metric
        self._changed()
        return metric

    def reorder(self, first: Sequence[str]) -> None:
        """Put the metrics named in ``first`` first, in that order; the others follow in declaration order."""
        position = {name: i for i, name in enumerate(first)}
        ranked = sorted(enumerate(self._metrics), key=lambda item: (position.get(item[1], len(position)), item[0]))
        self._metrics = {name: self._metrics[name] for _, name in ranked}
        self._changed()

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

    def only(self, names: Iterable[str]) -> Registry:
        """A registry of the metrics ``names`` alone, in this one's order: its :meth:`compute` gives their
        values as this one's does (each metric's value depends on the table alone), without computing the
        others. The same names give the same registry until this one changes (its expressions built once)."""
        wanted = frozenset(names)
        if wanted not in self._parts:
            part = self._parts[wanted] = Registry(self.family)
            part._metrics = {name: metric for name, metric in self._metrics.items() if name in wanted}
        return self._parts[wanted]

    @staticmethod
    def expression(metric: Metric) -> pl.Expr:
        """What :meth:`compute` evaluates for an expression metric: blank without gold when it requires gold."""
        assert metric.expr is not None, f"{metric.name} is run-level"
        return pl.when(pl.col("n_gold").sum() > 0).then(metric.expr) if metric.requires_gold else metric.expr

    def selected(self) -> list[pl.Expr]:
        """The expressions :meth:`compute` selects (every metric but the run-level ones), built once."""
        if self._selected is None:
            self._selected = [self.expression(m).alias(m.name) for m in self if m.run_level is None]
        return self._selected

    def compute(self, table: pl.DataFrame, context: RunContext | None = None) -> dict[str, MetricValue]:
        """Evaluate every metric over a per-sample table; None marks a blank value."""
        context = context if context is not None else RunContext()
        selected = self.selected()
        row = table.select(selected).row(0, named=True) if selected else {}
        gold = bool(row.get("gold_available", table.get_column("n_gold").sum() > 0))
        for m in self:
            if m.run_level is not None:
                row[m.name] = m.run_level(table, context) if gold or not m.requires_gold else None
        return {m.name: python_value(row[m.name], m.kind) for m in self}

    def absent_fields(self, table: pl.DataFrame) -> list[str]:
        """Names of the metrics whose optional input field no row of ``table`` carries."""
        checked = [m for m in self if m.present is not None]
        if not checked or table.height == 0:
            return [m.name for m in checked]
        row = table.select(m.present.alias(m.name) for m in checked if m.present is not None).row(0, named=True)
        return [name for name, present in row.items() if not present]

