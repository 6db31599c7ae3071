"""SemEval XML: 2014 Task 4 (``<aspectTerm>``, ``<aspectCategory>``) and 2015/16 Task 5 (``<Opinion>``).

2014: an aspect term is its character offsets ``[from, to)`` (its text is not compared), a
category its name; 2016: an opinion is (category, target offsets or implicit for target
``NULL``). Polarity is optional (phase A predictions carry none). Sentences pair by ``id``.
Read with expat, so a bad element names its line. Offsets are plain decimal numbers (``04`` is 4;
`` 1_0 ``, ``-5`` and ten digits or more are bad). A ``<sentence>`` inside another is an error (its
annotations would belong to neither). An encoding expat cannot read (unknown, or multi-byte other
than UTF-8 and UTF-16) is one line naming it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, NamedTuple
from xml.parsers import expat

from aggregator.formats.lines import WORD_LABELS, bad
from aggregator.formats.model import IMPLICIT, AbsaTuple, CharSpan, Element, Label, Sentence
from scorecards.errors import quoted

LABELS: dict[str, Label] = {**WORD_LABELS, "conflict": "conflict"}
Edition = Literal["2014", "2016"]
_OFFSET = re.compile(r"[0-9]{1,9}")


class Item(NamedTuple):
    """An annotation as written: kind, term, category, polarity and offsets (strings, as the scorers hold them)."""

    kind: Literal["term", "category", "opinion"]
    term: str | None
    category: str | None
    polarity: str | None
    start: str | None
    end: str | None


def _offsets(attrs: dict[str, str], where: str, path: Path, line: int) -> CharSpan:
    start, end = attrs.get("from"), attrs.get("to")
    if start is None or end is None or not (_OFFSET.fullmatch(start) and _OFFSET.fullmatch(end)):
        raise bad(path, line, f"<{where}>: `from` and `to` must be character offsets (decimal digits, at most 9), "
                              f"got {quoted(str(start))}, {quoted(str(end))}")
    return CharSpan(int(start), int(end))


def _polarity(attrs: dict[str, str], path: Path, line: int) -> Label | None:
    value = attrs.get("polarity")
    if value is None or not value.strip():
        return None
    key = value.strip().lower()
    if key not in LABELS:
        raise bad(path, line, f"unknown polarity {quoted(value)} (expected positive, negative, neutral or conflict)")
    return LABELS[key]


def _annotation(name: str, attrs: dict[str, str], path: Path, line: int) -> tuple[AbsaTuple, Item]:
    """One ``aspectTerm``, ``aspectCategory`` or ``Opinion`` element."""
    polarity = _polarity(attrs, path, line)
    if name == "aspectTerm":
        item = Item("term", attrs.get("term"), None, attrs.get("polarity"), attrs.get("from"), attrs.get("to"))
        return AbsaTuple(_offsets(attrs, name, path, line), None, None, polarity), item
    category = attrs.get("category")
    if not category:
        raise bad(path, line, f"<{name}> has no `category`")
    if name == "aspectCategory":
        item = Item("category", None, category, attrs.get("polarity"), None, None)
        return AbsaTuple(None, category, None, polarity), item
    target = attrs.get("target", "NULL")
    aspect: Element = IMPLICIT if target == "NULL" else _offsets(attrs, name, path, line)
    item = Item("opinion", target, category, attrs.get("polarity"), attrs.get("from"), attrs.get("to"))
    return AbsaTuple(aspect, category, None, polarity), item


@dataclass
class _Open:
    """The sentence being read."""

    key: str
    line: int
    text: list[str] = field(default_factory=list)
    read: list[tuple[AbsaTuple, Item]] = field(default_factory=list)
    in_text: bool = False

    def close(self) -> Sentence[Item]:
        return Sentence(self.key, self.line, "".join(self.text), tuple(t for t, _ in self.read),
                        tuple(i for _, i in self.read))


def read(path: Path, edition: Edition = "2014") -> list[Sentence[Item]]:
    """Every ``<sentence>`` of a SemEval XML file with its annotations, strictly."""
    parser = expat.ParserCreate()
    sentences: list[Sentence[Item]] = []
    wanted = ("aspectTerm", "aspectCategory") if edition == "2014" else ("Opinion",)
    current: _Open | None = None

    def start(name: str, attrs: dict[str, str]) -> None:
        nonlocal current
        line = parser.CurrentLineNumber
        if name == "sentence":
            if current is not None:
                raise bad(path, line, f"<sentence> inside the <sentence> of line {current.line} (close that one first)")
            if not attrs.get("id"):
                raise bad(path, line, "<sentence> has no `id`")
            current = _Open(attrs["id"], line)
        elif current is not None and name == "text":
            current.in_text = True
        elif current is not None and name in wanted:
            current.read.append(_annotation(name, attrs, path, line))

    def end(name: str) -> None:
        nonlocal current
        if current is not None and name == "text":
            current.in_text = False
        elif current is not None and name == "sentence":
            sentences.append(current.close())
            current = None

    def text(data: str) -> None:
        if current is not None and current.in_text:
            current.text.append(data)

    parser.StartElementHandler, parser.EndElementHandler, parser.CharacterDataHandler = start, end, text
    try:
        parser.Parse(path.read_bytes(), True)
    except expat.ExpatError as exc:
        raise bad(path, exc.lineno, f"not well-formed XML: {expat.ErrorString(exc.code)}") from None
    except (LookupError, ValueError) as exc:  # an encoding expat cannot read
        raise bad(path, parser.CurrentLineNumber or 1, f"the XML declares an encoding that cannot be read ({exc}); "
                                                       "save the file as UTF-8") from None
    if not sentences:
        raise bad(path, 1, "no <sentence> element")
    return sentences
