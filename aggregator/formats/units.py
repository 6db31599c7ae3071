"""Evaluation units of every arity: a unit is a subset of a tuple's fields, compared as a set per sentence.

Fields are named as the ACOS scorer names them: ``category``, ``sentiment`` (the
polarity), ``aspect``, ``opinion``. A (category, polarity) pair is ``category sentiment``,
an ASTE triplet ``sentiment aspect opinion``, a quad ``category sentiment aspect
opinion``; the ACOS element subsets are the 15 non-empty subsets, in its order. A tuple
enters a unit only when it has every field of the unit (``None`` = not in the format);
``explicit_only`` also leaves out implicit aspects (SemEval-2016 slot 2).

Breakdowns by explicit/implicit type (ACOS; sound scoring breaks the full quad down):
``EA&EO``, ``IA&EO``, ``EA&IO``, ``IA&IO`` hold the tuples of that type only; ``all`` every tuple.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Literal

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
    complete: bool = False
    _get: Callable[[AbsaTuple], Key] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        indices = [_INDEX[f] for f in self.fields]
        get = itemgetter(*indices) if len(indices) > 1 else (lambda item, i=indices[0]: (item[i],))
        object.__setattr__(self, "_get", get)

    def project(self, tuples: Iterable[AbsaTuple]) -> frozenset[Key]:
        """``{(t.f for f in fields)}`` over the tuples having every field (and, if asked, an explicit aspect)."""
        if self.complete:
            return frozenset(map(self._get, tuples))
        if self.explicit_only:
            tuples = [t for t in tuples if t.aspect is not None and not isinstance(t.aspect, Implicit)]
        return frozenset(v for v in map(self._get, tuples) if None not in v)


def unit(*fields: Field, explicit_only: bool = False, complete: bool = False) -> Unit:
    """The unit of ``fields``, named by them in ACOS order."""
    ordered = tuple(f for f in ACOS_ORDER if f in fields)
    return Unit(" ".join(ordered), ordered, explicit_only, complete)


def subsets(*fields: Field, complete: bool = False) -> tuple[Unit, ...]:
    """Every non-empty subset of ``fields`` as a unit, in the ACOS scorer's order (bit i = ``ACOS_ORDER[i]``)."""
    out = []
    for bits in range(1, 16):
        chosen = tuple(f for i, f in enumerate(ACOS_ORDER) if bits >> i & 1)
        if set(chosen) <= set(fields):
            out.append(unit(*chosen, complete=complete))
    return tuple(out)


def tuple_type(item: AbsaTuple) -> str:
    """``EA&EO``, ``IA&EO``, ``EA&IO`` or ``IA&IO``: explicit or implicit aspect and opinion."""
    return TYPES[isinstance(item.aspect, Implicit) + 2 * isinstance(item.opinion, Implicit)]
