"""``runs.csv``: every run's structural metrics; :data:`HEADLINE`, the metrics the readable tables show by default."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import polars as pl

from aggregator.metrics.structural import STRUCTURAL

if TYPE_CHECKING:
    from aggregator.compare.runs import Run
    from aggregator.metrics.values import Kind
    from aggregator.units.lead import Lead

_DTYPES: dict[Kind, type[pl.DataType]] = {"int": pl.Int64, "float": pl.Float64, "bool": pl.Boolean, "str": pl.String}
UNIT_SUFFIXES = ("", "_otepol", "_attrpol")
PER_UNIT = ("tuple_f1_s1", "tuple_f1_s2", "delta_f1", "fix_rate", "break_rate", "net_gain")
HEADLINE: tuple[str, ...] = tuple(
    [f"{name}{suffix}" for suffix in UNIT_SUFFIXES for name in PER_UNIT]
    + [f"tuple_f1_s2_{unit}_micro" for unit in ("refpol", "otepol", "attrpol")]
)
"""The metrics summarised per condition: per unit F1 S1/S2, ΔF1, fix/break rates and net gain, then the micro F1s."""


def headline(lead: Lead) -> list[str]:
    """:data:`HEADLINE` with its units in the lead's order (:mod:`aggregator.units.lead`): the same list
    when Ref-F1 leads."""
    from aggregator.units.lead import SUFFIXES

    units = lead.order()
    return ([f"{name}{SUFFIXES[unit]}" for unit in units for name in PER_UNIT]
            + [f"tuple_f1_s2_{unit}_micro" for unit in units])


RUN_SCHEMA: dict[str, type[pl.DataType]] = {"run_id": pl.String, "condition": pl.String, "seed": pl.Int64}


def runs_table(runs: Sequence[Run]) -> pl.DataFrame:
    """run_id, condition, seed, then every ``structural_metrics.csv`` column, one row per run."""
    schema: dict[str, type[pl.DataType]] = {**RUN_SCHEMA, **{m.name: _DTYPES[m.kind] for m in STRUCTURAL}}
    rows = [{"run_id": r.run_id, "condition": r.condition, "seed": r.seed, **r.metrics} for r in runs]
    return pl.DataFrame(rows, schema=schema, orient="row")
