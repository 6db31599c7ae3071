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

from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from aggregator.units.error_classes import (
    BOUNDARY,
    CATEGORY,
    EXACT,
    IMPLICIT,
    MISSED,
    POLARITY,
    SPURIOUS,
    Assignment,
    assign,
    overlaps,
    term_overlap,
)
from aggregator.units.projection import surface_key
from scorecards.normalize import norm_term

if TYPE_CHECKING:
    from aggregator.units.error_classes import Relation
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
    return tuple(c for c in UNIT_CLASSES[unit] if c != SPURIOUS)


class Item(NamedTuple):
    """One pair of a unit with the surface keys of its tuples (sorted; ``""`` = implicit)."""

    key: str
    polarity: str
    terms: tuple[str, ...]

    @property
    def pair(self) -> Pair:
        return self.key, self.polarity


def _ref_key(t: EvalTuple) -> str | None:
    return t.aspect_ref or None


def _surface_key(t: EvalTuple) -> str | None:
    return surface_key(t.aspect_term)


def _attribute_key(t: EvalTuple) -> str | None:
    _, sep, attribute = t.aspect_ref.partition("#")
    attribute = attribute.strip()
    return norm_term(attribute) if sep and attribute else None


KEYS: dict[str, Callable[[EvalTuple], str | None]] = {
    "refpol": _ref_key, "otepol": _surface_key, "attrpol": _attribute_key}
"""A tuple's key under each unit (None: no pair), as the unit's projection makes it."""


def items(unit: str, tuples: Iterable[EvalTuple]) -> list[Item]:
    """The unit's pairs of ``tuples``, sorted, each with its terms."""
    key_of = KEYS[unit]
    found: dict[tuple[str, str], set[str]] = {}
    for t in tuples:
        key = key_of(t)
        if key is not None:
            found.setdefault((key, t.polarity), set()).add(surface_key(t.aspect_term))
    return [Item(key, polarity, tuple(sorted(terms))) for (key, polarity), terms in sorted(found.items())]


def exact_pairs(unit: str, gold: Sequence[Item], pred: Sequence[Item]) -> list[tuple[int, int]]:
    """(gold index, pred index) of the unit's true positives: equal pairs; under otepol each implicit
    gold pair then takes the first (sorted) prediction of its polarity not yet matched
    (:func:`~aggregator.units.projection.matched_surface`)."""
    where = {p.pair: j for j, p in enumerate(pred)}
    implicit_any = unit == "otepol"
    out = [(i, where[g.pair]) for i, g in enumerate(gold) if (g.key or not implicit_any) and g.pair in where]
    if implicit_any:
        taken = {j for _, j in out}
        for i, g in enumerate(gold):
            if g.key:
                continue
            j = next((j for j, p in enumerate(pred) if j not in taken and p.polarity == g.polarity), None)
            if j is not None:
                taken.add(j)
                out.append((i, j))
    return out


def _same_polarity(g: Item, p: Item) -> float:
    return 0.5 if g.polarity == p.polarity else 0.0


def _polarity(g: Item, p: Item) -> float | None:
    if g.polarity == p.polarity or g.key != p.key:
        return None
    return 0.5 if set(g.terms) & set(p.terms) else 0.0


def _polarity_surface(g: Item, p: Item) -> float | None:
    if g.polarity == p.polarity or (g.key and g.key != p.key):
        return None
    return 0.5 if g.key == p.key else 0.0


def _category(g: Item, p: Item) -> float | None:
    if g.key == p.key or not set(g.terms) & set(p.terms):
        return None
    return _same_polarity(g, p)


def _boundary(g: Item, p: Item) -> float | None:
    if g.key == p.key:
        return None
    best = max((term_overlap(a, b) for a in g.terms for b in p.terms if overlaps(a, b)), default=None)
    return None if best is None else _same_polarity(g, p) + 0.4 * best


def _implicit(g: Item, p: Item) -> float | None:
    if g.key == p.key:
        return None
    gold_implicit, pred_implicit = "" in g.terms, "" in p.terms
    gold_explicit, pred_explicit = g.terms[-1] != "", p.terms[-1] != ""
    if (gold_implicit and pred_explicit) or (pred_implicit and gold_explicit):
        return _same_polarity(g, p)
    return None


RELATIONS: dict[str, Relation[Item, Item]] = {CATEGORY: _category, BOUNDARY: _boundary, IMPLICIT: _implicit}
LADDERS: dict[str, list[tuple[str, Relation[Item, Item]]]] = {
    unit: [(POLARITY, _polarity_surface if unit == "otepol" else _polarity),
           *((c, RELATIONS[c]) for c in classes if c in RELATIONS)]
    for unit, classes in UNIT_CLASSES.items()
}


def classify(unit: UnitName | str, gold: Sequence[Item], pred: Sequence[Item]) -> Assignment:
    """Every gold and predicted item's class under ``unit`` (items as :func:`items` gives them)."""
    return assign(gold, pred, exact_pairs(unit, gold, pred), LADDERS[unit])


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
    changed = dict.fromkeys(gold_side(unit), 0)
    changes = []
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
    first = {p.pair: c for p, c in zip(s1_pred, s1.pred)}
    final = {p.pair: c for p, c in zip(s2_pred, s2.pred)}
    repaired[SPURIOUS] = sum(c == SPURIOUS and final.get(pair) != SPURIOUS for pair, c in first.items())
    introduced[SPURIOUS] = sum(c == SPURIOUS and first.get(pair) != SPURIOUS for pair, c in final.items())
    return Transitions(repaired, introduced, changed, sorted(changes))


def counts(unit: str, assignment: Assignment) -> list[int]:
    """The count of each of the unit's error classes (:data:`UNIT_CLASSES` order): gold-side classes
    counted on gold pairs, spurious on predictions."""
    out = []
    for c in UNIT_CLASSES[unit]:
        out.append(assignment.pred.count(c) if c == SPURIOUS else assignment.gold.count(c))
    return out

