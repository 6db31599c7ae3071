"""Evaluation units: projections of EvalTuple sets to pairs, and how pairs are matched.

========  =====================================  ==========================
unit      pair                                   paper name
========  =====================================  ==========================
refpol    (aspect_ref, polarity), ref non-empty  GoldUnit, Ref-F1 (primary)
otepol    (aspect_term, polarity)                SurfaceUnit (appendix)
attrpol   (norm_term(attribute), polarity)       attribute level
========  =====================================  ==========================
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal, NamedTuple

from scorecards.normalize import norm_term
from scorecards.tuples import EvalTuple

UnitName = Literal["refpol", "otepol", "attrpol"]


class GoldUnit(NamedTuple):
    """The primary unit: taxonomy key and polarity."""

    aspect_ref: str
    polarity: str


class SurfaceUnit(NamedTuple):
    """The appendix unit: surface term (``""`` = implicit) and polarity."""

    aspect_term: str
    polarity: str


class AttributeUnit(NamedTuple):
    """The attribute of the taxonomy key (text after ``#``) and polarity."""

    attribute: str
    polarity: str


Pair = GoldUnit | SurfaceUnit | AttributeUnit


class Counts(NamedTuple):
    """Sufficient statistics of one comparison: true positives, false positives, false negatives."""

    tp: int
    fp: int
    fn: int


def gold_units(tuples: Iterable[EvalTuple]) -> frozenset[GoldUnit]:
    """``{(ref, pol) : ref != ""}``."""
    return frozenset(GoldUnit(t.aspect_ref, t.polarity) for t in tuples if t.aspect_ref)


def surface_units(tuples: Iterable[EvalTuple]) -> frozenset[SurfaceUnit]:
    """``{(term, pol)}``; the term may be ``""`` (implicit aspect)."""
    return frozenset(SurfaceUnit(t.aspect_term, t.polarity) for t in tuples)


def attribute_units(tuples: Iterable[EvalTuple]) -> frozenset[AttributeUnit]:
    """``{(norm_term(attr), pol)}`` for refs with a ``#`` whose stripped attribute is non-empty."""
    out: set[AttributeUnit] = set()
    for t in tuples:
        _, sep, attribute = t.aspect_ref.partition("#")
        attribute = attribute.strip()
        if sep and attribute:
            out.add(AttributeUnit(norm_term(attribute), t.polarity))
    return frozenset(out)


def match_exact(pred: frozenset[Pair], gold: frozenset[Pair]) -> Counts:
    """tp = |pred ∩ gold|, fp = |pred| - tp, fn = |gold| - tp."""
    tp = len(pred & gold)
    return Counts(tp, len(pred) - tp, len(gold) - tp)


def match_surface(pred: frozenset[SurfaceUnit], gold: frozenset[SurfaceUnit]) -> Counts:
    """Exact matching, then implicit gold pairs (term ``""``) match on polarity alone.

    For each implicit gold pair, one predicted pair with the same polarity that was
    not matched exactly is consumed and counts as a true positive.
    """
    explicit = frozenset(p for p in gold if p.aspect_term)
    exact = pred & explicit
    tp = len(exact)
    implicit_polarities = {p.polarity for p in gold if not p.aspect_term}
    if implicit_polarities:
        free = {p.polarity for p in pred - exact}
        tp += len(implicit_polarities & free)
    return Counts(tp, len(pred) - tp, len(gold) - tp)


@dataclass(frozen=True)
class Unit:
    """An evaluation unit: how to project a tuple set, how to match, and its edge cases.

    ``empty_gold_correct``: a sample with no gold pairs counts as correct when the
    prediction has no pairs either (otherwise it is never correct). ``micro_needs_gold``:
    samples with no gold pairs add nothing to the micro sums.
    """

    name: UnitName
    paper_name: str
    project: Callable[[Iterable[EvalTuple]], frozenset]
    match: Callable[[frozenset, frozenset], Counts]
    empty_gold_correct: bool
    micro_needs_gold: bool

    def counts(self, pred: Iterable[EvalTuple], gold: Iterable[EvalTuple]) -> Counts:
        return self.match(self.project(pred), self.project(gold))


UNITS: dict[UnitName, Unit] = {
    "refpol": Unit("refpol", "GoldUnit (Ref-F1)", gold_units, match_exact, False, False),
    "otepol": Unit("otepol", "SurfaceUnit", surface_units, match_surface, False, False),
    "attrpol": Unit("attrpol", "attribute unit", attribute_units, match_exact, True, True),
}
