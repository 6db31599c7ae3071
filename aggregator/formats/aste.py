"""ASTE-Data-V2 lines: ``tok tok tok####[([aspect idx...], [opinion idx...], 'POS'), ...]``.

Indices are 0-based whitespace tokens. A contiguous ascending list, or the two-endpoint
form ``[start, end]`` that Span-ASTE writes, is the token range; any other list
(reversed, gapped, repeated) is kept as written and equals only itself. Indices are not
checked against the sentence (the scorers do not either). Sentences pair by line.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

from aggregator.formats.lines import bad, label, literal, read_lines, shown
from aggregator.formats.model import AbsaTuple, Element, Label, Sentence, TokenList, TokenSpan

LABELS: dict[str, Label] = {"POS": "positive", "NEG": "negative", "NEU": "neutral"}
SEPARATOR = "####"
MAX_INDEX = 2**31
"""Token indices lie in ``(-MAX_INDEX, MAX_INDEX)``; a larger one is a bad line (no sentence has that many tokens)."""


class Item(NamedTuple):
    """A triplet as written: aspect and opinion index lists, sentiment tag."""

    aspect: tuple[int, ...]
    opinion: tuple[int, ...]
    label: str


def span(indices: tuple[int, ...]) -> Element:
    """The token range of an index list (contiguous, or the two endpoints); else the list itself."""
    first, last = indices[0], indices[-1]
    if len(indices) == 2 and first < last or indices == tuple(range(first, first + len(indices))):
        return TokenSpan(first, last + 1)
    return TokenList(indices)


def _indices(value: object, where: str, path: Path, line: int) -> tuple[int, ...]:
    if isinstance(value, (list, tuple)) and value and all(type(i) is int for i in value):
        if all(-MAX_INDEX < i < MAX_INDEX for i in value):
            return tuple(value)
        raise bad(path, line, f"{where}: a token index beyond ±{MAX_INDEX:,}")
    raise bad(path, line, f"{where}: expected a non-empty list of token indices, got {shown(value)}")


def labelled(text: str, what: str, path: Path, line: int) -> tuple[str, list[object] | tuple[object, ...]]:
    """``sentence####[...]`` -> (sentence, the list of ``what``); exactly one separator."""
    parts = text.split(SEPARATOR)
    if len(parts) != 2:
        raise bad(path, line, f"expected one {SEPARATOR!r} between the sentence and its labels, found {len(parts) - 1}")
    value = literal(parts[1], path, line)
    if not isinstance(value, (list, tuple)):
        raise bad(path, line, f"labels are not a list of {what}")
    return parts[0], value


def _sentence(text: str, path: Path, line: int) -> Sentence[Item]:
    sentence, value = labelled(text, "triplets", path, line)
    typed, raw = [], []
    for i, triplet in enumerate(value):
        if not (isinstance(triplet, (list, tuple)) and len(triplet) == 3):
            raise bad(path, line, f"triplet {i}: expected ([aspect idx], [opinion idx], 'POS'|'NEG'|'NEU')")
        aspect = _indices(triplet[0], f"triplet {i} aspect", path, line)
        opinion = _indices(triplet[1], f"triplet {i} opinion", path, line)
        polarity = label(triplet[2], LABELS, path, line)
        typed.append(AbsaTuple(span(aspect), None, span(opinion), polarity))
        raw.append(Item(aspect, opinion, triplet[2]))
    return Sentence(str(line), line, sentence, tuple(typed), tuple(raw))


def read(path: Path) -> list[Sentence[Item]]:
    """Every line of an ASTE file, strictly (``file:line: reason``)."""
    return [_sentence(text, path, line) for line, text in read_lines(path)]
