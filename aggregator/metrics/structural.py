"""Every column of ``structural_metrics.csv``: the core columns (METRICS.md) declared here,
the diagnostics by their families (:mod:`aggregator.metrics.families`).

N = samples with gold. Macro means are over those samples. A blank (null) value
means undefined, never 0. Per-sample columns are described in
:mod:`aggregator.run.per_sample` and :mod:`aggregator.units.sample_counts`. The CSV puts the
research tool's columns in its order (``reference_columns.txt``), then any others.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import NamedTuple

import polars as pl

from aggregator.metrics.exprs import HAS_GOLD, count, f1_of_sums, on_gold, ratio, transitions
from aggregator.metrics.families import resolve
from aggregator.metrics.registry import Averaging, Metric, Registry, Section

UNIT_LABELS = {"refpol": "Ref", "otepol": "Surface", "attrpol": "Attr"}
UNIT_SECTIONS: dict[str, Section] = {"refpol": "headline", "otepol": "units", "attrpol": "units"}


class _UnitMetric(NamedTuple):
    """One per-unit metric of :func:`_declare_unit` (its section is the unit's)."""

    name: str
    label: str
    meaning: str
    expr: pl.Expr
    formula: str
    averaging: Averaging
    better: bool
    blank: str


def _declare_counts(reg: Registry) -> None:
    def n(name: str, label: str, meaning: str, expr: pl.Expr, formula: str) -> None:
        reg.add(Metric(name, label, meaning, formula, expr, kind="int", averaging="count",
                       requires_gold=False))

    n("n", "Rows", "rows aggregated (after --profile filtering)", pl.len().cast(pl.Int64), "rows")
    n("N_gold", "Samples with gold", "samples whose gold set is non-empty", count(HAS_GOLD), "Σ [|G| > 0]")
    reg.alias("N_gold_total", "N_gold")
    n("N_gold_explicit", "Samples with explicit gold", "samples with ≥1 gold tuple whose term is non-empty",
      count(pl.col("n_gold_explicit") > 0), "Σ [|G_exp| > 0]")
    n("N_gold_implicit", "Samples with implicit gold", "samples with ≥1 gold tuple whose term is empty",
      count(pl.col("n_gold_implicit") > 0), "Σ [|G_imp| > 0]")
    n("N_gold_total_pairs", "Gold tuples", "gold EvalTuples after dedup", pl.col("n_gold").sum(), "Σ |G|")
    n("N_gold_explicit_pairs", "Explicit gold tuples", "gold tuples with a non-empty term",
      pl.col("n_gold_explicit").sum(), "Σ |G_exp|")
    n("N_gold_implicit_pairs", "Implicit gold tuples", "gold tuples with an empty term",
      pl.col("n_gold_implicit").sum(), "Σ |G_imp|")
    reg.add(Metric("gold_available", "Gold available", "some sample has gold; when False most columns are blank",
                   "N_gold_total_pairs > 0", pl.col("n_gold").sum() > 0, kind="bool", averaging="flag",
                   requires_gold=False))


def _declare_unit(reg: Registry, unit: str) -> None:
    """F1 S1/S2, ΔF1, fix/break rates and net gain of one unit."""
    suffix = "" if unit == "refpol" else f"_{unit}"
    label = UNIT_LABELS[unit]
    section = UNIT_SECTIONS[unit]
    s1, s2 = on_gold(f"{unit}_s1_f1").mean(), on_gold(f"{unit}_s2_f1").mean()
    fix, brk, keep, still = (transitions(unit, k) for k in ("fix", "break", "keep", "still"))
    n_gold = count(HAS_GOLD)
    declared = [
        _UnitMetric(f"tuple_f1_s1{suffix}", f"{label}-F1 S1", meaning=f"mean per-sample {unit} F1 of stage 1", expr=s1,
                    formula=f"mean over gold samples of F1_{unit}(S1, G)", averaging="macro", better=True, blank="N = 0"),
        _UnitMetric(f"tuple_f1_s2{suffix}", f"{label}-F1 S2", meaning=f"mean per-sample {unit} F1 of the final stage",
                    expr=s2, formula=f"mean over gold samples of F1_{unit}(S2, G)", averaging="macro", better=True,
                    blank="N = 0"),
        _UnitMetric(f"delta_f1{suffix}", f"Δ{label}-F1", meaning=f"change of mean {unit} F1 from stage 1 to final",
                    expr=s2 - s1, formula=f"tuple_f1_s2{suffix} − tuple_f1_s1{suffix}", averaging="difference",
                    better=True, blank="N = 0"),
        _UnitMetric(f"fix_rate{suffix}", f"{label} fix rate",
                    meaning=f"share of stage-1 wrong samples that the review made correct ({unit})",
                    expr=ratio(fix, fix + still), formula="fix / (fix + still)", averaging="pooled", better=True,
                    blank="fix + still = 0"),
        _UnitMetric(f"break_rate{suffix}", f"{label} break rate",
                    meaning=f"share of stage-1 correct samples that the review broke ({unit})",
                    expr=ratio(brk, brk + keep), formula="break / (break + keep)", averaging="pooled", better=False,
                    blank="break + keep = 0"),
        _UnitMetric(f"net_gain{suffix}", f"{label} net gain", meaning=f"fixes minus breaks per gold sample ({unit})",
                    expr=ratio((fix - brk).cast(pl.Float64), n_gold), formula="(fix − break) / N", averaging="pooled",
                    better=True, blank="N = 0"),
    ]
    for m in declared:
        reg.add(Metric(m.name, m.label, m.meaning, m.formula, m.expr, averaging=m.averaging, section=section,
                       blank_when=m.blank, higher_is_better=m.better))
    if unit == "refpol":
        changed_still = count(HAS_GOLD & (pl.col("refpol_transition") == "still") & pl.col("changed"))
        reg.add(Metric("cda", "CDA", "share of fixes among samples the review fixed or changed without fixing",
                       "fix / (fix + still ∧ changed), refpol", ratio(fix, fix + changed_still),
                       averaging="pooled", section="headline", blank_when="denominator 0", higher_is_better=True))
        reg.add(Metric("break_count", "Breaks", "samples correct at stage 1 and wrong after review (refpol)",
                       "Σ [transition = break]", brk, kind="int", averaging="count", section="headline",
                       requires_gold=False, higher_is_better=False))
        for m in declared:
            reg.alias(f"{m.name}_refpol", m.name)
        for legacy, of in (("triplet_f1_s1", "tuple_f1_s1"), ("triplet_f1_s2", "tuple_f1_s2"),
                           ("tuple_f1_s2_overall", "tuple_f1_s2"), ("tuple_f1_s2_raw", "tuple_f1_s2")):
            reg.alias(legacy, of, legacy=True)


def _declare_micro(reg: Registry, unit: str) -> None:
    keep = HAS_GOLD & (pl.col(f"{unit}_s2_tp") + pl.col(f"{unit}_s2_fn") > 0) if unit == "attrpol" else HAS_GOLD
    sums = {c: pl.col(f"{unit}_s2_{c}").filter(keep).sum() for c in ("tp", "fp", "fn")}
    label = UNIT_LABELS[unit]
    scope = "samples with gold attribute pairs" if unit == "attrpol" else "samples with gold"
    for c, what in (("tp", "true positives"), ("fp", "false positives"), ("fn", "false negatives")):
        reg.add(Metric(f"tuple_f1_s2_{unit}_{c}", f"{label} S2 {c.upper()}", f"final-stage {unit} {what} summed over {scope}",
                       f"Σ {c}", sums[c], kind="int", averaging="count", section="units",
                       blank_when="gold unavailable"))
    reg.add(Metric(f"tuple_f1_s2_{unit}_micro", f"{label}-F1 S2 (micro)",
                   f"final-stage {unit} F1 of the summed counts", "F1(Σ tp, Σ fp, Σ fn)",
                   f1_of_sums(sums["tp"], sums["fp"], sums["fn"]), averaging="micro", section="units",
                   blank_when="Σ tp + Σ fp + Σ fn = 0", higher_is_better=True))


def _declare_appendix(reg: Registry) -> None:
    explicit = pl.col("n_gold_explicit") > 0

    def on_explicit(column: str) -> pl.Expr:
        return pl.col(column).filter(explicit).mean()

    rows = [
        ("tuple_f1_s2_explicit_only", "Ref-F1 S2 (explicit gold)", "mean refpol F1 of S2 against the explicit gold tuples",
         "mean over samples with G_exp of F1_refpol(S2, G_exp)", on_explicit("refpol_explicit_s2_f1")),
        ("tuple_f1_s2_otepol_explicit_only", "Surface-F1 S2 (explicit)", "mean otepol F1 of explicit S2 against explicit gold",
         "mean over samples with G_exp of F1_otepol(S2_exp, G_exp)", on_explicit("otepol_explicit_s2_f1")),
        ("tuple_f1_explicit", "Surface-F1 (explicit)", "appendix SurfaceUnit F1: mean otepol F1 of (G_exp, S2_exp)",
         "mean over samples with G_exp of F1_otepol(S2_exp, G_exp)", on_explicit("otepol_explicit_s2_f1")),
        ("precision_explicit", "Surface-P (explicit)", "appendix SurfaceUnit precision of (G_exp, S2_exp)",
         "mean over samples with G_exp of P_otepol(S2_exp, G_exp)", on_explicit("otepol_explicit_s2_precision")),
        ("recall_explicit", "Surface-R (explicit)", "appendix SurfaceUnit recall of (G_exp, S2_exp)",
         "mean over samples with G_exp of R_otepol(S2_exp, G_exp)", on_explicit("otepol_explicit_s2_recall")),
    ]
    for name, label, meaning, formula, expr in rows:
        reg.add(Metric(name, label, meaning, formula, expr, section="appendix",
                       blank_when="no sample with explicit gold", higher_is_better=True))
    eligible = HAS_GOLD & pl.col("implicit_eligible")
    reg.add(Metric("tuple_f1_s2_implicit_only", "Implicit polarity F1",
                   "mean set F1 between implicit gold polarities and all final polarities (pos/neg/neu)",
                   "mean over eligible samples of F1({pol(g) : g implicit}, {pol(s) : s ∈ S2})",
                   pl.col("implicit_polarity_f1").filter(eligible).mean(), section="appendix",
                   blank_when="no sample with implicit gold of a basic polarity", higher_is_better=True))
    reg.add(Metric("implicit_gold_sample_n", "Implicit-gold samples",
                   "samples whose gold has an implicit tuple with polarity positive/negative/neutral",
                   "Σ [eligible]", count(eligible), kind="int", averaging="count", section="appendix",
                   requires_gold=False))


def _declare_sources(reg: Registry) -> None:
    for source in ("final_tuples", "final_aspects", "inputs_aspect_sentiments"):
        reg.add(Metric(f"N_pred_{source}", f"Final from {source}",
                       f"rows (all, gold or not) whose final set came from {source}",
                       f"Σ [final_source = {source}]", count(pl.col("final_source") == source),
                       kind="int", averaging="count", requires_gold=False))
    reg.add(Metric("N_agg_fallback_used", "Final from a fallback", "rows whose final set came from a fallback source",
                   "N_pred_final_aspects + N_pred_inputs_aspect_sentiments",
                   count(pl.col("final_source") != "final_tuples"), kind="int", averaging="count",
                   requires_gold=False))
    reg.add(Metric("N_pred_used", "Final tuples", "final EvalTuples over all rows", "Σ |S2|",
                   pl.col("n_s2").sum(), kind="int", averaging="count", requires_gold=False))


def _declare_refs(reg: Registry) -> None:
    stages = (("s1", "", "stage-1"), ("s2", "_s2", "final"))
    for stage, suffix, what in stages:
        filled, size = on_gold(f"{stage}_ref_filled").sum(), on_gold(f"n_{stage}").sum()
        reg.add(Metric(f"ref_fill_rate{suffix}", f"Ref fill {stage.upper()}", f"share of {what} tuples with a non-empty ref",
                       f"Σ filled / Σ |{stage.upper()}|", ratio(filled, size), averaging="pooled",
                       blank_when="no such tuple", higher_is_better=True))
    for stage, suffix, what in stages:
        filled, valid = on_gold(f"{stage}_ref_filled").sum(), on_gold(f"{stage}_ref_valid").sum()
        reg.add(Metric(f"ref_valid_rate{suffix}", f"Ref valid {stage.upper()}", f"share of non-empty {what} refs in the taxonomy",
                       "Σ valid / Σ filled", ratio(valid, filled), averaging="pooled",
                       blank_when="no non-empty ref", higher_is_better=True))
    for stage, suffix, what in stages:
        tp, fn = on_gold(f"refpol_{stage}_tp").sum(), on_gold(f"refpol_{stage}_fn").sum()
        reg.add(Metric(f"ref_coverage_rate{suffix}", f"Ref coverage {stage.upper()}",
                       f"share of gold refpol pairs found at {what} stage",
                       f"Σ |refpol(G) ∩ refpol({stage.upper()})| / Σ |refpol(G)|", ratio(tp, tp + fn),
                       averaging="pooled", blank_when="no gold refpol pair", higher_is_better=True))


def _declare_invalid(reg: Registry) -> None:
    s1_size = on_gold("n_s1").sum()
    kinds = ("ref", "language", "target")
    for kind in kinds:
        reg.add(Metric(f"invalid_{kind}_count_total", f"Invalid {kind} total",
                       f"Σ meta.invalid_{kind}_count over samples with gold", f"Σ invalid_{kind}_count",
                       on_gold(f"invalid_{kind}_count").sum(), kind="int", averaging="count",
                       requires_gold=kind != "target", blank_when="gold unavailable" if kind != "target" else "",
                       higher_is_better=False))
    for kind in kinds:
        reg.add(Metric(f"invalid_{kind}_rate", f"Invalid {kind} rate",
                       f"invalid_{kind}_count_total per stage-1 tuple", f"invalid_{kind}_count_total / Σ |S1|",
                       ratio(on_gold(f"invalid_{kind}_count").sum(), s1_size), averaging="pooled",
                       blank_when="Σ |S1| = 0", higher_is_better=False))
    reg.add(Metric("ote_null_rate", "Empty-term rate S2", "share of final tuples with an empty term",
                   "Σ [term = ''] / Σ |S2|", ratio(on_gold("s2_term_empty").sum(), on_gold("n_s2").sum()),
                   averaging="pooled", section="appendix", blank_when="no final tuple"))


REFERENCE_COLUMNS: tuple[str, ...] = tuple(
    line.strip() for line in files("aggregator.metrics").joinpath("reference_columns.txt").read_text().splitlines() if line.strip()
)
"""The research tool's 230 columns in its CSV order."""


def declare_core(reg: Registry) -> None:
    """The METRICS.md columns."""
    _declare_counts(reg)
    for unit in ("refpol", "otepol", "attrpol"):
        _declare_unit(reg, unit)
    for unit in ("refpol", "otepol", "attrpol"):
        _declare_micro(reg, unit)
    _declare_appendix(reg)
    _declare_sources(reg)
    _declare_refs(reg)
    _declare_invalid(reg)


@cache
def build_registry(names: tuple[str, ...] | None = None) -> Registry:
    """The structural metrics of the core and the families ``names`` (None: all), in CSV column order."""
    reg = Registry()
    declare_core(reg)
    for fam in resolve(names):
        reg.family = fam.name
        fam.declare(reg)
    reg.family = "core"
    reg.reorder(REFERENCE_COLUMNS)
    return reg


def __getattr__(name: str) -> Registry:
    """``STRUCTURAL``: every metric of the core and of every family, in CSV column order, built on
    first use (a run of some families only never builds it)."""
    if name == "STRUCTURAL":
        return build_registry()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
