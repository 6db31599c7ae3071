"""Drift cause and pairs change (DIAGNOSTICS.md family 11): why the final pairs differ from stage 1.

Per sample:

- ``pairs_changed``: RP(S1) ≠ RP(S2) (refpol pairs; not the EvalTuple comparison of ``changed``);
- ``drift_cause``, on rows with ``pairs_changed`` (null on the others): ``stage_delta_missing``
  when ``stage_delta.changed`` is present and equals false / 0 / "0" (missing or null is not this,
  quirk Q14); else ``stage2_selected`` when MS (``moderator_stage``) lower-cased is ``stage2`` and
  ``stage_delta.stage2_adopted_but_no_change`` is falsy; else ``same_stage_tuples_differ``;
- ``moderator_stage2_selected``: MS lower-cased is ``stage2``;
- ``drift_conflict_relevant``: ``pairs_changed`` and (PC, or S1R, or the final output gained a gold
  pair stage 1 lacked, |(RP(G) ∩ RP(S2)) − RP(S1)| > 0, or holds a pair outside gold,
  |RP(S2) − RP(G)| > 0; RP(G) = ∅ without gold).

Memory used is ``memory_k`` > 0 (family memory). Every count and rate is over all rows
(N_rows); only the mean over stage-2-selected rows can be blank.
"""

from __future__ import annotations

import msgspec
import polars as pl

from aggregator.metrics.family import Family, RowInput
from aggregator.metrics.reads import Obj, truthy
from aggregator.metrics.registry import Metric, Registry
from aggregator.metrics.stage_change import StageDelta, stage_delta
from aggregator.units.sample_counts import Column

CAUSES = ("stage2_selected", "same_stage_tuples_differ", "stage_delta_missing")
EXPLICIT_NO_CHANGE = (False, 0, "0")


class _Fields(msgspec.Struct, gc=False):
    stage_delta: Obj[StageDelta] = None


COLUMNS = (
    Column("pairs_changed", "bool", "the refpol pairs of S1 and S2 differ"),
    Column("drift_cause", "label", "why the pairs changed (null when they did not)", nullable=True,
           values=CAUSES),
    Column("moderator_stage2_selected", "bool", "the moderator stage (MS) is stage2"),
    Column("drift_conflict_relevant", "bool",
           "pairs changed and (polarity conflict, stage-1 risk, a gold pair gained, or a non-gold pair in S2)"),
)


def drift_cause(sd: StageDelta | None, stage2: bool) -> str:
    """The tag of a row whose pairs changed."""
    said = sd.changed if sd is not None else None
    if said is not None and said in EXPLICIT_NO_CHANGE:
        return "stage_delta_missing"
    if stage2 and not (sd is not None and truthy(sd.stage2_adopted_but_no_change)):
        return "stage2_selected"
    return "same_stage_tuples_differ"


def row(inp: RowInput) -> tuple[object, ...]:
    values = inp.values
    gold, s1, s2 = inp.pairs["refpol"]
    changed = s1 != s2
    stage2 = values["moderator_stage"].lower() == "stage2"
    if not changed:
        return (False, None, stage2, False)
    relevant = bool(values["polarity_conflict"] or values["stage1_risk"] or (gold & s2) - s1 or s2 - gold)
    return (True, drift_cause(stage_delta(inp.row), stage2), stage2, relevant)


def declare(reg: Registry) -> None:
    from aggregator.metrics.exprs import count, ratio

    changed = pl.col("pairs_changed")
    stage2 = pl.col("moderator_stage2_selected")
    memory_used = pl.col("memory_k") > 0

    def add(name: str, label: str, meaning: str, formula: str, expr: pl.Expr, *, rate: bool,
            blank: str = "") -> None:
        reg.add(Metric(name, label, meaning, formula, expr, kind="float" if rate else "int",
                       averaging="pooled" if rate else "count", blank_when=blank, requires_gold=False))

    add("drift_cause_n_changed", "Rows with changed pairs", "rows whose refpol pairs differ between stage 1 and final",
        "Σ [RP(S1) ≠ RP(S2)]", count(changed), rate=False)
    for cause in CAUSES:
        words = cause.replace("_", " ")
        tagged = changed & (pl.col("drift_cause") == cause)
        add(f"drift_cause_{cause}_n", f"Drift: {words}", f"rows whose pairs changed, tagged {cause}",
            f"Σ [pairs changed ∧ cause = {cause}]", count(tagged), rate=False)
        add(f"drift_cause_{cause}_rate", f"Drift rate: {words}", f"share of rows whose pairs changed, tagged {cause}",
            f"drift_cause_{cause}_n / N_rows", tagged.mean(), rate=True)
    reg.alias("drift_any_change_n", "drift_cause_n_changed")
    add("drift_any_change_rate", "Pairs change rate", "share of rows whose refpol pairs differ between stage 1 and final",
        "drift_any_change_n / N_rows", changed.mean(), rate=True)
    add("drift_cause_memory_used_changed_n", "Changed with memory",
        "rows whose pairs changed and that retrieved at least one memory", "Σ [pairs changed ∧ k > 0]",
        count(changed & memory_used), rate=False)
    reg.alias("drift_cause_memory_retrieved_changed_n", "drift_cause_memory_used_changed_n")
    add("drift_cause_memory_unused_changed_n", "Changed without memory",
        "rows whose pairs changed and that retrieved no memory", "Σ [pairs changed ∧ k = 0]",
        count(changed & ~memory_used), rate=False)
    relevant = pl.col("drift_conflict_relevant")
    add("drift_conflict_relevant_change_n", "Conflict-relevant changes",
        "rows whose pairs changed with a polarity conflict, a stage-1 risk, a gold pair gained or a non-gold pair kept",
        "Σ [pairs changed ∧ (PC ∨ S1R ∨ |(RP(G) ∩ RP(S2)) − RP(S1)| > 0 ∨ |RP(S2) − RP(G)| > 0)]",
        count(relevant), rate=False)
    add("drift_conflict_relevant_change_rate", "Conflict-relevant change rate",
        "share of rows with a conflict-relevant change of pairs", "drift_conflict_relevant_change_n / N_rows",
        relevant.mean(), rate=True)
    add("n_stage2_selected", "Stage 2 selected", "rows whose moderator stage is stage2",
        "Σ [MS = stage2]", count(stage2), rate=False)
    add("n_stage2_selected_and_pairs_changed", "Stage 2 selected, pairs changed",
        "rows whose moderator stage is stage2 and whose pairs changed", "Σ [MS = stage2 ∧ pairs changed]",
        count(stage2 & changed), rate=False)
    delta = (pl.col("n_s2") - pl.col("n_s1")).cast(pl.Float64)
    add("mean_delta_pairs_count_given_stage2_selected", "Mean tuple-count change (stage 2 selected)",
        "mean of |S2| − |S1| over rows whose moderator stage is stage2, changed or not",
        "Σ_{MS = stage2} (nS2 − nS1) / n_stage2_selected", ratio(delta.filter(stage2).sum(), count(stage2)),
        rate=True, blank="n_stage2_selected = 0")


FAMILY = Family(
    name="drift",
    title="Drift cause and pairs change",
    source="DIAGNOSTICS.md family 11",
    columns=COLUMNS,
    row=row,
    declare=declare,
    fields=_Fields,
    requires=("stage_change", "conflict", "validator", "memory"),
)
