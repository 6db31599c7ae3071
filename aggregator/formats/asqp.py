"""ASQP / ABSA-QUAD lines: ``sentence####[[aspect, category, sentiment, opinion], ...]``.

``NULL`` is an implicit aspect (or opinion). Terms and categories are compared as their
whitespace tokens (the sentence is tokenised text), case-sensitively; sentiments after
strip and lower-case. Sentences pair by line.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from aggregator.formats.aste import labelled
from aggregator.formats.lines import WORD_LABELS, bad, label, read_lines
from aggregator.formats.model import IMPLICIT, AbsaTuple, Element, Sentence, Words, words

NULL = "NULL"


class Item(NamedTuple):
    """A quad exactly as written."""

    aspect: str
    category: str
    sentiment: str
    opinion: str


def term(text: str) -> Element:
    """``NULL`` is implicit; any other text is its words."""
    return IMPLICIT if text == NULL else Words(words(text))


def _sentence(text: str, path: Path, line: int) -> Sentence[Item]:
    sentence, value = labelled(text, "quads", path, line)
    typed, raw = [], []
    for i, quad in enumerate(value):
        if not (isinstance(quad, (list, tuple)) and len(quad) == 4 and all(isinstance(x, str) for x in quad)):
            raise bad(path, line, f"quad {i}: expected [aspect, category, sentiment, opinion] strings")
        item = Item(*quad)
        polarity = label(item.sentiment.strip().lower(), WORD_LABELS, path, line)
        typed.append(AbsaTuple(term(item.aspect), words(item.category), term(item.opinion), polarity))
        raw.append(item)
    return Sentence(str(line), line, sentence, tuple(typed), tuple(raw))


def read(path: Path) -> list[Sentence[Item]]:
    """Every line of an ASQP file, strictly (``file:line: reason``)."""
    return [_sentence(text, path, line) for line, text in read_lines(path)]
