"""NIKLuge 2022 (국립국어원 속성 기반 감성 분석) JSONL: ``{"id", "sentence_form", "annotation"}`` per line.

Gold items are ``[category, [term | null, start, end], polarity]`` (a null term with
offsets is an implicit aspect); prediction items ``[category, polarity]`` or the gold's
3-element form. Categories are compared after :func:`~scorecards.normalize.norm_ref`
(as the scorecards), polarities after strip and lower-case. Sentences pair by ``id``; when a
file has a line without one, both files pair by line, as the official scorer pairs them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

from aggregator.formats.lines import WORD_LABELS, bad, label, read_lines, shown
from aggregator.formats.model import IMPLICIT, AbsaTuple, CharSpan, Element, Sentence
from scorecards.normalize import norm_ref

ITEM_SHAPES = "[category, polarity] or [category, [term, start, end], polarity]"


class Item(NamedTuple):
    """An annotation as the official scorer indexes it: ``item[0]``, ``item[1]``, ``item[2]``."""

    category: str
    polarity: str
    second: Any
    size: int


def _aspect(value: Any) -> Element | None:
    """``[term, start, end]``: character offsets, or implicit when the term is null; else not an aspect."""
    if not (isinstance(value, list) and len(value) == 3):
        return None
    term, start, end = value
    if not (type(start) is int and type(end) is int and (term is None or isinstance(term, str))):
        return None
    return IMPLICIT if term is None else CharSpan(start, end)


def _item(value: Any, where: str, path: Path, line: int) -> tuple[AbsaTuple, Item]:
    if not (isinstance(value, list) and len(value) in (2, 3) and isinstance(value[0], str)):
        raise bad(path, line, f"{where}: expected {ITEM_SHAPES}, got {shown(value)}")
    aspect = _aspect(value[1]) if len(value) == 3 else None
    if len(value) == 3 and aspect is None:
        raise bad(path, line, f"{where}[1]: expected [term | null, start, end], got {shown(value[1])}")
    polarity = value[-1]
    if not isinstance(polarity, str):
        raise bad(path, line, f"{where}: polarity is not a string: {shown(polarity)}")
    normalized = label(polarity.strip().lower(), WORD_LABELS, path, line)
    typed = AbsaTuple(aspect, norm_ref(value[0]), None, normalized)
    return typed, Item(value[0], polarity, value[1], len(value))


def _sentence(row: Any, path: Path, line: int) -> Sentence[Item]:
    if not isinstance(row, dict):
        raise bad(path, line, "not a JSON object")
    key, text, annotation = row.get("id", ""), row.get("sentence_form", ""), row.get("annotation")
    if not isinstance(key, (str, int)) or isinstance(key, bool):
        raise bad(path, line, f"`id` is not a string: {shown(key)}")
    if not isinstance(annotation, list):
        raise bad(path, line, "`annotation` is not a list")
    read = [_item(value, f"annotation[{i}]", path, line) for i, value in enumerate(annotation)]
    return Sentence(str(key), line, text if isinstance(text, str) else "", tuple(t for t, _ in read),
                    tuple(i for _, i in read))


def read(path: Path) -> list[Sentence[Item]]:
    """Every line of a NIKLuge JSONL file, strictly (``file:line: reason``)."""
    import msgspec

    decoder = msgspec.json.Decoder()
    sentences = []
    for line, text in read_lines(path):
        try:
            row = decoder.decode(text)
        except (msgspec.DecodeError, RecursionError) as exc:
            raise bad(path, line, f"not valid JSON: {exc}") from None
        sentences.append(_sentence(row, path, line))
    return sentences
