"""Per-row statistics of the three stage lists the research script's stage summary reads (LEGACY.md section 5).

For each stage's raw list of a row (``final``: FR.final_tuples; ``pre_review``:
FR.final_tuples_pre_review when truthy, else FR.stage1_tuples; ``post_review``:
FR.final_tuples_post_review; each only when it is a list) the items are its non-empty JSON
objects, counted as they are (no normalization, no deduplication). Per item:

- null term: the aspect-term text (a string, a ``{term}`` object's term, else an
  ``opinion_term`` object's term), stripped, **not** normalized, is empty;
- null ref: ``aspect_ref`` (no ``term`` fallback) missing, null or empty after a strip;
- invalid polarity: ``polarity``, else ``label``, stripped and lower-cased, is not
  positive / negative / neutral (so ``pos`` and ``mixed`` are invalid, quirk L11).

X(row) is the list read by SCORECARDS.md reader B (ref from ``aspect_ref`` only, items with an
empty ref and term dropped, normalized, deduplicated) with the research script's lenient
polarity normalizer: an unknown value reads as ``neutral`` (quirk L10). A truthy non-string
where text is expected crashed the script; here it reads as its Python text (present, matching
no word).
"""

from __future__ import annotations

from typing import Any, TypeAlias

import msgspec

from aggregator.metrics.conflict import has_conflict
from aggregator.metrics.reads import JSON_BLANKS, Obj
from aggregator.units.sample_counts import BASIC_POLARITIES
from scorecards.normalize import Polarity, UnknownPolarity, norm_polarity, norm_ref, norm_term
from scorecards.tuples import EvalTuple

STAGE_LISTS = ("final", "pre_review", "post_review")
STATS = ("items", "null_term", "null_ref", "invalid_polarity", "x_basic", "x_conflict")
"""Per stage list: items, items with a null term / null ref / invalid polarity, and whether X(row)
has a tuple with a basic polarity, and a ref with two polarities."""


class StageItem(msgspec.Struct, gc=False):
    """A stage-list item with every key the summary reads, each of any JSON type."""

    aspect_ref: Any = None
    aspect_term: Any = None
    opinion_term: Any = None
    polarity: Any = None
    label: Any = None


_StageItemSection: TypeAlias = Obj[StageItem]
_ITEM = msgspec.json.Decoder(_StageItemSection)


def _text(value: Any) -> str:
    """A falsy value ``""``; a string as is; any other value its Python text."""
    if not value:
        return ""
    return value if isinstance(value, str) else str(value)


def _object_term(value: Any) -> Any:
    return value.get("term") if isinstance(value, dict) else None


def term_text(item: StageItem) -> str:
    """The aspect-term text, stripped, not normalized (``""`` when there is none)."""
    term = item.aspect_term
    if isinstance(term, dict):
        term = term.get("term")
    elif term is not None and not isinstance(term, str):
        term = None
    if term is None:
        term = _object_term(item.opinion_term)
    return _text(term).strip()


def _polarity_text(item: StageItem) -> str:
    return _text(item.polarity or item.label).strip().lower()


def _lenient_polarity(text: str) -> Polarity:
    try:
        return norm_polarity(text)[0]
    except UnknownPolarity:
        return "neutral"


def items_of(raw_list: Any) -> list[StageItem]:
    """The non-empty objects of a raw list (raw items decoded; ``{}`` and non-objects skipped)."""
    if not isinstance(raw_list, list):
        return []
    found = []
    for raw in raw_list:
        if len(raw) < 16 and bytes(raw).translate(None, JSON_BLANKS) == b"{}":
            continue
        item = _ITEM.decode(raw)
        if isinstance(item, StageItem):
            found.append(item)
    return found


def stage_stats(raw_list: Any) -> tuple[int, int, int, int, bool, bool]:
    """The :data:`STATS` of one stage list of a row."""
    items = items_of(raw_list)
    null_term = null_ref = invalid = 0
    tuples: set[EvalTuple] = set()
    for item in items:
        term = term_text(item)
        ref = _text(item.aspect_ref).strip()
        polarity = _polarity_text(item)
        null_term += not term
        null_ref += not ref
        invalid += polarity not in BASIC_POLARITIES
        key_ref, key_term = norm_ref(ref), norm_term(term) if term else ""
        if key_ref or key_term:
            tuples.add(EvalTuple(key_ref, key_term, _lenient_polarity(polarity)))
    basic = any(t.polarity in BASIC_POLARITIES for t in tuples)
    return len(items), null_term, null_ref, invalid, basic, has_conflict(frozenset(tuples))


def stage_raw_lists(fr: Any) -> tuple[Any, Any, Any]:
    """The raw lists of :data:`STAGE_LISTS` of a ``final_result`` section (None: none)."""
    if fr is None:
        return None, None, None
    pre = fr.final_tuples_pre_review if fr.final_tuples_pre_review else fr.stage1_tuples
    return fr.final_tuples, pre, fr.final_tuples_post_review
