"""The result of a comparison: every table as a Polars DataFrame, plus the settings that made it.

Column meanings (all values computed from the per-sample tables of the core aggregator):

``runs``
    ``run_id``, ``condition``, ``seed`` (null without one), ``warnings`` (the codes the run raises),
    then every column of ``structural_metrics.csv`` with that run's own value. One row per run, in
    condition, seed, run id order.
``conditions``
    one row per condition and metric (every registry metric): ``n_runs``, ``seeds``, ``n_defined``,
    ``n_samples``, ``mean``, ``sd`` (``ddof``), ``min``, ``max``, ``pooled``, ``se``, ``ci_low``,
    ``ci_high``, ``seed_share``, ``note`` (:mod:`aggregator.compare.conditions`), ``warnings``
    (the codes some run of the condition raises for the metric:
    :mod:`aggregator.compare.condition_warnings`).
``paired``
    one row per contrast and metric: ``condition_a``, ``condition_b``, ``metric``, ``n_samples``,
    ``n_only_a``, ``n_only_b``, ``n_partial``, ``seeds_a``, ``seeds_b``, ``mean_a``, ``mean_b``,
    ``delta``, ``se``, ``ci_low``, ``ci_high``, ``p_value``, ``p_holm``, ``seed_share``, ``note``
    (:mod:`aggregator.compare.contrasts`), ``warnings`` (the codes of either condition).
``subsets``
    the shown metrics per ``--by`` level and condition (:mod:`aggregator.compare.subsets`), with
    ``warnings`` as in ``conditions`` (and the baseline's too on a row with a Δ).
``agreement``
    Fleiss' κ and Krippendorff's α of the review agents, pooled and per condition
    (:mod:`aggregator.compare.agreement`).
``selected``
    with ``--samples``, the samples behind each contrast (:mod:`aggregator.compare.selected`).
``flips``
    ``condition_a``, ``condition_b``, ``unit``, ``n_samples``, ``both``, ``only_a``, ``only_b``,
    ``neither``: final-stage correctness by majority of runs (:mod:`aggregator.compare.flips`).
``self_consistency``
    per condition with ≥ 2 runs: ``n_runs``, ``n_samples``, ``cross_run_max_runs``,
    ``cross_run_tuple_agreement``, ``mean_jaccard``, ``n_gold_samples``, ``<unit>_correct_agreement``
    (:mod:`aggregator.compare.consistency`).
``per_sample``
    the merged per-sample table (:mod:`aggregator.compare.merged`).
``missing_samples``
    ``split``, ``sample_key``, ``n_runs``, ``missing_from`` (run ids) for samples absent from some run.

Null is undefined (a blank CSV cell, ``null`` in JSON), never 0.
"""

from __future__ import annotations

from typing import Literal

import polars as pl
from pydantic import BaseModel, ConfigDict, Field

from aggregator.frozen import Frozen

TABLES = ("runs", "conditions", "paired", "subsets", "agreement", "flips", "self_consistency", "missing_samples")
TableName = Literal["runs", "conditions", "paired", "subsets", "agreement", "flips", "self_consistency",
                    "per_sample", "missing_samples", "selected"]


INTERVAL_METHOD = ("95% interval over seeds and samples: seed variance from the runs (ddof 1, t with seeds − 1 df), "
                   "sample variance from a paired bootstrap over samples (t with samples − 1 df), combined by "
                   "Banerjee's conservative t rule; p-value from the same test (the interval excludes 0 iff p < 0.05)")


class ComparisonResult(BaseModel):
    """Tables of a multi-run comparison (see the module doc for their columns).

    Read-only: fields cannot be set, lists are tuples and mappings refuse changes;
    :meth:`to_polars` gives a copy of a table.
    """

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    runs: pl.DataFrame = Field(description="one row per run: run_id, condition, seed, structural metrics")
    conditions: pl.DataFrame = Field(description="per condition and metric: mean/sd/min/max, pooled, 95% interval")
    paired: pl.DataFrame = Field(description="per contrast and metric: Δ, its 95% interval and p-value")
    subsets: pl.DataFrame = Field(description="the shown metrics per --by level and condition")
    agreement: pl.DataFrame = Field(description="review-agent agreement (Fleiss' kappa, Krippendorff's alpha)")
    flips: pl.DataFrame = Field(description="per pair of conditions and unit: correct in both / only A / only B / neither")
    self_consistency: pl.DataFrame = Field(description="per condition with >= 2 runs: agreement across runs")
    per_sample: pl.DataFrame = Field(repr=False, description="merged per-sample table, one column group per run")
    missing_samples: pl.DataFrame = Field(description="samples absent from some runs")
    selected: pl.DataFrame | None = Field(None, description="--samples: the samples behind each contrast")
    selected_mode: str | None = Field(None, description="--samples mode: changed, only-a or only-b")
    conditions_order: tuple[str, ...] = Field(description="the conditions in sorted order")
    baseline: str = Field(description="the condition the others are paired against")
    contrasts: tuple[tuple[str, str], ...] = Field(
        description="the contrasts [A, B] of paired (Δ = B − A), in table order")
    resamples: int = Field(description="bootstrap resamples over samples")
    seed: int = Field(description="seed of the resampling")
    ddof: int = Field(1, description="delta degrees of freedom of the SD over seeds")
    holm: bool = Field(False, description="p_holm holds Holm-adjusted p-values")
    each_run: bool = Field(False, description="every run is its own condition")
    metrics_shown: tuple[str, ...] = Field((), description="the metrics of the readable tables")
    metrics_requested: bool = Field(False, description="metrics_shown came from --metrics")
    by: tuple[str, ...] = Field((), description="the --by groupings of subsets")
    condition_pattern: str | None = Field(None, description="--condition-pattern used (None: the default naming rule)")
    not_resampled: Frozen[str, str] = Field(default_factory=dict, description="metrics without interval, and why")
    degenerate: tuple[Frozen[str, object], ...] = Field((), description="degenerate cases, by kind")
    skipped_runs: tuple[Frozen[str, str], ...] = Field((), description="inputs --skip-bad-runs left out")
    notes: tuple[str, ...] = Field((), description="what a reader must know about the inputs, most important first")
    run_warnings: tuple[Frozen[str, object], ...] = Field(
        (), description="every shown warning of every run: run_id, condition, code, message, count")
    allowed: tuple[str, ...] = Field((), description="warning codes silenced (--allow)")
    lead_unit: str = Field("refpol", description="the unit the default views lead with (aggregator/units/lead.py)")
    lead_reason: str | None = Field(None, description="why the lead unit is not Ref-F1 (None when it is)")

    def to_polars(self, table: TableName = "per_sample") -> pl.DataFrame:
        """One table as a Polars DataFrame (a copy); by default the merged per-sample table."""
        frame: pl.DataFrame = getattr(self, table)
        return frame.clone()

    def to_dict(self, *, include_per_sample: bool = False) -> dict[str, object]:
        """Settings, notes and every table as a list of row dicts (JSON-ready; null for undefined).

        The merged per-sample table is large and left out unless ``include_per_sample``.
        """
        payload: dict[str, object] = {
            "conditions_order": list(self.conditions_order),
            "baseline": self.baseline,
            "contrasts": [list(pair) for pair in self.contrasts],
            "resamples": self.resamples,
            "seed": self.seed,
            "ddof": self.ddof,
            "holm": self.holm,
            "each_run": self.each_run,
            "interval_method": INTERVAL_METHOD,
            "metrics_shown": list(self.metrics_shown),
            "metrics_requested": self.metrics_requested,
            "by": list(self.by),
            "condition_pattern": self.condition_pattern,
            "not_resampled": dict(self.not_resampled),
            "degenerate": [dict(case) for case in self.degenerate],
            "skipped_runs": [dict(run) for run in self.skipped_runs],
            "notes": list(self.notes),
            "run_warnings": [dict(w) for w in self.run_warnings],
            "allowed": list(self.allowed),
            "lead_unit": self.lead_unit,
            "lead_reason": self.lead_reason,
        }
        names = TABLES + ("per_sample",) if include_per_sample else TABLES
        payload.update({name: getattr(self, name).to_dicts() for name in names})
        if self.selected is not None:
            payload["selected"] = {"mode": self.selected_mode, "rows": self.selected.to_dicts()}
        return payload
