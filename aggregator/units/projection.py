"""Evaluation units: projections of EvalTuple sets to pairs, and how pairs are matched.

========  =====================================  ==========================
unit      pair                                   paper name
========  =====================================  ==========================
refpol    (aspect_ref, polarity), ref non-empty  GoldUnit, Ref-F1 (primary)
otepol    (surface_key(term), polarity)          SurfaceUnit (appendix)
attrpol   (norm_term(attribute), polarity)       attribute level
========  =====================================  ==========================
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from operator import itemgetter
from typing import TYPE_CHECKING, Literal, NamedTuple

from scorecards.normalize import norm_term

if TYPE_CHECKING:
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


Pair = tuple[str, str]
"""A unit value as a plain tuple; it equals (and hashes like) the matching NamedTuple above."""

_REF_POLARITY = itemgetter(0, 2)


class Counts(NamedTuple):
    """Sufficient statistics of one comparison: true positives, false positives, false negatives."""

    tp: int
    fp: int
    fn: int


def surface_key(term: str) -> str:
    """The term as the surface unit compares it: :func:`norm_term` applied to the normalized term.

    The research tool normalizes terms once more when it projects them and when it decides
    whether a tuple is explicit, and the published numbers follow it: the tuple term of
    ``"( x )"`` is ``" x "``, its surface key ``"x"``; the tuple term of ``"(  )"`` is ``" "``,
    its surface key ``""`` (implicit). A term without edge whitespace is its own key.
    """
    if len(term.strip()) == len(term):  # no edge whitespace (str.strip and str.isspace share one definition)
        return term
    return norm_term(term)


def ref_copies_term(ref: str, term: str) -> bool:
    """The ref is the tuple's own term (a pipeline that fills ``aspect_ref`` with the surface
    term): equal once the ref is normalized as a term is."""
    return bool(ref) and surface_key(norm_term(ref)) == surface_key(term)


def is_explicit(t: EvalTuple) -> bool:
    """The tuple names its aspect in the sentence: its surface key is non-empty."""
    return surface_key(t.aspect_term) != ""


def gold_units(tuples: Iterable[EvalTuple]) -> frozenset[Pair]:
    """GoldUnit pairs ``{(ref, pol) : ref != ""}``."""
    return frozenset(pair for pair in map(_REF_POLARITY, tuples) if pair[0])


def surface_units(tuples: Iterable[EvalTuple]) -> frozenset[Pair]:
    """SurfaceUnit pairs ``{(surface_key(term), pol)}``; the key may be ``""`` (implicit aspect)."""
    return frozenset((surface_key(term), polarity) for _, term, polarity in tuples)


def attribute_units(tuples: Iterable[EvalTuple]) -> frozenset[Pair]:
    """AttributeUnit pairs ``{(norm_term(attr), pol)}`` for refs with a ``#`` whose stripped attribute is non-empty."""
    out: set[Pair] = set()
    for ref, _, polarity in tuples:
        _, sep, attribute = ref.partition("#")
        attribute = attribute.strip()
        if sep and attribute:
            out.add((norm_term(attribute), polarity))
    return frozenset(out)


def match_exact(pred: frozenset[Pair], gold: frozenset[Pair]) -> Counts:
    """tp = |pred ∩ gold|, fp = |pred| - tp, fn = |gold| - tp."""
    tp = len(pred & gold)
    return Counts(tp, len(pred) - tp, len(gold) - tp)


def match_surface(pred: frozenset[Pair], gold: frozenset[Pair]) -> Counts:
    """Exact matching, then implicit gold pairs (term ``""``) match on polarity alone.

    For each implicit gold pair, one predicted pair with the same polarity that was
    not matched exactly is consumed and counts as a true positive.
    """
    implicit_polarities = {polarity for term, polarity in gold if not term}
    if not implicit_polarities:
        return match_exact(pred, gold)
    exact = pred & frozenset(pair for pair in gold if pair[0])
    tp = len(exact) + len(implicit_polarities & {polarity for _, polarity in pred - exact})
    return Counts(tp, len(pred) - tp, len(gold) - tp)


def matched_exact(pred: frozenset[Pair], gold: frozenset[Pair]) -> tuple[frozenset[Pair], frozenset[Pair]]:
    """The pairs :func:`match_exact` counts as true positives: ``pred ∩ gold`` on both sides."""
    both = pred & gold
    return both, both


def matched_surface(pred: frozenset[Pair], gold: frozenset[Pair]) -> tuple[frozenset[Pair], frozenset[Pair]]:
    """The predicted and gold pairs :func:`match_surface` counts as true positives.

    Exact matches first; then each implicit gold pair consumes the first (in sort order) predicted
    pair of its polarity not matched exactly. Which pair that is does not change the counts.
    """
    exact = pred & frozenset(pair for pair in gold if pair[0])
    pred_matched, gold_matched = set(exact), set(exact)
    rest = sorted(pred - exact)
    for implicit in sorted(pair for pair in gold if not pair[0]):
        chosen = next((pair for pair in rest if pair[1] == implicit[1]), None)
        if chosen is not None:
            rest.remove(chosen)
            pred_matched.add(chosen)
            gold_matched.add(implicit)
    return frozenset(pred_matched), frozenset(gold_matched)


@dataclass(frozen=True)
class Unit:
    """An evaluation unit: how to project a tuple set, how to match, and its edge cases.

    ``empty_gold_correct``: a sample with no gold pairs counts as correct when the
    prediction has no pairs either (otherwise it is never correct). ``micro_needs_gold``:
    samples with no gold pairs add nothing to the micro sums. ``matched``: which predicted and
    gold pairs ``match`` counts as true positives (for marking them, e.g. in the report).
    """

    name: UnitName
    paper_name: str
    project: Callable[[Iterable[EvalTuple]], frozenset[Pair]]
    match: Callable[[frozenset[Pair], frozenset[Pair]], Counts]
    empty_gold_correct: bool
    micro_needs_gold: bool
    matched: Callable[[frozenset[Pair], frozenset[Pair]], tuple[frozenset[Pair], frozenset[Pair]]] = matched_exact

    def counts(self, pred: Iterable[EvalTuple], gold: Iterable[EvalTuple]) -> Counts:
        return self.match(self.project(pred), self.project(gold))


UNITS: dict[str, Unit] = {
    "refpol": Unit("refpol", "GoldUnit (Ref-F1)", gold_units, match_exact, False, False),
    "otepol": Unit("otepol", "SurfaceUnit", surface_units, match_surface, False, False, matched_surface),
    "attrpol": Unit("attrpol", "attribute unit", attribute_units, match_exact, True, True),
}

TRANSITIONS = ("fix", "break", "keep", "still")
"""How a sample's unit moves from stage 1 to the final stage: fix (wrong, then correct), break (correct,
then wrong), keep (correct both times), still (wrong both times); the ``u_transition`` column of
:mod:`aggregator.run.per_sample`."""
