"""Evaluation units of every arity: a unit is a subset of a tuple's fields, compared as a set per sentence.

Fields are named as the ACOS scorer names them: ``category``, ``sentiment`` (the
polarity), ``aspect``, ``opinion``. A (category, polarity) pair is ``category sentiment``,
an ASTE triplet ``sentiment aspect opinion``, a quad ``category sentiment aspect
opinion``; the ACOS element subsets are the 15 non-empty subsets, in its order. A tuple
enters a unit only when it has every field of the unit (``None`` = not in the format);
``explicit_only`` also leaves out implicit aspects (SemEval-2016 slot 2).

Breakdowns by explicit/implicit type (ACOS): ``EA&EO``, ``IA&EO``, ``EA&IO``, ``IA&IO``
hold the tuples of that type only; ``all`` holds every tuple.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Callable, Literal

from aggregator.formats.model import AbsaTuple, Implicit

Field = Literal["category", "sentiment", "aspect", "opinion"]
ACOS_ORDER: tuple[Field, ...] = ("category", "sentiment", "aspect", "opinion")
_INDEX = {"category": AbsaTuple._fields.index("category"), "sentiment": AbsaTuple._fields.index("polarity"),
          "aspect": AbsaTuple._fields.index("aspect"), "opinion": AbsaTuple._fields.index("opinion")}
TYPES = ("EA&EO", "IA&EO", "EA&IO", "IA&IO")
ALL = "all"
Key = tuple[object, ...]


@dataclass(frozen=True)
class Unit:
    """A named subset of fields; :meth:`project` gives a sentence's set of unit values."""

    name: str
    fields: tuple[Field, ...]
    explicit_only: bool = False
    _get: Callable[[AbsaTuple], Key] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        get = itemgetter(*(_INDEX[f] for f in self.fields), _INDEX["aspect"])
        object.__setattr__(self, "_get", get)

    def project(self, tuples: Iterable[AbsaTuple]) -> frozenset[Key]:
        """``{(t.f for f in fields)}`` over the tuples having every field (and, if asked, an explicit aspect)."""
        values = map(self._get, tuples)
        if self.explicit_only:
            return frozenset(v[:-1] for v in values if None not in v and not isinstance(v[-1], Implicit))
        return frozenset(v[:-1] for v in values if None not in v[:-1])


def unit(*fields: Field, explicit_only: bool = False) -> Unit:
    """The unit of ``fields``, named by them in ACOS order."""
    ordered = tuple(f for f in ACOS_ORDER if f in fields)
    return Unit(" ".join(ordered), ordered, explicit_only)


def subsets(*fields: Field) -> tuple[Unit, ...]:
    """Every non-empty subset of ``fields`` as a unit, in the ACOS scorer's order (bit i = ``ACOS_ORDER[i]``)."""
    out = []
    for bits in range(1, 16):
        chosen = tuple(f for i, f in enumerate(ACOS_ORDER) if bits >> i & 1)
        if set(chosen) <= set(fields):
            out.append(unit(*chosen))
    return tuple(out)


def tuple_type(item: AbsaTuple) -> str:
    """``EA&EO``, ``IA&EO``, ``EA&IO`` or ``IA&IO``: explicit or implicit aspect and opinion."""
    return TYPES[isinstance(item.aspect, Implicit) + 2 * isinstance(item.opinion, Implicit)]
