"""Stage change (DIAGNOSTICS.md family 9): what ``stage_delta`` and the moderator say changed.

Per-sample building blocks, read by other families too:

- ``sd_changed``: SD.changed truthy, where SD = ``stage_delta`` when it is a non-empty object, else ``{}``;
- ``change_type``: ctype = ``SD.change_type`` lower-cased, else ``"none"``;
- ``moderator_stage``: MS = ``moderator.selected_stage`` as text, stripped, when truthy; else
  ``"stage2"`` when ``sd_changed``, else ``"stage1"``;
- ``sample_delta_f1_refpol``: dF1 = F1r(S2) − F1r(S1) on rows with gold; null on the others.

Rates over all rows (N_rows) are never blank; the rates over changed rows are 0.0
(``guided_*``) or blank (``changed_and_*``) when no row changed.
"""

from __future__ import annotations

from typing import Any

import msgspec
import polars as pl

from aggregator.metrics.family import Family, RowInput
from aggregator.metrics.prf import prf
from aggregator.metrics.reads import Obj, section, truthy
from aggregator.metrics.registry import Metric, Registry
from aggregator.units.sample_counts import Column

GUIDED = frozenset({"guided", "guided_by_review"})


class StageDelta(msgspec.Struct, gc=False):
    changed: Any = None
    change_type: Any = None
    stage2_adopted_but_no_change: Any = None


class Moderator(msgspec.Struct, gc=False):
    selected_stage: Any = None
    applied_rules: Any = None


class StageAte(msgspec.Struct, gc=False):
    label: Any = None


class _Fields(msgspec.Struct, gc=False):
    stage_delta: Obj[StageDelta] = None
    moderator: Obj[Moderator] = None
    stage1_ate: Obj[StageAte] = None
    stage2_ate: Obj[StageAte] = None


COLUMNS = (
    Column("stage_delta_present", "bool", "stage_delta is an object"),
    Column("sd_changed", "bool", "stage_delta.changed is truthy (the pipeline says stage 2 changed the output)"),
    Column("change_type", "label", "ctype: stage_delta.change_type lower-cased, else \"none\""),
    Column("change_type_guided_by_review", "bool",
           "stage_delta.change_type is exactly \"guided_by_review\" (no case folding, changed not required)"),
    Column("moderator_stage", "label",
           "MS: moderator.selected_stage stripped when truthy, else stage2 when sd_changed, else stage1"),
    Column("sample_delta_f1_refpol", "float", "dF1: per-sample refpol F1 of S2 minus that of S1; null without gold",
           nullable=True),
    Column("stage_mismatch", "bool",
           "moderator.applied_rules contains RuleM, or stage2_ate.label is set and differs from stage1_ate.label"),
)


def stage_delta(row: Any) -> StageDelta | None:
    """SD: ``stage_delta`` when it is an object (None reads as ``{}``)."""
    found: StageDelta | None = section(row.stage_delta)
    return found


def _text(value: Any) -> str:
    """A truthy value as text (a string as is, anything else as its JSON text)."""
    return value if isinstance(value, str) else msgspec.json.encode(value).decode()


def change_type(sd: StageDelta | None) -> str:
    """ctype: ``SD.change_type`` lower-cased, else ``"none"``."""
    value = sd.change_type if sd is not None else None
    return _text(value).lower() if truthy(value) else "none"


def moderator_stage(row: Any, changed: bool) -> str:
    """MS: ``moderator.selected_stage`` as text, stripped, when truthy; else by ``changed``."""
    moderator = section(row.moderator)
    selected = moderator.selected_stage if moderator is not None else None
    if truthy(selected):
        return _text(selected).strip()
    return "stage2" if changed else "stage1"


def _contains(container: Any, item: str) -> bool:
    """Python's ``item in container`` for a list, text or object; False for anything else."""
    return isinstance(container, (list, str, dict)) and item in container


def _label(value: Any) -> Any:
    ate = section(value)
    return ate.label if ate is not None else None


def stage_mismatch(row: Any) -> bool:
    """``RuleM`` applied, or a stage-2 ATE label that differs from the stage-1 one (else ``""``)."""
    moderator = section(row.moderator)
    if moderator is not None and _contains(moderator.applied_rules, "RuleM"):
        return True
    second = _label(row.stage2_ate)
    if second is None:
        return False
    first = _label(row.stage1_ate)
    return bool(second != (first if first is not None and first != "" else ""))


def delta_f1_refpol(values: dict[str, Any]) -> float | None:
    """dF1 on a row with gold, from the core's refpol counts; None without gold."""
    if not values["has_gold"]:
        return None
    s1 = prf(values["refpol_s1_tp"], values["refpol_s1_fp"], values["refpol_s1_fn"])[2]
    s2 = prf(values["refpol_s2_tp"], values["refpol_s2_fp"], values["refpol_s2_fn"])[2]
    return s2 - s1


def row(inp: RowInput) -> tuple[object, ...]:
    sd = stage_delta(inp.row)
    changed = sd is not None and truthy(sd.changed)
    return (
        sd is not None,
        changed,
        change_type(sd),
        sd is not None and sd.change_type == "guided_by_review",
        moderator_stage(inp.row, changed),
        delta_f1_refpol(inp.values),
        stage_mismatch(inp.row),
    )


def declare(reg: Registry) -> None:
    from aggregator.metrics.exprs import count, ratio

    changed = pl.col("sd_changed")
    n_changed = count(changed)
    ctype = pl.col("change_type")
    gold_delta = changed & pl.col("has_gold")

    present = pl.col("stage_delta_present").any()

    def add(name: str, label: str, meaning: str, formula: str, expr: pl.Expr, blank: str = "",
            better: bool | None = None, reads_stage_delta: bool = True) -> None:
        reg.add(Metric(name, label, meaning, formula, expr, averaging="pooled", section="diagnostics",
                       blank_when=blank, requires_gold=False, higher_is_better=better,
                       present=present if reads_stage_delta else None))

    add("changed_samples_rate", "Changed samples rate", "share of rows whose stage_delta says stage 2 changed the output",
        "Σ [changed] / N_rows", changed.mean())
    reg.alias("pre_to_post_change_rate", "changed_samples_rate")
    add("guided_change_rate", "Guided change rate",
        "share of changed rows whose change type is guided or guided_by_review (0.0 when no row changed)",
        "Σ [changed ∧ ctype ∈ {guided, guided_by_review}] / Σ [changed]",
        ratio(count(changed & ctype.is_in(sorted(GUIDED))), n_changed).fill_null(0.0))
    add("guided_by_review_rate", "Guided-by-review rate",
        "rows whose change_type is exactly guided_by_review (case-sensitive, changed or not: quirk Q6) per "
        "changed row, so it can exceed 1 (0.0 when no row changed)",
        "Σ [SD.change_type = \"guided_by_review\"] / Σ [changed]",
        ratio(count(pl.col("change_type_guided_by_review")), n_changed).fill_null(0.0))
    add("unguided_drift_rate", "Unguided drift rate", "share of rows changed with change type unguided",
        "Σ [changed ∧ ctype = unguided] / N_rows", (changed & (ctype == "unguided")).mean(), better=False)
    add("changed_and_improved_rate", "Changed and improved", "share of changed rows that have gold and gained refpol F1",
        "Σ [changed ∧ gold ∧ dF1 > 0] / Σ [changed]",
        ratio(count(gold_delta & (pl.col("sample_delta_f1_refpol") > 0)), n_changed), "no changed row", True)
    add("changed_and_degraded_rate", "Changed and degraded", "share of changed rows that have gold and lost refpol F1",
        "Σ [changed ∧ gold ∧ dF1 < 0] / Σ [changed]",
        ratio(count(gold_delta & (pl.col("sample_delta_f1_refpol") < 0)), n_changed), "no changed row", False)
    add("stage_mismatch_rate", "Stage mismatch rate",
        "share of rows where the moderator applied RuleM or the stage-2 ATE label differs from the stage-1 one",
        "Σ [RuleM ∈ applied_rules ∨ stage2_ate.label ∉ {null, stage1_ate.label else \"\"}] / N_rows",
        pl.col("stage_mismatch").mean(), reads_stage_delta=False)


FAMILY = Family(
    name="stage_change",
    title="Stage change",
    source="DIAGNOSTICS.md family 9",
    columns=COLUMNS,
    row=row,
    declare=declare,
    fields=_Fields,
)
