"""ACOS tsv: ``sentence<TAB>a_s,a_e CATEGORY#ATTRIBUTE s o_s,o_e<TAB>...``.

Spans are whitespace-token offsets ``[start, end)``; ``-1,-1`` is an implicit aspect or
opinion; s is 0 (negative), 1 (neutral) or 2 (positive). Sentences are keyed by their
text, as the official scorer keys them: lines with one text are one sentence.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import NamedTuple

from aggregator.formats.lines import bad, label, read_lines
from aggregator.formats.model import IMPLICIT, AbsaTuple, Element, Label, Sentence, TokenSpan
from scorecards.errors import quoted

LABELS: dict[str, Label] = {"0": "negative", "1": "neutral", "2": "positive"}
IMPLICIT_SPAN = "-1,-1"
_SPAN = re.compile(r"(0|[1-9][0-9]{0,9}),(0|[1-9][0-9]{0,9})")
"""Token offsets of at most 10 digits (larger ones are no sentence's, and Python refuses to read 4,300 digits)."""


class Item(NamedTuple):
    """A quad as the official scorer holds it: ``[category, sentiment, aspect, opinion]`` strings."""

    category: str
    sentiment: str
    aspect: str
    opinion: str


def _span(text: str, where: str, path: Path, line: int) -> Element:
    if text == IMPLICIT_SPAN:
        return IMPLICIT
    match = _SPAN.fullmatch(text)
    if match is None:
        raise bad(path, line, f"{where}: expected start,end token offsets (at most 10 digits each) or -1,-1, "
                  f"got {quoted(text)}")
    return TokenSpan(int(match[1]), int(match[2]))


def _quad(text: str, i: int, path: Path, line: int) -> tuple[AbsaTuple, Item]:
    parts = text.split()
    if len(parts) != 4:
        raise bad(path, line, f"quad {i}: expected 'a_s,a_e CATEGORY s o_s,o_e', got {quoted(text)}")
    aspect, category, sentiment, opinion = parts
    polarity = label(sentiment, LABELS, path, line)
    typed = AbsaTuple(_span(aspect, f"quad {i} aspect", path, line), category,
                      _span(opinion, f"quad {i} opinion", path, line), polarity)
    return typed, Item(category, sentiment, aspect, opinion)


def _sentence(text: str, path: Path, line: int) -> Sentence[Item]:
    sentence, *fields = text.strip().split("\t")
    read = [_quad(field, i, path, line) for i, field in enumerate(fields)]
    return Sentence(sentence, line, sentence, tuple(t for t, _ in read), tuple(r for _, r in read))


def read(path: Path) -> list[Sentence[Item]]:
    """Every line of an ACOS tsv file, strictly (``file:line: reason``)."""
    return [_sentence(text, path, line) for line, text in read_lines(path)]
