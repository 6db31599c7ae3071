"""``runs.csv`` and ``conditions.csv``: per-run structural metrics and their mean ± std per condition."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from aggregator.compare.runs import Run
from aggregator.metrics.registry import Kind
from aggregator.metrics.structural import STRUCTURAL

_DTYPES: dict[Kind, type[pl.DataType]] = {"int": pl.Int64, "float": pl.Float64, "bool": pl.Boolean, "str": pl.String}
UNIT_SUFFIXES = ("", "_otepol", "_attrpol")
PER_UNIT = ("tuple_f1_s1", "tuple_f1_s2", "delta_f1", "fix_rate", "break_rate", "net_gain")
HEADLINE: tuple[str, ...] = tuple(
    [f"{name}{suffix}" for suffix in UNIT_SUFFIXES for name in PER_UNIT]
    + [f"tuple_f1_s2_{unit}_micro" for unit in ("refpol", "otepol", "attrpol")]
)
"""The metrics summarised per condition: per unit F1 S1/S2, ΔF1, fix/break rates and net gain, then the micro F1s."""
SUMMARIES = ("mean", "std", "min", "max")
RUN_SCHEMA = {"run_id": pl.String, "condition": pl.String, "seed": pl.Int64}


def runs_table(runs: Sequence[Run]) -> pl.DataFrame:
    """run_id, condition, seed, then every ``structural_metrics.csv`` column, one row per run."""
    schema = {**RUN_SCHEMA, **{m.name: _DTYPES[m.kind] for m in STRUCTURAL}}
    rows = [{"run_id": r.run_id, "condition": r.condition, "seed": r.seed, **r.metrics} for r in runs]
    return pl.DataFrame(rows, schema=schema, orient="row")


def summarise(values: Sequence[object]) -> dict[str, float | None]:
    """Mean, std (ddof = 1), min and max of the defined values (None is left out).

    All None when no value is defined; std None when fewer than two are.
    """
    defined = np.array([v for v in values if v is not None], dtype=np.float64)
    if defined.size == 0:
        return dict.fromkeys(SUMMARIES)
    return {
        "mean": float(defined.mean()),
        "std": float(defined.std(ddof=1)) if defined.size >= 2 else None,
        "min": float(defined.min()),
        "max": float(defined.max()),
    }


def conditions_table(runs: Sequence[Run], conditions: Sequence[str]) -> pl.DataFrame:
    """Per condition: n_runs, seeds (ascending) and ``<metric>_{mean,std,min,max}`` of :data:`HEADLINE`."""
    schema: dict[str, pl.DataType | type[pl.DataType]] = {
        "condition": pl.String, "n_runs": pl.Int64, "seeds": pl.List(pl.Int64),
    }
    schema.update({f"{m}_{s}": pl.Float64 for m in HEADLINE for s in SUMMARIES})
    rows = []
    for condition in conditions:
        members = [r for r in runs if r.condition == condition]
        row: dict[str, object] = {
            "condition": condition,
            "n_runs": len(members),
            "seeds": sorted(r.seed for r in members if r.seed is not None),
        }
        for metric in HEADLINE:
            summary = summarise([r.metrics[metric] for r in members])
            row.update({f"{metric}_{s}": summary[s] for s in SUMMARIES})
        rows.append(row)
    return pl.DataFrame(rows, schema=schema, orient="row")
