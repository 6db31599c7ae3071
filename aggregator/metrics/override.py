"""Override subsets and reasons (DIAGNOSTICS.md family 13): what happened where an override fired or was blocked.

Per row, ``OV`` = ``debate.override_stats``, else ``meta.debate_override_stats`` (an object;
any other value reads as ``{}``); its integer fields are read as int, missing or null = 0.

- ``override_applied`` (``applied``) = ``OV.override_applied is true`` or ``OV.applied > 0``;
- ``override_skipped_conflict`` (a *conflict row*) = ``OV.skipped_conflict > 0``;
- ``override_effect_applied`` = ``OV.override_effect_applied is true``;
- ``override_reason`` = ok(``OV.override_reason``) (blank when empty or not text);
- ``override_skip_<key>`` = int ``meta.debate_override_skip_reasons.<key>`` (object only);
- ``override_ev_rejected``: applied, and the top-level ``meta.adopt_decision`` is ``not_adopted``
  and ``meta.adopt_reason`` is ``ev_below_threshold`` (quirk Q10: scorecards keep these two in
  ``runtime.parsed_output.meta``, so this is False in every real run);
  ``override_ev_rejected_fixed`` reads them from ``runtime.parsed_output.meta``.

Over applied rows and over conflict rows: mean ``dF1`` (``sample_delta_f1_refpol`` of family
``stage_change``) over those with gold, the share with ``UNSUP`` (family ``grounding``) and
Σ ``nc`` per row (family ``validator``); over applied rows, the share with ``resolved``
(``risk_resolved``). Each is blank when the subset is empty. ``override_harm_rate``: rows with
the override effect applied, ``sd_changed``, gold and dF1 < 0, over rows with the effect applied.

The side file ``override_gate_debug_summary.json`` next to the scorecards (quirk Q11) gives
the three ``override_hint_*`` columns; it is not read when ``--profile`` matched no row.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias

import msgspec
import polars as pl

from aggregator.metrics.family import Family, RowInput, SideFile
from aggregator.metrics.reads import Obj, as_int, first_truthy, is_true, ok, section
from aggregator.metrics.registry import Metric, Registry, RunContext
from aggregator.units.sample_counts import Column

if TYPE_CHECKING:
    from aggregator.metrics.values import Kind

SKIP_REASONS = ("action_ambiguity", "L3_conservative", "implicit_soft_only", "low_confidence", "contradictory_memory")
REASONS = ("risk_resolved", "debate_action", "grounding_improved", "conflict_blocked", "low_signal", "ev_below_threshold")
SIDE_NAME = "override_gate_debug_summary.json"
HINT_COLUMNS = ("override_hint_invalid_total", "override_hint_repair_total", "override_hint_invalid_rate")


class OverrideStats(msgspec.Struct, gc=False):
    """The fields of ``OV`` the families read."""

    applied: Any = None
    skipped_low_signal: Any = None
    skipped_conflict: Any = None
    skipped_already_confident: Any = None
    override_applied: Any = None
    override_effect_applied: Any = None
    override_reason: Any = None


class _SkipReasons(msgspec.Struct, gc=False):
    action_ambiguity: Any = None
    L3_conservative: Any = None
    implicit_soft_only: Any = None
    low_confidence: Any = None
    contradictory_memory: Any = None


class _Meta(msgspec.Struct, gc=False):
    debate_override_stats: msgspec.Raw = msgspec.Raw()
    debate_override_skip_reasons: Obj[_SkipReasons] = None
    adopt_decision: Any = None
    adopt_reason: Any = None


class _Debate(msgspec.Struct, gc=False):
    override_stats: msgspec.Raw = msgspec.Raw()


class _ParsedMeta(msgspec.Struct, gc=False):
    adopt_decision: Any = None
    adopt_reason: Any = None


class _ParsedOutput(msgspec.Struct, gc=False):
    meta: msgspec.Raw = msgspec.Raw()


_MetaSection: TypeAlias = Obj[_ParsedMeta]
_PARSED_META = msgspec.json.Decoder(_MetaSection)
_OverrideStatsSection: TypeAlias = Obj[OverrideStats]
_OVERRIDE_STATS = msgspec.json.Decoder(_OverrideStatsSection)


class _Runtime(msgspec.Struct, gc=False):
    parsed_output: Obj[_ParsedOutput] = None


class _Fields(msgspec.Struct, gc=False):
    debate: Obj[_Debate] = None
    meta: _Meta | None = None
    runtime: _Runtime | None = None


class OverrideGateSummary(msgspec.Struct, gc=False):
    """The keys of ``override_gate_debug_summary.json`` that are read (others are ignored)."""

    override_hint_invalid_total: int | None = None
    override_hint_repair_total: int | None = None
    override_hint_invalid_rate: float | None = None


SIDE = SideFile(SIDE_NAME, OverrideGateSummary)

COLUMNS = (
    Column("override_stats_present", "bool", "OV (debate.override_stats, else meta.debate_override_stats) is an object"),
    Column("override_skip_reasons_present", "bool", "meta.debate_override_skip_reasons is an object"),
    Column("override_applied", "bool", "applied: OV.override_applied is true or OV.applied > 0"),
    Column("override_skipped_conflict", "bool", "conflict row: OV.skipped_conflict > 0"),
    Column("override_effect_applied", "bool", "OV.override_effect_applied is true"),
    Column("override_reason", "label", "ok(OV.override_reason) (blank when empty or not text)", nullable=True),
    *(Column(f"override_skip_{key}", "int", f"int meta.debate_override_skip_reasons.{key} (0 when absent)")
      for key in SKIP_REASONS),
    Column("override_ev_rejected", "bool",
           "applied, with top-level meta.adopt_decision = not_adopted and adopt_reason = ev_below_threshold (Q10)"),
    Column("override_ev_rejected_fixed", "bool",
           "applied, with runtime.parsed_output.meta.adopt_decision = not_adopted and adopt_reason = ev_below_threshold"),
)


def _stats(raw: msgspec.Raw) -> Any:
    return _OVERRIDE_STATS.decode(raw) if raw else None


def override_stats(row: Any) -> Any:
    """OV of a decoded row: ``debate.override_stats``, else ``meta.debate_override_stats``; None reads as ``{}``.
    Both stay raw in the row (``aggregate legacy`` copies OV verbatim) and are decoded here."""
    debate, meta = section(row.debate), row.meta
    return section(first_truthy(_stats(debate.override_stats) if debate is not None else None,
                                _stats(meta.debate_override_stats) if meta is not None else None))


def stat(ov: Any, name: str) -> int:
    """An integer field of OV (0 when OV or the field is missing)."""
    return as_int(getattr(ov, name)) if ov is not None else 0


def _ev_rejected(meta: Any) -> bool:
    return meta is not None and ok(meta.adopt_decision) == "not_adopted" and ok(meta.adopt_reason) == "ev_below_threshold"


def _parsed_meta(row: Any) -> Any:
    """``runtime.parsed_output.meta`` read (None when it is not an object); decoded only for applied rows."""
    runtime = row.runtime
    parsed = section(runtime.parsed_output) if runtime is not None else None
    return section(_PARSED_META.decode(parsed.meta)) if parsed is not None and parsed.meta else None


def row(inp: RowInput) -> tuple[object, ...]:
    data = inp.row
    ov = override_stats(data)
    applied = ov is not None and (is_true(ov.override_applied) or stat(ov, "applied") > 0)
    reason = ov.override_reason.strip() if ov is not None and isinstance(ov.override_reason, str) else ""
    meta = data.meta
    skips = section(meta.debate_override_skip_reasons) if meta is not None else None
    return (
        ov is not None,
        skips is not None,
        applied,
        stat(ov, "skipped_conflict") > 0,
        ov is not None and is_true(ov.override_effect_applied),
        reason or None,
        *(as_int(getattr(skips, key)) if skips is not None else 0 for key in SKIP_REASONS),
        applied and _ev_rejected(meta),
        applied and _ev_rejected(_parsed_meta(data)),
    )


def side_value(name: str) -> Any:
    """A run-level reader of one key of the side file (None when the file or the key is absent)."""

    def read(table: pl.DataFrame, ctx: RunContext) -> Any:
        return getattr(ctx.side.get(SIDE_NAME), name, None)

    return read


def _adder(reg: Registry, present: pl.Expr) -> Callable[..., None]:
    """``add(name, label, meaning, formula, expr, **extra)``: a metric of this family computed without gold."""

    def add(name: str, label: str, meaning: str, formula: str, expr: pl.Expr | None, **extra: Any) -> None:
        reg.add(Metric(name, label, meaning, formula, expr, requires_gold=False, present=present, **extra))

    return add


def _declare_counts(reg: Registry) -> None:
    from aggregator.metrics.exprs import count

    add = _adder(reg, pl.col("override_stats_present").any())
    applied = pl.col("override_applied")
    add("override_applied_n", "Overrides applied", "rows where a debate override was applied",
        "Σ [applied]", count(applied), kind="int", averaging="count")
    add("override_applied_rate", "Override applied rate", "share of rows where a debate override was applied",
        "Σ [applied] / N_rows", applied.mean(), averaging="pooled")
    add("override_skipped_conflict_n", "Overrides skipped for conflict",
        "rows where an override was skipped because of a conflict", "Σ [OV.skipped_conflict > 0]",
        count(pl.col("override_skipped_conflict")), kind="int", averaging="count")
    for reason in REASONS:
        add(f"override_reason_{reason}_n", f"Override reason {reason}", f"rows whose override reason is {reason}",
            f"Σ [ok(OV.override_reason) = {reason}]", count(pl.col("override_reason") == reason), kind="int",
            averaging="count")
    skips = _adder(reg, pl.col("override_skip_reasons_present").any())
    for key in SKIP_REASONS:
        skips(f"override_skipped_conflict_{key}", f"Override skips: {key}",
              f"Σ of meta.debate_override_skip_reasons.{key} over all rows",
              f"Σ int(meta.debate_override_skip_reasons.{key})", pl.col(f"override_skip_{key}").sum(),
              kind="int", averaging="count")


def _declare_subset(reg: Registry, prefix: str, rows: pl.Expr, what: str) -> None:
    """The outcome columns of one subset of rows (applied or conflict rows)."""
    from aggregator.metrics.exprs import HAS_GOLD, count, ratio

    add = _adder(reg, pl.col("override_stats_present").any())
    blank = f"no {what}"
    add(f"{prefix}_delta_f1_mean", f"ΔRef-F1 on {what}s", f"mean per-sample refpol F1 change on {what}s with gold",
        f"mean over {what}s with gold of dF1", pl.col("sample_delta_f1_refpol").filter(rows & HAS_GOLD).mean(),
        averaging="macro", blank_when=f"{blank} with gold", higher_is_better=True)
    add(f"{prefix}_unsupported_polarity_rate", f"Unsupported polarity on {what}s",
        f"share of {what}s whose polarity is not supported by a grounded judgement (legacy UNSUP)",
        f"Σ [{what} ∧ UNSUP] / Σ [{what}]", ratio(count(rows & pl.col("unsupported_polarity_legacy")), count(rows)),
        averaging="pooled", blank_when=blank, higher_is_better=False)
    add(f"{prefix}_negation_contrast_failure_rate", f"Negation/contrast risks on {what}s",
        f"negation/contrast validator risks per {what} (a count per row, can exceed 1)",
        f"Σ over {what}s of nc / Σ [{what}]", ratio(pl.col("nc").filter(rows).sum(), count(rows)),
        averaging="pooled", blank_when=blank, higher_is_better=False)


def _declare_rates(reg: Registry) -> None:
    from aggregator.metrics.exprs import HAS_GOLD, count, ratio

    applied = pl.col("override_applied")
    _declare_subset(reg, "override_applied", applied, "applied row")
    _declare_subset(reg, "override_skipped_conflict", pl.col("override_skipped_conflict"), "conflict row")
    add = _adder(reg, pl.col("override_stats_present").any())
    add("override_success_rate", "Override success rate",
        "share of applied overrides on rows whose stage-1 validator risks went down at stage 2",
        "Σ [applied ∧ resolved] / Σ [applied]", ratio(count(applied & pl.col("risk_resolved")), count(applied)),
        averaging="pooled", blank_when="no applied row", higher_is_better=True)
    effect = pl.col("override_effect_applied")
    harmed = effect & pl.col("sd_changed") & HAS_GOLD & (pl.col("sample_delta_f1_refpol") < 0)
    add("override_harm_rate", "Override harm rate",
        "share of rows with an applied override effect where the output changed and Ref-F1 fell",
        "Σ [effect applied ∧ changed ∧ gold ∧ dF1 < 0] / Σ [effect applied]", ratio(count(harmed), count(effect)),
        averaging="pooled", blank_when="no row with the override effect applied", higher_is_better=False)
    add("override_applied_and_adopted_rate", "Override effect applied rate",
        "share of rows where the override's effect was applied to the output",
        "Σ [OV.override_effect_applied is true] / N_rows", effect.mean(), averaging="pooled")
    ev_meaning = "share of rows where an applied override was then not adopted because its EV was below threshold"
    add("override_applied_but_ev_rejected_rate", "Override EV-rejected rate (compat)", ev_meaning,
        "Σ [applied ∧ meta.adopt_decision = not_adopted ∧ meta.adopt_reason = ev_below_threshold] / N_rows",
        pl.col("override_ev_rejected").mean(), averaging="pooled",
        compat="reads adopt_decision/adopt_reason from the top-level meta, where scorecards never store "
               "them (they live in runtime.parsed_output.meta): 0 in every real run (quirk Q10)")
    add("override_applied_but_ev_rejected_rate_fixed", "Override EV-rejected rate", ev_meaning,
        "Σ [applied ∧ PO.meta.adopt_decision = not_adopted ∧ PO.meta.adopt_reason = ev_below_threshold] / N_rows",
        pl.col("override_ev_rejected_fixed").mean(), averaging="pooled", fixes="override_applied_but_ev_rejected_rate")


def _declare_side(reg: Registry) -> None:
    rows: list[tuple[str, str, Kind, str]] = [
        ("override_hint_invalid_total", "Override hints invalid", "int", "override hints rejected as invalid in the run"),
        ("override_hint_repair_total", "Override hints repaired", "int", "override hints repaired in the run"),
        ("override_hint_invalid_rate", "Override hint invalid rate", "float", "share of override hints rejected as invalid"),
    ]
    for name, label, kind, meaning in rows:
        reg.add(Metric(name, label, f"{meaning}, copied from {SIDE_NAME} next to the scorecards", f"side file `{name}`",
                       None, kind=kind, averaging="count" if kind == "int" else "pooled", requires_gold=False,
                       blank_when="side file or key absent, or --profile matched no row",
                       run_level=side_value(name)))


def declare(reg: Registry) -> None:
    _declare_counts(reg)
    _declare_rates(reg)
    _declare_side(reg)


FAMILY = Family(
    name="override",
    title="Override subsets and reasons",
    source="DIAGNOSTICS.md family 13",
    columns=COLUMNS,
    row=row,
    declare=declare,
    fields=_Fields,
    side_file=SIDE,
    requires=("stage_change", "grounding", "validator"),
)
