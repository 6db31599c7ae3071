"""What kind of mistake each gold and each predicted pair of a sample is, under each unit and stage.

A unit compares pairs (:mod:`aggregator.units.projection`): ``(key, polarity)`` with key the ref
(refpol), the surface key of the term (otepol) or the ref's attribute (attrpol). Each pair is an
:class:`Item` that also carries the surface keys of the tuples that project to it (its *terms*),
so that the relations can look at terms the unit does not score. The classes and the matching
are :mod:`aggregator.units.error_classes`; the relations, in precedence order after the unit's
own exact matches:

- polarity: same key, other polarity. Under otepol an implicit gold pair (key ``""``) matches on
  polarity alone (:func:`~aggregator.units.projection.match_surface`), so any prediction with
  another polarity is its polarity error. Preference: a shared term.
- category (refpol, attrpol): other key, a term in common (both implicit counts as in common).
- boundary: other key, two explicit terms that :func:`~aggregator.units.error_classes.overlaps`.
- implicit: other key, one side has an implicit term and the other an explicit one.

category, boundary and implicit prefer a prediction of the same polarity, boundary then the
larger overlap. Exact, polarity and the counts follow the unit: exact pairs are its true
positives, so gold classes sum to tp + fn and prediction classes to tp + fp, per sample.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, NamedTuple

from aggregator.units.error_classes import (
    BOUNDARY,
    CATEGORY,
    EXACT,
    IMPLICIT,
    MISSED,
    PAIRED,
    POLARITY,
    SPURIOUS,
    Assignment,
    assign,
    lone_gold_class,
    overlaps,
    term_overlap,
)
from aggregator.units.projection import surface_key
from scorecards.normalize import norm_term

if TYPE_CHECKING:
    from aggregator.units.error_classes import Relate, Scores
    from aggregator.units.projection import Pair, UnitName
    from scorecards.tuples import EvalTuple

UNIT_CLASSES: dict[str, tuple[str, ...]] = {
    "refpol": (POLARITY, CATEGORY, BOUNDARY, IMPLICIT, SPURIOUS, MISSED),
    "otepol": (POLARITY, BOUNDARY, IMPLICIT, SPURIOUS, MISSED),
    "attrpol": (POLARITY, CATEGORY, BOUNDARY, IMPLICIT, SPURIOUS, MISSED),
}
"""The error classes of each unit (exact left out: it is the unit's tp), in precedence order."""


def gold_side(unit: str) -> tuple[str, ...]:
    """The error classes a gold pair can have under ``unit`` (all but spurious)."""
    return GOLD_SIDE[unit]


GOLD_SIDE = {unit: tuple(c for c in classes if c != SPURIOUS) for unit, classes in UNIT_CLASSES.items()}


class Item(NamedTuple):
    """One pair of a unit with the surface keys of its tuples (sorted; ``""`` = implicit)."""

    key: str
    polarity: str
    terms: tuple[str, ...]

    @property
    def pair(self) -> Pair:
        return self.key, self.polarity


@lru_cache(maxsize=1 << 14)
def _attribute(ref: str) -> str | None:
    _, sep, attribute = ref.partition("#")
    attribute = attribute.strip()
    return norm_term(attribute) if sep and attribute else None


def unit_items(unit: str, tuples: Collection[EvalTuple]) -> list[Item]:
    """The unit's pairs of ``tuples`` (refpol: keyed by the ref, otepol: by the surface key of the term,
    attrpol: by the ref's attribute, as the units' projections key them), sorted, each with its terms."""
    if not tuples:
        return []
    if unit == "otepol":
        return [_new(Item, (k, p, (k,))) for k, p in sorted({(surface_key(term), p) for _, term, p in tuples})]
    if unit == "attrpol":
        keyed = sorted({(key, p, surface_key(term)) for ref, term, p in tuples
                        if ref and (key := _attribute(ref)) is not None})
    else:
        keyed = sorted({(ref, p, surface_key(term)) for ref, term, p in tuples if ref})
    return _grouped(keyed)


def _grouped(keyed: Sequence[tuple[str, str, str]]) -> list[Item]:
    """Items of sorted, distinct ``(key, polarity, term)`` triples: one per pair, with its terms in order."""
    out: list[Item] = []
    last_key = last_polarity = None
    for key, polarity, term in keyed:
        if key == last_key and polarity == last_polarity:
            out[-1] = _new(Item, (key, polarity, (*out[-1][2], term)))
        else:
            out.append(_new(Item, (key, polarity, (term,))))
            last_key, last_polarity = key, polarity
    return out


def all_items(tuples: Collection[EvalTuple]) -> dict[str, list[Item]]:
    """Every unit's pairs of ``tuples`` (:func:`unit_items`)."""
    return {unit: unit_items(unit, tuples) for unit in UNIT_CLASSES}


_new = tuple.__new__
"""Builds an :class:`Item` from a tuple without the named tuple's Python-level constructor (hot path)."""


items = unit_items


def exact_pairs(unit: str, gold: Sequence[Item], pred: Sequence[Item]) -> list[tuple[int, int]]:
    """(gold index, pred index) of the unit's true positives: equal pairs; under otepol each implicit
    gold pair then takes the first (sorted) prediction of its polarity not yet matched
    (:func:`~aggregator.units.projection.matched_surface`)."""
    where = {p[:2]: j for j, p in enumerate(pred)}
    implicit_any = unit == "otepol"
    out = [(i, where[g[:2]]) for i, g in enumerate(gold) if (g[0] or not implicit_any) and g[:2] in where]
    if implicit_any and any(not g.key for g in gold):
        taken = {j for _, j in out}
        for i, g in enumerate(gold):
            if g.key:
                continue
            j = next((j for j, p in enumerate(pred) if j not in taken and p.polarity == g.polarity), None)
            if j is not None:
                taken.add(j)
                out.append((i, j))
    return out


NONE4: tuple[None, None, None, None] = (None, None, None, None)


@lru_cache(maxsize=1 << 16)
def _terms_relation(gold_terms: tuple[str, ...], pred_terms: tuple[str, ...]) -> tuple[bool, float | None, bool]:
    """Whether two items share a term, their best boundary overlap (None: none overlaps), and whether
    one has an implicit term and the other an explicit one (terms sorted: ``""`` first)."""
    shared = not set(gold_terms).isdisjoint(pred_terms)
    best = max((term_overlap(a, b) for a in gold_terms for b in pred_terms if overlaps(a, b)), default=None)
    implicit = (gold_terms[0] == "" and pred_terms[-1] != "") or (pred_terms[0] == "" and gold_terms[-1] != "")
    return shared, best, implicit


def _term_relations(g: Item, p: Item) -> tuple[float | None, float | None, float | None]:
    """Category, boundary and implicit scores of two items with different keys."""
    same = 0.5 if g.polarity == p.polarity else 0.0
    shared, best, implicit = _terms_relation(g.terms, p.terms)
    return (same if shared else None, None if best is None else same + 0.4 * best, same if implicit else None)


def _relate_ref(g: Item, p: Item) -> Scores:
    """refpol and attrpol: polarity (same key; prefers a shared term), category, boundary, implicit."""
    if g.key == p.key:
        if g.polarity == p.polarity:
            return NONE4
        return (0.0 if set(g.terms).isdisjoint(p.terms) else 0.5, None, None, None)
    return (None, *_term_relations(g, p))


def _relate_surface(g: Item, p: Item) -> Scores:
    """otepol: polarity (same key, or any key for an implicit gold pair; prefers the same key),
    boundary, implicit (no category: the unit carries no ref)."""
    polarity = None if g.polarity == p.polarity or (g.key and g.key != p.key) else (0.5 if g.key == p.key else 0.0)
    if g.key == p.key:
        return (polarity, None, None)
    _, boundary, implicit = _term_relations(g, p)
    return (polarity, boundary, implicit)


RELATE: dict[str, Relate[Item, Item]] = {"refpol": _relate_ref, "otepol": _relate_surface, "attrpol": _relate_ref}
LADDERS: dict[str, tuple[str, ...]] = {unit: tuple(c for c in classes if c in PAIRED)
                                       for unit, classes in UNIT_CLASSES.items()}


def classify(unit: UnitName | str, gold: Sequence[Item], pred: Sequence[Item]) -> Assignment:
    """Every gold and predicted item's class under ``unit`` (items as :func:`items` gives them)."""
    if not pred or not gold:
        return Assignment([MISSED] * len(gold), [SPURIOUS] * len(pred), [None] * len(gold))
    return assign(gold, pred, exact_pairs(unit, gold, pred), LADDERS[unit], RELATE[unit])


def stage_classes(unit: str, gold: Sequence[Item], pred: Sequence[Item], tp: int) -> tuple[list[str], int]:
    """The class of each gold item and the number of spurious predictions (:func:`classify`), given the
    unit's true positives ``tp``: a lone gold item is exact, or paired or missed without a matching."""
    if len(gold) == 1 and pred:
        cls = EXACT if tp else lone_gold_class(gold[0], pred, LADDERS[unit], RELATE[unit])
        return [cls], len(pred) - (cls != MISSED)
    found = classify(unit, gold, pred)
    return found.gold, found.pred.count(SPURIOUS)


class Transitions(NamedTuple):
    """What the review did, by class: stage-1 errors repaired, final errors introduced, stage-1 errors
    that became another class (per gold-side class), and each such change as ``from>to``."""

    repaired: dict[str, int]
    introduced: dict[str, int]
    changed: dict[str, int]
    changes: list[str]


def transitions(unit: str, s1: Assignment, s2: Assignment, s1_pred: Sequence[Item],
                s2_pred: Sequence[Item]) -> Transitions:
    """Gold pairs are the same at both stages: a class change is read pair by pair. A prediction is
    followed by its pair: spurious at stage 1 and gone or explaining a gold pair at the final stage
    is repaired; spurious at the final stage and absent or not spurious at stage 1 is introduced."""
    classes = UNIT_CLASSES[unit]
    repaired, introduced = dict.fromkeys(classes, 0), dict.fromkeys(classes, 0)
    changed = dict.fromkeys(GOLD_SIDE[unit], 0)
    changes = []
    if s1.gold != s2.gold:
        for before, after in zip(s1.gold, s2.gold):
            if before == after:
                continue
            if after == EXACT:
                repaired[before] += 1
            elif before == EXACT:
                introduced[after] += 1
            else:
                changed[before] += 1
                changes.append(f"{before}>{after}")
        changes.sort()
    first, final = _spurious_pairs(s1_pred, s1.pred), _spurious_pairs(s2_pred, s2.pred)
    repaired[SPURIOUS] = len(first - final)
    introduced[SPURIOUS] = len(final - first)
    return Transitions(repaired, introduced, changed, changes)


def _spurious_pairs(pred: Sequence[Item], classes: list[str]) -> set[Pair]:
    """The pairs of the predictions classified spurious."""
    return {p[:2] for p, c in zip(pred, classes) if c == SPURIOUS} if SPURIOUS in classes else set()


def counts(unit: str, assignment: Assignment) -> list[int]:
    """The count of each of the unit's error classes (:data:`UNIT_CLASSES` order): gold-side classes
    counted on gold pairs, spurious on predictions."""
    return stage_counts(unit, assignment.gold, assignment.pred.count(SPURIOUS))


def stage_counts(unit: str, gold_classes: Sequence[str], spurious: int) -> list[int]:
    """:func:`counts` from the gold items' classes and the number of spurious predictions
    (what :func:`stage_classes` gives)."""
    return [spurious if c == SPURIOUS else gold_classes.count(c) for c in UNIT_CLASSES[unit]]
