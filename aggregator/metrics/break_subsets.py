"""Break-rate subsets (DIAGNOSTICS.md family 4): why refpol breaks happen.

Each gold row gets a class, ``break_class``: ``implicit`` when G has a tuple with an empty
normalized term; else ``negation`` when ``nc`` > 0 (negation/contrast risks over all
validator blocks, family "validator"); else ``simple``. A refpol break (core
``refpol_transition``) counts in its row's class; each rate is over break + keep, as
``break_rate``, so the three rates sum to ``break_rate``.
"""

from __future__ import annotations

import polars as pl

from aggregator.metrics.family import Family, RowInput
from aggregator.metrics.registry import Metric, Registry
from aggregator.units.sample_counts import Column

CLASSES = {
    "implicit": "gold has an implicit tuple (empty term)",
    "negation": "no implicit gold tuple, and the validator flagged a negation or contrast risk (nc > 0)",
    "simple": "neither",
}

COLUMNS = (Column("gold_has_empty_term", "bool", "G has a tuple whose normalized term is empty"),)


def row(inp: RowInput) -> tuple[object, ...]:
    return (any(not t.aspect_term for t in inp.record.gold),)


def break_class() -> pl.Expr:
    """The class of a row's refpol break: implicit, negation or simple (see the module docstring)."""
    return (pl.when(pl.col("gold_has_empty_term")).then(pl.lit("implicit"))
            .when(pl.col("nc") > 0).then(pl.lit("negation"))
            .otherwise(pl.lit("simple")))


def declare(reg: Registry) -> None:
    from aggregator.metrics.exprs import HAS_GOLD, count, ratio, transitions

    brk, keep = transitions("refpol", "break"), transitions("refpol", "keep")
    for kind, what in CLASSES.items():
        breaks = count(HAS_GOLD & (pl.col("refpol_transition") == "break") & (break_class() == kind))
        name = f"break_rate_{kind}"
        reg.add(Metric(name, f"Break rate ({kind})",
                       f"refpol breaks of rows where {what}, per stage-1 correct gold row; the three classes sum to break_rate",
                       f"break[{kind}] / (break + keep), refpol", ratio(breaks, brk + keep), averaging="pooled",
                       blank_when="break + keep = 0", higher_is_better=False))
    for kind in CLASSES:
        reg.alias(f"break_rate_{kind}_refpol", f"break_rate_{kind}")


FAMILY = Family(
    name="break_subsets",
    title="Break-rate subsets",
    source="DIAGNOSTICS.md family 4",
    columns=COLUMNS,
    row=row,
    declare=declare,
    requires=("validator",),
)
