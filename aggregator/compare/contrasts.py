"""``paired.csv``: every metric of condition B against condition A, paired on (split, sample key).

A contrast uses the samples present in every run of both conditions (``n_samples``); a sample in
some run of only one condition is counted in ``n_only_a`` / ``n_only_b``, one in both but missing
from some run in ``n_partial``; none of them is used. Each run's metric is recomputed on the
common samples (it equals the run's own value when the run has no other sample), ``mean_a`` and
``mean_b`` are the means over each condition's seeds, ``delta`` = mean_b − mean_a. ``se``,
``ci_low``/``ci_high`` (95%) and ``p_value`` (two-sided, H0: Δ = 0) come from one procedure
(:mod:`aggregator.stats.intervals`): the interval excludes 0 exactly when p < 0.05.
``p_holm``: Holm-adjusted over the rows of the table (blank unless asked for). With no common
sample the statistics are blank and ``note`` says so; fewer than :data:`SMALL` common samples
are marked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from aggregator.compare.conditions import not_resampled_note, seeds_note
from aggregator.stats.components import ConditionReplicates, contrast_inference
from aggregator.stats.intervals import DEFAULT_METHOD, Method, holm

if TYPE_CHECKING:
    from aggregator.metrics.registry import Metric, Registry

SMALL = 10
SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "condition_a": pl.String,
    "condition_b": pl.String,
    "metric": pl.String,
    "family": pl.String,
    "n_samples": pl.Int64,
    "n_only_a": pl.Int64,
    "n_only_b": pl.Int64,
    "n_partial": pl.Int64,
    "seeds_a": pl.Int64,
    "seeds_b": pl.Int64,
    "mean_a": pl.Float64,
    "mean_b": pl.Float64,
    "delta": pl.Float64,
    "se": pl.Float64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
    "p_value": pl.Float64,
    "p_holm": pl.Float64,
    "seed_share": pl.Float64,
    "note": pl.String,
}


@dataclass(frozen=True)
class SampleSplit:
    """How the samples of two conditions relate: the common ones (sorted indices) and the counts."""

    common: np.ndarray
    only_a: int
    only_b: int
    partial: int


def sample_split(present: np.ndarray, rows_a: np.ndarray, rows_b: np.ndarray) -> SampleSplit:
    """From the comparison's ``present`` (runs × samples) and the runs of A and B."""
    any_a, any_b = present[rows_a].any(axis=0), present[rows_b].any(axis=0)
    every = present[np.concatenate([rows_a, rows_b])].all(axis=0)
    return SampleSplit(np.flatnonzero(every), int((any_a & ~any_b).sum()), int((any_b & ~any_a).sum()),
                       int((any_a & any_b & ~every).sum()))


def _number(value: float) -> float | None:
    return None if not np.isfinite(value) else float(value)


def contrast_rows(registry: Registry, names: tuple[str, str], split: SampleSplit,
                  replicates: tuple[ConditionReplicates, ConditionReplicates] | None,
                  resampled: Sequence[str], not_resampled: dict[str, str],
                  metrics: Sequence[Metric] | None = None, method: Method = DEFAULT_METHOD) -> list[dict[str, object]]:
    """The rows of one contrast (A = ``names[0]``, B = ``names[1]``) for ``metrics`` (default: all, registry order).

    ``replicates`` is None when there is no common sample; ``method``: the interval's
    (:data:`~aggregator.stats.intervals.METHODS`).
    """
    index = {name: k for k, name in enumerate(resampled)}
    inference = contrast_inference(*replicates, method) if replicates is not None else None
    rows = []
    for metric in registry if metrics is None else metrics:
        row: dict[str, object] = {
            "condition_a": names[0], "condition_b": names[1], "metric": metric.name, "family": metric.family,
            "n_samples": len(split.common), "n_only_a": split.only_a, "n_only_b": split.only_b,
            "n_partial": split.partial, "p_holm": None,
        }
        k = index.get(metric.name, index.get(metric.alias_of or ""))
        notes = []
        if replicates is None or inference is None:
            notes.append("no samples in common")
        elif len(split.common) < SMALL:
            notes.append(f"n = {len(split.common)} < {SMALL} common samples")
        if k is None or replicates is None or inference is None:
            row.update(seeds_a=None, seeds_b=None, mean_a=None, mean_b=None, delta=None, se=None,
                       ci_low=None, ci_high=None, p_value=None, seed_share=None)
            if k is None:
                notes.append(not_resampled_note(metric, not_resampled))
        else:
            a, b = replicates
            interval = inference.interval
            row.update(seeds_a=int(a.seeds[k]), seeds_b=int(b.seeds[k]), mean_a=_number(a.mean[k]),
                       mean_b=_number(b.mean[k]), delta=_number(interval.estimate[k]), se=_number(interval.se[k]),
                       ci_low=_number(interval.ci_low[k]), ci_high=_number(interval.ci_high[k]),
                       p_value=_number(interval.p_value[k]), seed_share=_number(inference.seed_share[k]))
            if row["delta"] is not None:
                notes += [n for n in (seeds_note(int(min(a.seeds[k], b.seeds[k]))),) if n]
        row["note"] = "; ".join(notes) or None
        rows.append(row)
    return rows


def paired_frame(rows: list[dict[str, object]], *, adjust: bool) -> pl.DataFrame:
    """The table; with ``adjust``, Holm-adjusted p-values over all its rows."""
    frame = pl.DataFrame(rows, schema=SCHEMA, orient="row")
    if adjust and frame.height:
        p = frame.get_column("p_value").to_numpy().astype(np.float64)
        frame = frame.with_columns(pl.Series("p_holm", holm(p)).fill_nan(None))
    return frame
