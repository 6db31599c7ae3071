"""Gold-based extras (DIAGNOSTICS.md family 3): outcome checks that need gold.

Per sample:

- ``severe_polarity_error_L3`` (L3): for each gold tuple with a non-empty term or ref, its
  polarity is noted under its term (possibly ``""``); L3 counts the S2 tuples whose term has a
  note and whose polarity is not among that term's noted polarities (quirk Q1: the
  deterministic rule, where the research tool depended on the string-hash seed);
- ``analysis_conflict_flags``: OUT.analysis_flags.conflict_flags is a non-empty list (OUT =
  ``runtime.parsed_output`` when it is an object, else the row); null when that field is not
  a list (absent);
- ``after_rep_otepol_f1``: otepol F1 against G of the *representative set* R: one tuple per
  normalized term of the final items, with an empty ref and the polarity of the item ranked
  first (``grounding`` ``explicit`` first, then the higher numeric ``confidence``, then no
  ``drop_reason``; ties in list order).

``tuple_f1_s2_after_rep`` scores R under refpol, where empty refs never count: it is 0.0
whenever gold is available (quirk Q2), kept for compatibility only.
``tuple_f1_s2_after_rep_otepol`` is what it was meant to measure.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

import msgspec
import polars as pl

from aggregator.metrics.family import Family, RowInput
from aggregator.metrics.prf import prf
from aggregator.metrics.reads import Obj, ok, section
from aggregator.metrics.registry import Metric, Registry
from aggregator.units.projection import match_surface, surface_units
from aggregator.units.sample_counts import Column
from scorecards.tuples import EvalTuple, TupleSet, read_a


class _AnalysisFlags(msgspec.Struct, gc=False):
    conflict_flags: Any = None


class _PO(msgspec.Struct, gc=False):
    analysis_flags: Obj[_AnalysisFlags] = None


class _Runtime(msgspec.Struct, gc=False):
    parsed_output: Obj[_PO] = None


class _Fields(msgspec.Struct, gc=False):
    analysis_flags: Obj[_AnalysisFlags] = None
    runtime: _Runtime | None = None


class _Rank(msgspec.Struct, gc=False):
    grounding: Any = None
    confidence: Any = None
    drop_reason: Any = None


_RankSection: TypeAlias = Obj[_Rank]
_RANK_DECODER = msgspec.json.Decoder(_RankSection)

COLUMNS = (
    Column("severe_polarity_error_L3", "int", "L3: final tuples whose term gold names only with other polarities"),
    Column("analysis_conflict_flags", "bool",
           "OUT.analysis_flags.conflict_flags is a non-empty list (null: not a list in this row)", nullable=True),
    Column("after_rep_otepol_f1", "float", "otepol F1 against gold of the representative set (one tuple per final term)"),
)


def severe_l3(gold: TupleSet, final: TupleSet) -> int:
    """L3 of family 3: final tuples whose term gold notes, with a polarity gold never gives that term."""
    notes: dict[str, set[str]] = {}
    for ref, term, polarity in gold:
        if term or ref:
            notes.setdefault(term, set()).add(polarity)
    if not notes:
        return 0
    return sum(1 for _, term, polarity in final if term in notes and polarity not in notes[term])


def _conflict_flags(inp: RowInput) -> bool | None:
    runtime = inp.row.runtime
    po = section(runtime.parsed_output) if runtime is not None else None
    flags = section(po.analysis_flags if po is not None else inp.row.analysis_flags)
    value = flags.conflict_flags if flags is not None else None
    return bool(value) if isinstance(value, list) else None


def _rank(raw: msgspec.Raw) -> tuple[bool, float, bool]:
    """Sort key of a final item, higher first: grounding explicit, confidence, no drop_reason."""
    item = section(_RANK_DECODER.decode(raw))
    if item is None:
        return (False, 0.0, True)
    confidence = item.confidence
    number = float(confidence) if isinstance(confidence, (int, float)) and not isinstance(confidence, bool) else 0.0
    return (ok(item.grounding).lower() == "explicit", number, not ok(item.drop_reason))


def _final_items(inp: RowInput) -> tuple[Sequence[msgspec.Raw], bool]:
    """The raw items the final set came from, and whether items without a term are left out."""
    source = inp.record.final_source
    if source == "inputs_aspect_sentiments":
        inputs = inp.row.inputs
        return (inputs.aspect_sentiments or []) if inputs is not None else [], True
    po = section(inp.row.runtime.parsed_output)
    final_result = po.final_result
    return (final_result.final_tuples if source == "final_tuples" else final_result.final_aspects) or [], False


def representative_set(inp: RowInput) -> TupleSet:
    """R: one ``("", term, polarity)`` per term of the final items, the polarity of the best-ranked item."""
    best: dict[str, tuple[tuple[bool, float, bool], EvalTuple]] = {}
    raws, require_term = _final_items(inp)
    for raw in raws:
        for t in read_a([raw], "final item", require_term=require_term).tuples:
            key = _rank(raw)
            if t.aspect_term not in best or key > best[t.aspect_term][0]:
                best[t.aspect_term] = (key, EvalTuple("", t.aspect_term, t.polarity))
    return frozenset(t for _, t in best.values())


def after_rep_otepol_f1(inp: RowInput) -> float:
    """otepol F1 of R against G (0 without gold).

    When no final term carries two polarities, R has the surface pairs of S2 itself, so the
    core's otepol counts of S2 give it; R is built only for the other rows.
    """
    gold, final = inp.record.gold, inp.record.final
    if not gold:
        return 0.0
    seen: dict[str, str] = {}
    if all(seen.setdefault(term, polarity) == polarity for _, term, polarity in final):
        values = inp.values
        return prf(values["otepol_s2_tp"], values["otepol_s2_fp"], values["otepol_s2_fn"])[2]
    return prf(*match_surface(surface_units(representative_set(inp)), surface_units(gold)))[2]


def row(inp: RowInput) -> tuple[object, ...]:
    return severe_l3(inp.record.gold, inp.record.final), _conflict_flags(inp), after_rep_otepol_f1(inp)


def declare(reg: Registry) -> None:
    from aggregator.metrics.exprs import HAS_GOLD, count, on_gold, ratio

    l3 = on_gold("severe_polarity_error_L3").sum()
    n_gold = count(HAS_GOLD)
    reg.add(Metric("severe_polarity_error_L3_count", "Severe polarity errors (L3)",
                   "final tuples, over gold rows, whose term the gold names only with other polarities",
                   "Σ over gold rows of L3", l3, kind="int", averaging="count", requires_gold=False,
                   higher_is_better=False))
    reg.add(Metric("severe_polarity_error_L3_rate", "Severe polarity errors (L3) per gold row",
                   "L3 errors per gold row — a count per sample, so it can exceed 1 (quirk Q15)",
                   "severe_polarity_error_L3_count / N_gold", ratio(l3.cast(pl.Float64), n_gold),
                   averaging="pooled", blank_when="N_gold = 0", higher_is_better=False))
    reg.add(Metric("tuple_f1_s2_after_rep", "Ref-F1 S2 after representative selection",
                   "mean refpol F1 of the representative set; its refs are empty, so it is 0.0 by construction",
                   "mean over gold rows of F1_refpol(R, G) = 0", pl.lit(0.0), averaging="macro",
                   blank_when="N_gold = 0", higher_is_better=True,
                   compat="always 0.0 when gold is available: the representative set has empty refs, "
                          "which refpol never counts (quirk Q2); use tuple_f1_s2_after_rep_otepol"))
    reg.add(Metric("tuple_f1_s2_after_rep_otepol", "Surface-F1 S2 after representative selection",
                   "mean otepol F1 of the representative set (one tuple per final term, the best-ranked "
                   "item's polarity) against gold",
                   "mean over gold rows of F1_otepol(R, G)", on_gold("after_rep_otepol_f1").mean(),
                   averaging="macro", blank_when="N_gold = 0", higher_is_better=True,
                   fixes="tuple_f1_s2_after_rep"))
    flagged = pl.col("analysis_conflict_flags")
    reg.add(Metric("conflict_count", "Rows with conflict flags",
                   "gold rows whose output lists conflict flags (analysis_flags.conflict_flags non-empty)",
                   "Σ over gold rows of [OUT.analysis_flags.conflict_flags non-empty]",
                   count(HAS_GOLD & flagged), kind="int", averaging="count", requires_gold=False,
                   higher_is_better=False, present=flagged.is_not_null().any()))


FAMILY = Family(
    name="gold_extras",
    title="Gold-based extras",
    source="DIAGNOSTICS.md family 3",
    columns=COLUMNS,
    row=row,
    declare=declare,
    fields=_Fields,
)
