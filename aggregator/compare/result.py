"""The result of a comparison: every table as a Polars DataFrame, plus the settings that made it.

Column meanings (all values computed from the per-sample tables of the core aggregator):

``runs``
    ``run_id``, ``condition``, ``seed`` (null without one), then every column of
    ``structural_metrics.csv`` with that run's own value. One row per run, in condition, seed,
    run id order.
``conditions``
    ``condition``, ``n_runs``, ``seeds`` (ascending list), and ``<metric>_mean``, ``_std``
    (ddof = 1; null for one run), ``_min``, ``_max`` for each metric of
    :data:`aggregator.compare.tables.HEADLINE`, over the runs where the metric is defined.
``paired``
    ``condition_a`` (the baseline), ``condition_b``, ``unit`` (refpol/otepol/attrpol),
    ``statistic`` (``f1_s2`` per-sample F1 of the final stage, ``delta_f1`` per-sample F1 S2 − F1 S1),
    ``n_samples`` (samples in both), ``n_only_a``, ``n_only_b``, ``mean_a``, ``mean_b``, ``delta``
    (mean of b − a), ``ci_low``, ``ci_high`` (95% paired percentile bootstrap), ``p_value``
    (two-sided sign-flip permutation). See :mod:`aggregator.compare.paired` and :mod:`.stats`.
``flips``
    ``condition_a``, ``condition_b``, ``unit``, ``n_samples``, ``both``, ``only_a``, ``only_b``,
    ``neither``: final-stage correctness by majority of runs (:mod:`aggregator.compare.flips`).
``self_consistency``
    per condition with ≥ 2 runs: ``n_runs``, ``n_samples``, ``n_trials``,
    ``tuple_agreement_rate``, ``mean_jaccard``, ``n_gold_samples``, ``<unit>_correct_agreement``
    (:mod:`aggregator.compare.consistency`).
``per_sample``
    the merged per-sample table (:mod:`aggregator.compare.merged`).
``missing_samples``
    ``sample_key``, ``n_runs``, ``missing_from`` (run ids) for samples absent from some run.

Null is undefined (a blank CSV cell, ``null`` in JSON), never 0.
"""

from __future__ import annotations

from typing import Literal

import polars as pl
from pydantic import BaseModel, ConfigDict, Field

TABLES = ("runs", "conditions", "paired", "flips", "self_consistency", "missing_samples")
TableName = Literal["runs", "conditions", "paired", "flips", "self_consistency", "per_sample", "missing_samples"]


class ComparisonResult(BaseModel):
    """Tables of a multi-run comparison (see the module doc for their columns).

    Read-only: fields cannot be set, lists are tuples, :meth:`to_polars` gives a copy of a table.
    """

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    runs: pl.DataFrame = Field(description="one row per run: run_id, condition, seed, structural metrics")
    conditions: pl.DataFrame = Field(description="per condition: n_runs, seeds, mean/std/min/max of headline metrics")
    paired: pl.DataFrame = Field(description="each condition against the baseline: deltas, bootstrap CI, p-value")
    flips: pl.DataFrame = Field(description="per pair of conditions and unit: correct in both / only A / only B / neither")
    self_consistency: pl.DataFrame = Field(description="per condition with >= 2 runs: agreement across runs")
    per_sample: pl.DataFrame = Field(repr=False, description="merged per-sample table, one column group per run")
    missing_samples: pl.DataFrame = Field(description="samples absent from some runs")
    conditions_order: tuple[str, ...] = Field(description="the conditions in sorted order")
    baseline: str = Field(description="the condition the others are paired against")
    resamples: int = Field(description="bootstrap resamples and permutation sign flips")
    seed: int = Field(description="seed of the resampling")
    condition_pattern: str | None = Field(None, description="--condition-pattern used (None: the default naming rule)")
    notes: tuple[str, ...] = Field((), description="what a reader must know about the inputs")

    def to_polars(self, table: TableName = "per_sample") -> pl.DataFrame:
        """One table as a Polars DataFrame (a copy); by default the merged per-sample table."""
        return getattr(self, table).clone()

    def to_dict(self, *, include_per_sample: bool = False) -> dict[str, object]:
        """Settings, notes and every table as a list of row dicts (JSON-ready; null for undefined).

        The merged per-sample table is large and left out unless ``include_per_sample``.
        """
        payload: dict[str, object] = {
            "conditions_order": self.conditions_order,
            "baseline": self.baseline,
            "resamples": self.resamples,
            "seed": self.seed,
            "condition_pattern": self.condition_pattern,
            "notes": self.notes,
        }
        names = TABLES + ("per_sample",) if include_per_sample else TABLES
        payload.update({name: getattr(self, name).to_dicts() for name in names})
        return payload
