"""Typed tuples of every ABSA format: what the readers give and the scorers compare.

A field that is ``None`` is not part of the format (NIKLuge predictions name no aspect
term). :data:`IMPLICIT` is an element the annotation says the sentence does not name:
ASQP's ``NULL``, ACOS's ``-1,-1``, NIKLuge's ``[null, 0, 0]``. Elements are compared as
their format defines them: token ranges, character offsets or words. They are named
tuples (compared and hashed at C speed); a format holds one kind per field, so kinds of
equal values never meet.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Generic, Literal, NamedTuple, TypeVar, Union

Label = Literal["positive", "negative", "neutral", "conflict"]
R = TypeVar("R")


class Implicit(enum.Enum):
    """An aspect or opinion the sentence does not name (NULL)."""

    NULL = "NULL"

    def __repr__(self) -> str:
        return "IMPLICIT"


IMPLICIT = Implicit.NULL


class TokenSpan(NamedTuple):
    """Whitespace tokens ``[start, end)`` of the sentence."""

    start: int
    end: int


class TokenList(NamedTuple):
    """A token index list that is not a range (reversed, gapped, repeated): equal only to itself."""

    indices: tuple[int, ...]


class CharSpan(NamedTuple):
    """Characters ``[start, end)`` of the sentence."""

    start: int
    end: int


class Words(NamedTuple):
    """A term given as text: its whitespace tokens joined by one space."""

    text: str


Element = Union[Implicit, TokenSpan, TokenList, CharSpan, Words]
ELEMENT_KINDS = (Implicit, TokenSpan, TokenList, CharSpan, Words)


class AbsaTuple(NamedTuple):
    """One opinion of a sentence, in the fields its format has (``None`` = not in the format or not given)."""

    aspect: Element | None
    category: str | None
    opinion: Element | None
    polarity: Label | None


@dataclass(frozen=True, slots=True)
class Sentence(Generic[R]):
    """One sentence of a file: its pairing key, where it was read, its tuples as read
    (duplicates kept, in order) and the format's raw items the official scorers read."""

    key: str
    line: int
    text: str
    tuples: tuple[AbsaTuple, ...]
    raw: tuple[R, ...]


def words(text: str) -> str:
    """Whitespace tokens of ``text`` joined by one space."""
    return " ".join(text.split())


def element_json(element: Element) -> object:
    """A JSON value naming an element, one-to-one: null (implicit), ``[s, e]``, ``{"tokens": [...]}`` or text."""
    if isinstance(element, Implicit):
        return None
    if isinstance(element, (TokenSpan, CharSpan)):
        return [element.start, element.end]
    if isinstance(element, TokenList):
        return {"tokens": list(element.indices)}
    return element.text


def field_json(value: object) -> object:
    """A tuple field as a JSON value: an element by :func:`element_json`, a category or label as it is."""
    return element_json(value) if isinstance(value, ELEMENT_KINDS) else value
