"""Placeholders never computed (DIAGNOSTICS.md family 2): columns the paper names, always blank.

The research tool writes these five columns but never computes them; they stay blank here
too, and are marked as compatibility columns so that nobody cites them. (The family's three
other columns, ``tuple_f1_explicit``, ``precision_explicit`` and ``recall_explicit``, the
reference also left blank; they are computed by the core, METRICS.md.)
"""

from __future__ import annotations

import polars as pl

from aggregator.metrics.family import Family
from aggregator.metrics.registry import Averaging, Metric, Registry

NOT_COMPUTED = "not computed: the research tool names this column but never fills it; always blank"

PLACEHOLDERS: tuple[tuple[str, str, str, Averaging], ...] = (
    ("generalized_f1_theta", "Generalized F1 (θ)", "generalized (threshold θ) F1 named in the paper", "macro"),
    ("generalized_precision_theta", "Generalized precision (θ)", "generalized (threshold θ) precision named in the paper", "macro"),
    ("generalized_recall_theta", "Generalized recall (θ)", "generalized (threshold θ) recall named in the paper", "macro"),
    ("conditional_improvement_gain_hf_disagree", "Improvement gain where HF disagrees",
     "improvement on rows where the external (HF) classifier disagrees with the final label, named in the paper", "difference"),
    ("conditional_improvement_gain_hf_agree", "Improvement gain where HF agrees",
     "improvement on rows where the external (HF) classifier agrees with the final label, named in the paper", "difference"),
)


def declare(reg: Registry) -> None:
    for name, label, meaning, averaging in PLACEHOLDERS:
        reg.add(Metric(name, label, f"{meaning}; not computed", "none (not computed)",
                       pl.lit(None, dtype=pl.Float64), averaging=averaging, blank_when="always (not computed)",
                       compat=NOT_COMPUTED))


FAMILY = Family(
    name="placeholders",
    title="Placeholders never computed",
    source="DIAGNOSTICS.md family 2",
    columns=(),
    row=None,
    declare=declare,
)
