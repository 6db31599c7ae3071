"""Validator risk (DIAGNOSTICS.md family 8): structural risks the validator flagged and cleared.

Validator blocks are the objects of the top-level ``validator`` list; a block's stage is
ok(``stage``) lower-cased. Per sample:

- ``r1``, ``r2``: items of ``structural_risks`` of the **first** ``stage1`` / ``stage2`` block (0: none);
- ``nc``: risks of **every** block whose upper-cased ``risk_id`` contains NEGATION or CONTRAST;
  ``nc1``, ``nc2``: the same inside the first ``stage1`` / ``stage2`` block only;
- ``sev1``, ``sev2``: Σ severity weights over the risks of **every** ``stage1`` / ``stage2``
  block (high 3, mid 2, low 1, anything else 2; missing or empty = mid) (quirk Q16);
- ``stage1_risk`` (S1R): top-level ``stage1_structural_risk`` when present and not null (its
  truthiness), else ``r1 > 0 ∨ PC ∨ nc1 > 0 ∨ AF ≥ 2 ∨ RQ1 = explicit_failure``;
  ``stage2_risk`` (S2R): ``stage2_structural_risk``, else ``r2 > 0 ∨ nc2 > 0``;
- ``risk_flagged``: ``r1 > 0 ∨ nc > 0 ∨ PC ∨ AF ≥ 2``; ``risk_resolved``: ``r1 > 0 ∧ r2 < r1``.

PC is ``polarity_conflict`` (family conflict), AF and RQ1 come from family grounding and
``changed`` is ``sd_changed`` (``stage_delta.changed``, family stage_change). Every column is
over all rows; none is ever blank (a rate whose denominator is 0 is 0.0).
"""

from __future__ import annotations

from typing import Any, TypeAlias

import msgspec
import polars as pl

from aggregator.metrics.family import Family, RowInput
from aggregator.metrics.reads import Items, objects, ok
from aggregator.metrics.registry import Averaging, Metric, Registry
from aggregator.units.sample_counts import Column

SEVERITY_WEIGHTS = {"high": 3.0, "mid": 2.0, "low": 1.0, "": 2.0}
OTHER_SEVERITY = 2.0
NEGATION_CONTRAST = ("NEGATION", "CONTRAST")


class _Risk(msgspec.Struct, gc=False):
    risk_id: Any = None
    severity: Any = None


class _Block(msgspec.Struct, gc=False):
    stage: Any = None
    structural_risks: Items[_Risk] = None


class _Fields(msgspec.Struct, gc=False):
    validator: msgspec.Raw = msgspec.Raw()
    """Kept raw (decoded in :func:`row`): ``aggregate legacy`` copies the blocks verbatim."""
    stage1_structural_risk: Any = None
    stage2_structural_risk: Any = None


_Blocks: TypeAlias = Items[_Block]
_BLOCKS = msgspec.json.Decoder(_Blocks)

COLUMNS = (
    Column("r1", "int", "risks of the first stage1 validator block"),
    Column("r2", "int", "risks of the first stage2 validator block"),
    Column("nc", "int", "negation/contrast risks (risk_id contains NEGATION or CONTRAST) over every validator block"),
    Column("nc1", "int", "negation/contrast risks of the first stage1 validator block"),
    Column("nc2", "int", "negation/contrast risks of the first stage2 validator block"),
    Column("sev1", "float", "Σ severity weights (high 3, mid 2, low 1, other 2) over every stage1 block's risks"),
    Column("sev2", "float", "Σ severity weights over every stage2 block's risks"),
    Column("stage1_risk", "bool", "S1R: stage1_structural_risk, else r1 > 0 or PC or nc1 > 0 or AF ≥ 2 or RQ1 = explicit_failure"),
    Column("stage2_risk", "bool", "S2R: stage2_structural_risk, else r2 > 0 or nc2 > 0"),
    Column("validator_cleared", "bool", "S1R and not S2R: the stage-1 risk was cleared"),
    Column("residual_risk", "bool", "r2 > 0: the stage2 validator block still lists risks"),
    Column("outcome_residual_risk", "bool", "r2 > 0 or PC or RQ1 = unsupported or nc > 0"),
    Column("risk_flagged", "bool", "r1 > 0 or nc > 0 or PC or AF ≥ 2"),
    Column("risk_resolved", "bool", "resolved: r1 > 0 and r2 < r1"),
    Column("validator_present", "bool", "the row has a validator block (an object in the top-level validator list)"),
)


def _negation_contrast(risks: list[_Risk]) -> int:
    return sum(any(word in ok(r.risk_id).upper() for word in NEGATION_CONTRAST) for r in risks)


def _severity(risks: list[_Risk]) -> float:
    return sum((SEVERITY_WEIGHTS.get(ok(r.severity).lower(), OTHER_SEVERITY) for r in risks), 0.0)


class BlockStats:
    """r, nc (first block) and sev (every block) of one validator stage."""

    __slots__ = ("count", "negation", "severity", "seen")

    def __init__(self) -> None:
        self.count = self.negation = 0
        self.severity = 0.0
        self.seen = False

    def add(self, listed: Any, risks: list[_Risk]) -> None:
        if not self.seen:
            self.seen = True
            self.count = len(listed) if isinstance(listed, list) else 0
            self.negation = _negation_contrast(risks)
        self.severity += _severity(risks)


def validator_stats(blocks: list[_Block]) -> tuple[BlockStats, BlockStats, int]:
    """The stage1 and stage2 statistics of the validator blocks, and nc over every block."""
    stages = {"stage1": BlockStats(), "stage2": BlockStats()}
    nc = 0
    for block in blocks:
        risks = objects(block.structural_risks)
        nc += _negation_contrast(risks)
        stats = stages.get(ok(block.stage).lower())
        if stats is not None:
            stats.add(block.structural_risks, risks)
    return stages["stage1"], stages["stage2"], nc


def row(inp: RowInput) -> tuple[object, ...]:
    data, values = inp.row, inp.values
    blocks = objects(_BLOCKS.decode(data.validator)) if data.validator else []
    s1, s2, nc = validator_stats(blocks)
    r1, r2 = s1.count, s2.count
    pc = values["polarity_conflict"]
    af_risk = values["alignment_failure_drops"] >= 2
    given1, given2 = data.stage1_structural_risk, data.stage2_structural_risk
    s1r = bool(given1) if given1 is not None else (
        r1 > 0 or pc or s1.negation > 0 or af_risk or values["rq1"] == "explicit_failure")
    s2r = bool(given2) if given2 is not None else (r2 > 0 or s2.negation > 0)
    return (
        r1, r2, nc, s1.negation, s2.negation, s1.severity, s2.severity, s1r, s2r, s1r and not s2r, r2 > 0,
        r2 > 0 or pc or values["rq1"] == "unsupported" or nc > 0,
        r1 > 0 or nc > 0 or pc or af_risk,
        0 < r1 and r2 < r1,
        bool(blocks),
    )


def _share_of(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    """Σ numerator / Σ denominator over rows; 0.0 when no row is in the denominator."""
    den = denominator.cast(pl.Float64).sum()
    return pl.when(den > 0).then(numerator.cast(pl.Float64).sum() / den).otherwise(0.0)


def declare(reg: Registry) -> None:
    present = pl.col("validator_present").any()

    def add(name: str, label: str, meaning: str, formula: str, expr: pl.Expr, better: bool | None,
            averaging: Averaging = "pooled", blank_when: str = "", blocks_only: bool = False) -> None:
        reg.add(Metric(name, label, meaning, formula, expr, averaging=averaging,
                       section="diagnostics", requires_gold=False, higher_is_better=better,
                       blank_when=blank_when, present=present if blocks_only else None))

    s1r, flagged, changed, resolved = (pl.col(c) for c in ("stage1_risk", "risk_flagged", "sd_changed", "risk_resolved"))
    zero = "never blank: 0.0 when no row is in the denominator"
    add("validator_clear_rate", "Validator clear rate", "share of rows with a stage-1 structural risk that stage 2 cleared",
        "Σ [S1R ∧ ¬S2R] / Σ [S1R]", _share_of(pl.col("validator_cleared"), s1r), True, blank_when=zero)
    reg.alias("risk_resolution_rate", "validator_clear_rate")
    add("validator_residual_risk_rate", "Residual risk", "share of rows whose stage-2 validator block still lists risks",
        "Σ [r2 > 0] / N_rows", pl.col("residual_risk").cast(pl.Float64).mean(), False, blocks_only=True)
    reg.alias("residual_risk_rate", "validator_residual_risk_rate")
    add("outcome_residual_risk_rate", "Outcome residual risk",
        "share of rows left with a stage-2 risk, a polarity conflict, an unsupported polarity or a negation/contrast risk",
        "Σ [r2 > 0 ∨ PC ∨ RQ1 = unsupported ∨ nc > 0] / N_rows", pl.col("outcome_residual_risk").cast(pl.Float64).mean(), False)
    r1_sum, r2_sum = pl.col("r1").sum().cast(pl.Float64), pl.col("r2").sum().cast(pl.Float64)
    add("risk_resolution_rate_legacy", "Risk resolution (legacy)", "share of stage-1 risks no longer counted at stage 2",
        "max(0, Σ r1 − Σ r2) / Σ r1",
        pl.when(r1_sum > 0).then(pl.max_horizontal(r1_sum - r2_sum, 0.0) / r1_sum).otherwise(0.0), True,
        blank_when=zero, blocks_only=True)
    add("risk_flagged_rate", "Risk flagged", "share of rows with a structural risk, a negation/contrast risk, "
        "a polarity conflict or two alignment-failure drops", "Σ [risk_flagged] / N_rows",
        flagged.cast(pl.Float64).mean(), False)
    add("risk_affected_change_rate", "Risk-affected change", "share of risk-flagged rows that stage 2 changed",
        "Σ [risk_flagged ∧ changed] / Σ [risk_flagged]", _share_of(flagged & changed, flagged), None, blank_when=zero)
    add("ignored_proposal_rate", "Ignored proposal", "share of risk-flagged rows that stage 2 left unchanged",
        "Σ [risk_flagged ∧ ¬changed] / Σ [risk_flagged]", _share_of(flagged & ~changed, flagged), False, blank_when=zero)
    add("risk_resolved_with_change_rate", "Resolved with change", "share of changed rows whose stage-1 risks went down",
        "Σ [changed ∧ resolved] / Σ [changed]", _share_of(changed & resolved, changed), True, blank_when=zero)
    add("risk_resolved_without_change_rate", "Resolved without change",
        "share of unchanged rows whose stage-1 risks went down", "Σ [¬changed ∧ resolved] / Σ [¬changed]",
        _share_of(~changed & resolved, ~changed), None, blank_when=zero)
    sev1, sev2 = pl.col("sev1").sum(), pl.col("sev2").sum()
    delta = (pl.col("sev2") - pl.col("sev1")).sum()
    sums = (("risk_before_sum", "Risk severity before", "stage-1", "Σ sev1", sev1),
            ("risk_after_sum", "Risk severity after", "stage-2", "Σ sev2", sev2))
    for name, label, stage, formula, expr in sums:
        add(name, label, f"severity-weighted {stage} validator risks summed over rows", formula, expr, False, "count", blocks_only=True)
    reg.alias("residual_risk_severity_sum", "risk_after_sum")
    add("risk_delta_sum", "Risk severity change", "stage-2 minus stage-1 severity-weighted risks, summed over rows",
        "Σ (sev2 − sev1)", delta, False, "count", blocks_only=True)
    for name, label, formula, expr in (("risk_before_sum_mean", "Risk severity before per row", "Σ sev1 / N_rows", sev1),
                                       ("risk_after_sum_mean", "Risk severity after per row", "Σ sev2 / N_rows", sev2),
                                       ("risk_delta_sum_mean", "Risk severity change per row", "Σ (sev2 − sev1) / N_rows", delta)):
        add(name, label, f"{label.lower()}: the sum divided by the number of rows", formula, expr / pl.len(), False, blocks_only=True)
    add("negation_contrast_failure_rate", "Negation/contrast risks per row",
        "negation or contrast risks per row over every validator block (a count per row: can exceed 1)",
        "Σ nc / N_rows", pl.col("nc").sum() / pl.len(), False, blocks_only=True)


FAMILY = Family(
    name="validator",
    title="Validator risk",
    source="DIAGNOSTICS.md family 8",
    columns=COLUMNS,
    row=row,
    declare=declare,
    fields=_Fields,
    requires=("grounding", "conflict", "stage_change"),
)
