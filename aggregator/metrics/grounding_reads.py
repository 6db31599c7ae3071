"""What the grounding family (:mod:`aggregator.metrics.grounding`) reads of tuple items and
sentiment judgements, and the rules over them: FT's term, the judgements J, UNSUP, the RQ1 bucket
and HAL.

Two readers of ``is_implicit`` meet here on purpose, as in the research tool: FT's first step
empties the term for any truthy value, the reader-A steps only for the JSON literal ``true``; HAL
ignores the flag.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeAlias

import msgspec

from aggregator.metrics.reads import JSON_BLANKS, Items, Obj, first_truthy, objects, ok, raw_truthy, section, truthy
from scorecards.normalize import norm_term

if TYPE_CHECKING:
    from scorecards.tuples import TupleSet

UNKNOWN_ISSUE = "unknown/insufficient"


class Item(msgspec.Struct, gc=False):
    """A final tuple / aspect item as the grounding rules read it (every key may hold any JSON value)."""

    aspect_ref: Any = None
    term: Any = None
    aspect_term: Any = None
    opinion_term: Any = None
    is_implicit: Any = None
    drop_reason: Any = None


class Judgement(msgspec.Struct, gc=False):
    aspect_term: Any = None
    opinion_grounded: Any = None
    issues: Any = None


class _Atsa(msgspec.Struct, gc=False):
    sentiment_judgements: Items[Judgement] = None


class _TextMeta(msgspec.Struct, gc=False):
    input_text: Any = None


_ItemSection: TypeAlias = Obj[Item]
_AtsaSection: TypeAlias = Obj[_Atsa]
_TextMetaSection: TypeAlias = Obj[_TextMeta]
_ITEM = msgspec.json.Decoder(_ItemSection)
_ATSA = msgspec.json.Decoder(_AtsaSection)
_TEXT_META = msgspec.json.Decoder(_TextMetaSection)


def decoded_items(raws: Any) -> list[Item]:
    """The non-empty object items of a raw tuple list, in order (``{}`` and non-objects skipped)."""
    out = []
    for raw in raws or ():
        if len(raw) < 16 and bytes(raw).translate(None, JSON_BLANKS) == b"{}":
            continue
        item = _ITEM.decode(raw)
        if isinstance(item, Item):
            out.append(item)
    return out


def _text(value: Any) -> str:
    """A string stripped; any other value ``""``."""
    return value.strip() if isinstance(value, str) else ""


def _object_term(value: Any) -> Any:
    return value.get("term") if isinstance(value, dict) else None


def raw_term(item: Item) -> str:
    """SCORECARDS.md aspect-term text (a string or a ``{term}`` object's term, else an
    ``opinion_term`` object's term), stripped, not normalized; ``""`` when there is none."""
    term = item.aspect_term
    if isinstance(term, dict):
        term = term.get("term")
    if term is None:
        term = _object_term(item.opinion_term)
    return _text(term)


def _reader_a_term(item: Item) -> str:
    """The normalized term reader A gives: empty for ``is_implicit: true`` (the literal only)."""
    if item.is_implicit is True:
        return ""
    return norm_term(raw_term(item))


def first_final_term(tuples: list[Item], aspects: list[Item], sentiments: Any) -> str | None:
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
    found = aspects or decoded_items(sentiments)
    return _reader_a_term(found[0]) if found else None


def judgements(row: Any) -> list[Judgement]:
    """J: ``atsa.sentiment_judgements`` when ``atsa`` is truthy, else ``atsa_score``'s (objects only)."""
    chosen = row.atsa if raw_truthy(row.atsa) else row.atsa_score
    if not chosen:
        return []
    atsa = _ATSA.decode(chosen)
    return objects(atsa.sentiment_judgements) if isinstance(atsa, _Atsa) else []


def _issues(judgement: Judgement) -> list[Any]:
    """The ``issues`` list (a non-list truthy value is one issue)."""
    issues = judgement.issues
    if isinstance(issues, list):
        return issues
    return [issues] if truthy(issues) else []


def _only_unknown(issues: list[Any]) -> bool:
    return all(issue == UNKNOWN_ISSUE for issue in issues)


def _judgement_term(judgement: Judgement) -> str:
    return norm_term(judgement.aspect_term) if isinstance(judgement.aspect_term, str) else ""


def fails(judgement: Judgement) -> bool:
    """UNSUP: ``opinion_grounded is false``, or issues non-empty and not all ``unknown/insufficient``."""
    issues = _issues(judgement)
    return judgement.opinion_grounded is False or (bool(issues) and not _only_unknown(issues))


def unsupported_legacy(found: list[Judgement], final: TupleSet) -> bool:
    """UNSUP: J non-empty and every judgement fails, or one whose term is a non-empty S2 term fails."""
    if not found:
        return False
    failing = [fails(j) for j in found]
    if all(failing):
        return True
    final_terms = {t.aspect_term for t in final if t.aspect_term}
    return any(bad and _judgement_term(j) in final_terms for j, bad in zip(found, failing))


def _not_grounded(issues: list[Any]) -> bool:
    return any("opinion_not_grounded" in text or "mismatch" in text.lower() for text in map(str, issues))


def grounding_bucket(term: str | None, found: list[Judgement], label: Callable[[], str],
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


def input_text(parsed: Any, row: Any) -> str:
    """HAL's text: ``PO.meta`` when truthy, else the top-level ``meta``; its ``input_text`` stripped."""
    if parsed is not None and raw_truthy(parsed.meta):
        chosen = section(_TEXT_META.decode(parsed.meta))
    else:
        chosen = row.meta
    return _text(chosen.input_text) if chosen is not None else ""


def _aspect_check_term(item: Item) -> str:
    """HAL's term of a ``final_aspects`` item (quirk Q4): a non-empty ``aspect_term`` object gives
    none, an empty one the ``opinion_term`` object's term, anything else the legacy ``term``."""
    term = item.aspect_term
    if isinstance(term, dict):
        return "" if term else _text(_object_term(item.opinion_term))
    return _text(item.term)


def hallucinated(tuples: list[Item], aspects: list[Item], text: Callable[[], str]) -> bool:
    """HAL: a final tuple's raw term or a final aspect's check term is non-empty and not in the input ``text``."""
    terms = [term for term in map(raw_term, tuples) if term] + [t for t in map(_aspect_check_term, aspects) if t]
    if not terms:
        return False
    searched = text()
    return any(term not in searched for term in terms)
