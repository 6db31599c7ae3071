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

from dataclasses import dataclass, field

import polars as pl

TABLES = ("runs", "conditions", "paired", "flips", "self_consistency", "missing_samples")


@dataclass(frozen=True)
class ComparisonResult:
    """Tables of a multi-run comparison (see the module doc for their columns).

    ``conditions_order`` lists the conditions in sorted order; ``baseline`` is the condition the
    others are paired against; ``resamples`` and ``seed`` drove the paired statistics;
    ``condition_pattern`` is the ``--condition-pattern`` used (None: the default naming rule);
    ``notes`` are sentences about the inputs a reader must know (unequal seeds, missing samples).
    """

    runs: pl.DataFrame
    conditions: pl.DataFrame
    paired: pl.DataFrame
    flips: pl.DataFrame
    self_consistency: pl.DataFrame
    per_sample: pl.DataFrame = field(repr=False)
    missing_samples: pl.DataFrame
    conditions_order: list[str]
    baseline: str
    resamples: int
    seed: int
    condition_pattern: str | None = None
    notes: list[str] = field(default_factory=list)

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
