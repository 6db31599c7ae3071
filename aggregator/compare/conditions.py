"""``conditions.csv``: every metric of every condition, over its seeds, with the interval of its mean.

One row per condition and metric (registry order). Over the condition's runs where the metric is
defined: ``n_defined``, ``mean``, ``sd`` (``ddof`` as asked, default 1; blank when
``n_defined − ddof < 1``), ``min``, ``max`` — exactly the numbers of ``runs.csv``. ``pooled``: the
metric computed once over the rows of all the condition's runs together (counts summed over runs:
micro values, ratios of summed counts). ``ci_low``/``ci_high``/``se``: the 95% interval of the
mean over seeds and samples (:mod:`aggregator.stats.components`), with ``seed_share`` the part of
its variance that comes from seeds; blank for a metric that is not resampled (``note`` says why).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from aggregator.stats.components import ConditionReplicates, Inference, mean_inference

if TYPE_CHECKING:
    from aggregator.compare.runs import Run
    from aggregator.metrics.registry import Metric, Registry

FEW_SEEDS = 3
SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "condition": pl.String,
    "metric": pl.String,
    "family": pl.String,
    "n_runs": pl.Int64,
    "seeds": pl.List(pl.Int64),
    "n_defined": pl.Int64,
    "n_samples": pl.Int64,
    "mean": pl.Float64,
    "sd": pl.Float64,
    "min": pl.Float64,
    "max": pl.Float64,
    "pooled": pl.Float64,
    "se": pl.Float64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
    "seed_share": pl.Float64,
    "note": pl.String,
}


def describe(values: Sequence[object], ddof: int) -> dict[str, float | int | None]:
    """n_defined, mean, sd (``ddof``), min and max of the defined values (None is left out)."""
    defined = np.array([v for v in values if v is not None], dtype=np.float64)
    if defined.size == 0:
        return {"n_defined": 0, "mean": None, "sd": None, "min": None, "max": None}
    return {
        "n_defined": int(defined.size),
        "mean": float(defined.mean()),
        "sd": float(defined.std(ddof=ddof)) if defined.size - ddof >= 1 else None,
        "min": float(defined.min()),
        "max": float(defined.max()),
    }


def seeds_note(seeds: int) -> str | None:
    """What a reader must know about the seed count behind an interval."""
    if seeds == 1:
        return "1 seed: seed variation is not estimated (the interval covers samples only)"
    if 1 < seeds < FEW_SEEDS:
        return f"{seeds} seeds: little information about seed variance (wide interval)"
    return None


def not_resampled_note(metric: Metric, not_resampled: dict[str, str]) -> str:
    """Why ``metric`` (or the metric it is an alias of) has no interval."""
    reason = not_resampled.get(metric.name) or not_resampled.get(metric.alias_of or "", "not selected")
    return f"not resampled: {reason}"


def _number(value: float) -> float | None:
    return None if not np.isfinite(value) else float(value)


@dataclass(frozen=True)
class ConditionInput:
    """One condition: its name, runs, sample count and resampled replicates."""

    name: str
    runs: Sequence[Run]
    n_samples: int
    replicates: ConditionReplicates


def condition_rows(registry: Registry, condition: ConditionInput, resampled: Sequence[str],
                   not_resampled: dict[str, str], ddof: int,
                   metrics: Sequence[Metric] | None = None) -> list[dict[str, object]]:
    """The rows of one condition for ``metrics`` (default: every metric, in registry order)."""
    runs = condition.runs
    computed = registry if metrics is None else registry.only(m.name for m in metrics)
    pooled = computed.compute(pl.concat([r.table for r in runs], how="diagonal_relaxed"))
    inference: Inference = mean_inference(condition.replicates)
    index = {name: k for k, name in enumerate(resampled)}
    seeds = sorted(r.seed for r in runs if r.seed is not None)
    rows = []
    for metric in registry if metrics is None else metrics:
        row: dict[str, object] = {"condition": condition.name, "metric": metric.name, "family": metric.family,
                                  "n_runs": len(runs), "seeds": seeds, "n_samples": condition.n_samples}
        values = [r.metrics[metric.name] for r in runs]
        text = metric.kind == "str"
        row.update(describe([] if text else values, ddof))
        if text:
            row["n_defined"] = sum(v is not None for v in values)
        value = pooled[metric.name]
        row["pooled"] = None if value is None or text else float(value)
        k = index.get(metric.name, index.get(metric.alias_of or ""))
        notes = []
        if k is None:
            row.update(se=None, ci_low=None, ci_high=None, seed_share=None)
            notes.append(not_resampled_note(metric, not_resampled))
        else:
            interval = inference.interval
            row.update(se=_number(interval.se[k]), ci_low=_number(interval.ci_low[k]),
                       ci_high=_number(interval.ci_high[k]), seed_share=_number(inference.seed_share[k]))
            note = seeds_note(int(condition.replicates.seeds[k]))
            if note and row["mean"] is not None:
                notes.append(note)
        row["note"] = "; ".join(notes) or None
        rows.append(row)
    return rows


def conditions_frame(rows: list[dict[str, object]]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=SCHEMA, orient="row")
