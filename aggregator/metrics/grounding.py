"""Hallucination and RQ1 grounding (DIAGNOSTICS.md family 7): are the final aspects in the text,
and is their polarity grounded in it?

Per sample:

- ``rq1``: the grounding bucket RQ1 of the first final tuple FT (``implicit``, ``explicit``,
  ``explicit_failure`` or ``unsupported``; exactly one per row);
- ``aspect_hallucination`` (HAL): a final aspect term that is not a substring of the input text;
- ``unsupported_polarity_legacy`` (UNSUP): the legacy unsupported-polarity flag;
- ``alignment_failure_drops`` (AF): ``inputs.ate_debug.filtered`` items dropped for
  ``alignment_failure`` (read by the validator family's S1R and ``risk_flagged``);
- the drop reasons carried by ``final_tuples`` items, and whether the row has judgements.

Every column is a share of all rows (N_rows), never blank.

Two readers of ``is_implicit`` meet here on purpose, as in the research tool: FT's first
step empties the term for any truthy value, the reader-A steps (and the tuple sets of the
core) only for the JSON literal ``true``; HAL ignores the flag.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import msgspec
import polars as pl

from aggregator.metrics.family import Family, RowInput
from aggregator.metrics.reads import JSON_BLANKS, Items, Obj, first_truthy, objects, ok, raw_truthy, section, truthy
from aggregator.metrics.registry import Metric, Registry
from aggregator.units.sample_counts import Column
from scorecards.normalize import norm_term

if TYPE_CHECKING:
    from scorecards.tuples import TupleSet

RQ1_BUCKETS = ("implicit", "explicit", "explicit_failure", "unsupported")
UNKNOWN_ISSUE = "unknown/insufficient"
ALIGNMENT_FAILURE = "alignment_failure"
DROP_REASONS = (ALIGNMENT_FAILURE, "filter_rejection", "semantic_hallucination")


class _Item(msgspec.Struct, gc=False):
    """A final tuple / aspect item as the grounding rules read it (every key may hold any JSON value)."""

    aspect_ref: Any = None
    term: Any = None
    aspect_term: Any = None
    opinion_term: Any = None
    is_implicit: Any = None
    drop_reason: Any = None


class _Judgement(msgspec.Struct, gc=False):
    aspect_term: Any = None
    opinion_grounded: Any = None
    issues: Any = None


class _Atsa(msgspec.Struct, gc=False):
    sentiment_judgements: Items[_Judgement] = None


class _TextMeta(msgspec.Struct, gc=False):
    input_text: Any = None


class _FR(msgspec.Struct, gc=False):
    label: Any = None


class _PO(msgspec.Struct, gc=False):
    final_result: _FR | None = None
    meta: msgspec.Raw = msgspec.Raw()


class _Runtime(msgspec.Struct, gc=False):
    parsed_output: Obj[_PO] = None


class _Filtered(msgspec.Struct, gc=False):
    action: Any = None
    drop_reason: Any = None


class _AteDebug(msgspec.Struct, gc=False):
    filtered: Items[_Filtered] = None


class _Inputs(msgspec.Struct, gc=False):
    ate_debug: Obj[_AteDebug] = None
    implicit_grounding_candidate: Any = None


class _Meta(msgspec.Struct, gc=False):
    input_text: Any = None


class _Moderator(msgspec.Struct, gc=False):
    final_label: Any = None


class _Fields(msgspec.Struct, gc=False):
    """The row fields family 7 reads (``atsa``, ``atsa_score`` and ``PO.meta`` stay raw: whether
    they are empty counts keys no rule reads, and only the one chosen is decoded)."""

    atsa: msgspec.Raw = msgspec.Raw()
    atsa_score: msgspec.Raw = msgspec.Raw()
    moderator: Obj[_Moderator] = None
    final_result: Obj[_FR] = None
    meta: _Meta | None = None
    inputs: _Inputs | None = None
    runtime: _Runtime | None = None


_ITEM = msgspec.json.Decoder(Obj[_Item])
_ATSA = msgspec.json.Decoder(Obj[_Atsa])
_TEXT_META = msgspec.json.Decoder(Obj[_TextMeta])

COLUMNS = (
    Column("rq1", "label", "RQ1 grounding bucket of the first final tuple", values=RQ1_BUCKETS),
    Column("aspect_hallucination", "bool", "HAL: a final aspect term (raw text) is not a substring of the input text"),
    Column("final_drop_alignment_failure", "bool", "some final_tuples item has drop_reason alignment_failure"),
    Column("alignment_failure_or_hallucination", "bool", "HAL, or some final_tuples item has drop_reason alignment_failure"),
    Column("final_drop_filter_rejection", "bool", "some final_tuples item has drop_reason filter_rejection"),
    Column("final_drop_semantic_hallucination", "bool", "some final_tuples item has drop_reason semantic_hallucination"),
    Column("unsupported_polarity_legacy", "bool", "UNSUP: every sentiment judgement fails, or one on a final term fails"),
    Column("alignment_failure_drops", "int", "AF: inputs.ate_debug.filtered items dropped for alignment_failure"),
    Column("sentiment_judgements_present", "bool", "the row has sentiment judgements (atsa, else atsa_score)"),
)


def _decoded(raws: Any) -> list[_Item]:
    """The non-empty object items of a raw tuple list, in order (``{}`` and non-objects skipped)."""
    out = []
    for raw in raws or ():
        if len(raw) < 16 and bytes(raw).translate(None, JSON_BLANKS) == b"{}":
            continue
        item = _ITEM.decode(raw)
        if isinstance(item, _Item):
            out.append(item)
    return out


def _text(value: Any) -> str:
    """A string stripped; any other value ``""``."""
    return value.strip() if isinstance(value, str) else ""


def _object_term(value: Any) -> Any:
    return value.get("term") if isinstance(value, dict) else None


def raw_term(item: _Item) -> str:
    """SCORECARDS.md aspect-term text (a string or a ``{term}`` object's term, else an
    ``opinion_term`` object's term), stripped, not normalized; ``""`` when there is none."""
    term = item.aspect_term
    if isinstance(term, dict):
        term = term.get("term")
    if term is None:
        term = _object_term(item.opinion_term)
    return _text(term)


def _reader_a_term(item: _Item) -> str:
    """The normalized term reader A gives: empty for ``is_implicit: true`` (the literal only)."""
    if item.is_implicit is True:
        return ""
    return norm_term(raw_term(item))


def first_final_term(tuples: list[_Item], aspects: list[_Item], sentiments: Any) -> str | None:
    """The normalized term of FT, the first final tuple (None: no FT).

    1. the first usable ``final_tuples`` item: its stripped raw ``aspect_ref`` or term is
       non-empty, or ``is_implicit`` is truthy (which empties the term);
    2. else the first non-empty object of ``final_aspects``, read by reader A;
    3. else the first of ``inputs.aspect_sentiments``, read by reader A.
    """
    for item in tuples:
        implicit = truthy(item.is_implicit)
        term = "" if implicit else raw_term(item)
        if implicit or term or ok(item.aspect_ref):
            return norm_term(term)
    found = aspects or _decoded(sentiments)
    return _reader_a_term(found[0]) if found else None


def judgements(row: Any) -> list[_Judgement]:
    """J: ``atsa.sentiment_judgements`` when ``atsa`` is truthy, else ``atsa_score``'s (objects only)."""
    chosen = row.atsa if raw_truthy(row.atsa) else row.atsa_score
    if not chosen:
        return []
    atsa = _ATSA.decode(chosen)
    return objects(atsa.sentiment_judgements) if isinstance(atsa, _Atsa) else []


def _issues(judgement: _Judgement) -> list[Any]:
    """The ``issues`` list (a non-list truthy value is one issue)."""
    issues = judgement.issues
    if isinstance(issues, list):
        return issues
    return [issues] if truthy(issues) else []


def _only_unknown(issues: list[Any]) -> bool:
    return all(issue == UNKNOWN_ISSUE for issue in issues)


def _judgement_term(judgement: _Judgement) -> str:
    return norm_term(judgement.aspect_term) if isinstance(judgement.aspect_term, str) else ""


def fails(judgement: _Judgement) -> bool:
    """UNSUP: ``opinion_grounded is false``, or issues non-empty and not all ``unknown/insufficient``."""
    issues = _issues(judgement)
    return judgement.opinion_grounded is False or (bool(issues) and not _only_unknown(issues))


def unsupported_legacy(found: list[_Judgement], final: TupleSet) -> bool:
    """UNSUP: J non-empty and every judgement fails, or one whose term is a non-empty S2 term fails."""
    if not found:
        return False
    failing = [fails(j) for j in found]
    if all(failing):
        return True
    final_terms = {t.aspect_term for t in final if t.aspect_term}
    return any(bad and _judgement_term(j) in final_terms for j, bad in zip(found, failing))


def _fallback_eligible(inputs: Any, filtered: list[_Filtered]) -> bool:
    """RQ1 step 5: ``implicit_grounding_candidate is true``, or every filtered item is an alignment-failure drop (≥ 1)."""
    if inputs is not None and inputs.implicit_grounding_candidate is True:
        return True
    return bool(filtered) and all(
        ok(f.action) == "drop" and ok(f.drop_reason) == ALIGNMENT_FAILURE for f in filtered
    )


def _not_grounded(issues: list[Any]) -> bool:
    return any("opinion_not_grounded" in text or "mismatch" in text.lower() for text in map(str, issues))


def grounding_bucket(term: str | None, found: list[_Judgement], label: Callable[[], str],
                     eligible: Callable[[], bool]) -> str:
    """RQ1 of a row from FT's term and J (steps 1–6); the final label and the fallback
    eligibility are asked for only on the steps that read them."""
    if term is None:
        return "implicit" if label() else "unsupported"
    if term == "":
        return "implicit"
    chosen = next((j for j in found if _judgement_term(j) == term), None)
    if chosen is None:
        return "unsupported"
    issues = _issues(chosen)
    if chosen.opinion_grounded is True and _only_unknown(issues):
        return "explicit"
    if chosen.opinion_grounded is False or _not_grounded(issues):
        return "implicit" if eligible() else "explicit_failure"
    return "unsupported"


def final_label(row: Any, fr: Any) -> str:
    """ok(``moderator.final_label``, else L.label): L = ``PO.final_result`` when truthy, else the top-level ``final_result``."""
    labelled = fr if fr is not None and truthy(fr) else section(row.final_result)
    moderator = section(row.moderator)
    return ok(first_truthy(moderator.final_label if moderator is not None else None,
                           labelled.label if labelled is not None else None))


def _input_text(parsed: Any, row: Any) -> str:
    """HAL's text: ``PO.meta`` when truthy, else the top-level ``meta``; its ``input_text`` stripped."""
    if parsed is not None and raw_truthy(parsed.meta):
        chosen = section(_TEXT_META.decode(parsed.meta))
    else:
        chosen = row.meta
    return _text(chosen.input_text) if chosen is not None else ""


def _aspect_check_term(item: _Item) -> str:
    """HAL's term of a ``final_aspects`` item (quirk Q4): a non-empty ``aspect_term`` object gives
    none, an empty one the ``opinion_term`` object's term, anything else the legacy ``term``."""
    term = item.aspect_term
    if isinstance(term, dict):
        return "" if term else _text(_object_term(item.opinion_term))
    return _text(item.term)


def hallucinated(tuples: list[_Item], aspects: list[_Item], text: Callable[[], str]) -> bool:
    """HAL: a final tuple's raw term or a final aspect's check term is non-empty and not in the input ``text``."""
    terms = [term for term in map(raw_term, tuples) if term] + [t for t in map(_aspect_check_term, aspects) if t]
    if not terms:
        return False
    searched = text()
    return any(term not in searched for term in terms)


def row(inp: RowInput) -> tuple[object, ...]:
    data = inp.row
    runtime = data.runtime
    parsed = section(runtime.parsed_output) if runtime is not None else None
    fr = parsed.final_result if parsed is not None else None
    tuples = _decoded(fr.final_tuples) if fr is not None else []
    aspects = _decoded(fr.final_aspects) if fr is not None else []
    inputs = data.inputs
    debug = section(inputs.ate_debug) if inputs is not None else None
    filtered = objects(debug.filtered) if debug is not None else []

    found = judgements(data)
    term = first_final_term(tuples, aspects, inputs.aspect_sentiments if inputs is not None else None)
    bucket = grounding_bucket(term, found, lambda: final_label(data, fr), lambda: _fallback_eligible(inputs, filtered))

    hal = hallucinated(tuples, aspects, lambda: _input_text(parsed, data))
    reasons = {ok(item.drop_reason) for item in tuples}
    drops = sum(ok(f.action) == "drop" and ok(f.drop_reason) == ALIGNMENT_FAILURE for f in filtered)
    dropped = [reason in reasons for reason in DROP_REASONS]
    return (bucket, hal, dropped[0], hal or dropped[0], dropped[1], dropped[2],
            unsupported_legacy(found, inp.record.final), drops, bool(found))


def _share(flag: pl.Expr) -> pl.Expr:
    return flag.cast(pl.Float64).mean()


def declare(reg: Registry) -> None:
    def rate(name: str, label: str, meaning: str, formula: str, flag: pl.Expr,
             better: bool | None = False, present: pl.Expr | None = None) -> None:
        reg.add(Metric(name, label, meaning, formula, _share(flag), averaging="pooled", section="diagnostics",
                       requires_gold=False, higher_is_better=better, present=present))

    judged = pl.col("sentiment_judgements_present").any()
    rate("aspect_hallucination_rate", "Aspect hallucination",
         "share of rows with a final aspect term that does not occur in the input text",
         "Σ [HAL] / N_rows", pl.col("aspect_hallucination"))
    rate("alignment_failure_rate", "Alignment failure",
         "share of rows with a hallucinated final aspect or a final tuple dropped for alignment failure",
         "Σ [HAL ∨ ∃ final tuple: drop_reason = alignment_failure] / N_rows",
         pl.col("alignment_failure_or_hallucination"))
    rate("filter_rejection_rate", "Filter rejection",
         "share of rows with a final tuple whose drop_reason is filter_rejection",
         "Σ [∃ final tuple: drop_reason = filter_rejection] / N_rows", pl.col("final_drop_filter_rejection"), None)
    rate("semantic_hallucination_rate", "Semantic hallucination",
         "share of rows with a final tuple whose drop_reason is semantic_hallucination",
         "Σ [∃ final tuple: drop_reason = semantic_hallucination] / N_rows", pl.col("final_drop_semantic_hallucination"))
    rq1_meanings = {
        "implicit": ("implicit_grounding_rate", "Implicit grounding",
                     "share of rows whose first final tuple is implicit or falls back to implicit grounding", None),
        "explicit": ("explicit_grounding_rate", "Explicit grounding",
                     "share of rows whose first final tuple's polarity is grounded by its sentiment judgement", True),
        "explicit_failure": ("explicit_grounding_failure_rate", "Explicit grounding failure",
                             "share of rows whose first final tuple's judgement says the opinion is not grounded", False),
        "unsupported": ("unsupported_polarity_rate", "Unsupported polarity",
                        "share of rows whose first final tuple has no judgement or none that decides", False),
    }
    for bucket, (name, label, meaning, better) in rq1_meanings.items():
        rate(name, label, meaning, f"Σ [RQ1 = {bucket}] / N_rows", pl.col("rq1") == bucket, better,
             judged if bucket in ("explicit", "explicit_failure") else None)
    rate("legacy_unsupported_polarity_rate", "Unsupported polarity (legacy)",
         "share of rows whose sentiment judgements all fail, or one on a final term fails",
         "Σ [UNSUP] / N_rows", pl.col("unsupported_polarity_legacy"), present=judged)
    total = sum((_share(pl.col("rq1") == bucket) for bucket in RQ1_BUCKETS[1:]), _share(pl.col("rq1") == RQ1_BUCKETS[0]))
    reg.add(Metric("rq1_one_hot_sum", "RQ1 buckets sum",
                   "check: the four RQ1 rates added (1.0 up to rounding, as every row has one bucket)",
                   "implicit + explicit + explicit_failure + unsupported grounding rates", total,
                   averaging="pooled", section="diagnostics", requires_gold=False))


FAMILY = Family(
    name="grounding",
    title="Hallucination and RQ1 grounding",
    source="DIAGNOSTICS.md family 7",
    columns=COLUMNS,
    row=row,
    declare=declare,
    fields=_Fields,
)
