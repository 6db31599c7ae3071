"""EvalTuple and the two tuple-item readers of the scorecard contract.

Reader A serves gold, every final source and the stage-1 trace fallback; reader B
serves ``stage1_tuples``. They differ in the ``aspect_ref`` fallback, the
``is_implicit`` flag, the gold ref-as-term rule and which items are kept; the
published numbers depend on both exactly.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import NamedTuple

import msgspec

from scorecards.errors import INVALID_UTF8, NESTING_TOO_DEEP
from scorecards.normalize import Polarity, UnknownPolarity, norm_polarity, norm_ref, norm_term
from scorecards.schema import ITEM_DECODER, TermObject, TupleItem

_BLANKS = b" \t\r\n"


class EvalTuple(NamedTuple):
    """A normalized (aspect_ref, aspect_term, polarity) triple; ``""`` means absent."""

    aspect_ref: str
    aspect_term: str
    polarity: Polarity


TupleSet = frozenset[EvalTuple]


class BadTuple(ValueError):
    """A tuple item that breaks the contract; the message names its JSON path."""


class ReadTuples(NamedTuple):
    """A normalized tuple set and how many of its items had their polarity defaulted."""

    tuples: TupleSet
    polarity_defaulted: int


EMPTY = ReadTuples(frozenset(), 0)


def _raw_term(item: TupleItem) -> str | None:
    """The item's aspect term text, with the legacy ``opinion_term`` object standing in."""
    term = item.aspect_term
    if isinstance(term, TermObject):
        term = term.term
    if term is None:
        opinion = item.opinion_term
        if isinstance(opinion, TermObject):
            term = opinion.term
    return term


def _polarity(item: TupleItem, path: str, index: int, lenient: bool) -> tuple[Polarity, bool]:
    """``polarity``, else ``label``, normalized; an unknown value is a :class:`BadTuple`
    (``lenient``: ``neutral``, as the research tool's normalizer read it)."""
    try:
        return norm_polarity(item.polarity or item.label)
    except UnknownPolarity as exc:
        if lenient:
            return "neutral", False
        raise BadTuple(f"{exc} at `{path}[{index}]`") from None


def decode_items(raws: Sequence[msgspec.Raw], path: str, *, skip_empty: bool) -> Iterator[tuple[int, TupleItem]]:
    """Decode raw tuple items with their index; ``skip_empty`` drops empty objects ``{}``.

    The research tool skips an empty object in every list but ``gold_tuples``; an object
    with any key at all (even unknown ones) is an item. A non-object item, or a field of
    the wrong type, is a :class:`BadTuple` naming its path.
    """
    for index, raw in enumerate(raws):
        if skip_empty and len(raw) < 16 and bytes(raw).translate(None, _BLANKS) == b"{}":
            continue
        try:
            yield index, ITEM_DECODER.decode(raw)
        except msgspec.ValidationError as exc:
            text, where = str(exc), f"{path}[{index}]"
            located = text.replace("`$", f"`$.{where}") if " - at `$" in text else f"{text} - at `$.{where}`"
            raise BadTuple(f"wrong type: {located}") from None
        except RecursionError:
            raise BadTuple(f"{NESTING_TOO_DEEP} (in `{path}[{index}]`)") from None
        except UnicodeDecodeError:
            raise BadTuple(INVALID_UTF8) from None


def read_a(
    raws: Sequence[msgspec.Raw],
    path: str,
    *,
    gold: bool = False,
    require_term: bool = False,
    skip_empty: bool = True,
    lenient: bool = False,
) -> ReadTuples:
    """Reader A: every item is kept (unless ``require_term`` and its term is blank after a strip).

    aspect_ref is ``aspect_ref``, else ``term``. ``is_implicit: true`` empties the term
    (not for gold). For gold, a missing term becomes the normalized ref text. ``lenient``: an
    unknown polarity reads as ``neutral`` instead of being bad input.
    """
    out: set[EvalTuple] = set()
    defaulted = 0
    for index, item in decode_items(raws, path, skip_empty=skip_empty):
        ref_text = item.aspect_ref or item.term or ""
        raw_term = _raw_term(item)
        if not gold and item.is_implicit is True:
            term = ""
        elif raw_term is None:
            term = norm_term(ref_text) if gold else ""
        else:
            term = norm_term(raw_term) if raw_term else ""
        if require_term and not term.strip():
            continue
        polarity, was_defaulted = _polarity(item, path, index, lenient)
        defaulted += was_defaulted
        out.add(EvalTuple(norm_ref(ref_text), term, polarity))
    return ReadTuples(frozenset(out), defaulted)


def read_b(raws: Sequence[msgspec.Raw], path: str, *, lenient: bool = False) -> ReadTuples:
    """Reader B (``stage1_tuples``): keeps items whose normalized ref or term is non-empty.

    aspect_ref is ``aspect_ref`` only; ``is_implicit`` is ignored. ``lenient`` as for :func:`read_a`.
    """
    out: set[EvalTuple] = set()
    defaulted = 0
    for index, item in decode_items(raws, path, skip_empty=True):
        ref = norm_ref(item.aspect_ref or "")
        raw_term = _raw_term(item)
        term = norm_term(raw_term) if raw_term else ""
        if not ref and not term:
            continue
        polarity, was_defaulted = _polarity(item, path, index, lenient)
        defaulted += was_defaulted
        out.add(EvalTuple(ref, term, polarity))
    return ReadTuples(frozenset(out), defaulted)
