"""``aggregate score --errors``: the error anatomy of a format's main units, with the format's elements.

Per sentence and main unit, the unit's values of gold and prediction (the sets sound scoring
compares, :mod:`aggregator.formats.sound`) are classified as scorecards are
(:mod:`aggregator.units.error_classes`): exact (the sound tp), then, each only when the unit has
the fields it needs,

- polarity: every other field equal, another sentiment;
- category: aspect and opinion equal, another category (sentiment may differ);
- aspect_boundary: aspects overlap but differ, the opinion equal or overlapping;
- opinion_boundary: the aspect equal, opinions overlap but differ (ASTE's opinion-term boundary);
- implicit: one side's aspect or opinion implicit (NULL) where the other's is explicit, the other element
  equal or overlapping;

then spurious and missed. Two elements overlap when they share at least half of the shorter one
(:data:`~aggregator.units.error_classes.BOUNDARY_THRESHOLD`): tokens of token spans and token lists,
characters of character spans and of terms given as text. Category, boundary and implicit prefer a
prediction of the same sentiment, boundary then the larger overlap. Gold classes sum to the sound
tp + fn and prediction classes to tp + fp, sentence by sentence and over the file.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aggregator.formats.model import CharSpan, Implicit, TokenList, TokenSpan, Words
from aggregator.units.error_classes import (
    BOUNDARY_THRESHOLD,
    CATEGORY,
    EXACT,
    IMPLICIT,
    MISSED,
    POLARITY,
    SPURIOUS,
    assign,
    term_overlap,
)

if TYPE_CHECKING:
    from aggregator.formats.evaluate import Evaluation
    from aggregator.formats.units import Key, Unit

ASPECT_BOUNDARY, OPINION_BOUNDARY = "aspect_boundary", "opinion_boundary"
ELEMENTS = ("aspect", "opinion")
EQUAL, OVERLAP, IMPLICIT_MISMATCH, OTHER = range(4)


def classes_of(unit: Unit) -> tuple[str, ...]:
    """The paired classes a unit's fields allow, in precedence order."""
    fields = set(unit.fields)
    elements = fields & set(ELEMENTS)
    out = []
    if "sentiment" in fields and len(fields) > 1:
        out.append(POLARITY)
    if "category" in fields and elements:
        out.append(CATEGORY)
    if "aspect" in fields:
        out.append(ASPECT_BOUNDARY)
    if "opinion" in fields:
        out.append(OPINION_BOUNDARY)
    if elements:
        out.append(IMPLICIT)
    return tuple(out)


def element_overlap(a: object, b: object) -> float:
    """The share of the shorter element the two have in common (0.0 for elements of different kinds)."""
    if isinstance(a, (TokenSpan, CharSpan)) and isinstance(b, (TokenSpan, CharSpan)) and type(a) is type(b):
        common = min(a.end, b.end) - max(a.start, b.start)
        shorter = min(a.end - a.start, b.end - b.start)
        return max(common, 0) / shorter if shorter > 0 else 0.0
    if isinstance(a, TokenList) and isinstance(b, TokenList):
        shorter = min(len(set(a.indices)), len(set(b.indices)))
        return len(set(a.indices) & set(b.indices)) / shorter if shorter else 0.0
    if isinstance(a, Words) and isinstance(b, Words):
        return term_overlap(a.text, b.text)
    return 0.0


def element_relation(a: object, b: object) -> tuple[int, float]:
    """EQUAL, OVERLAP (with its share), IMPLICIT_MISMATCH (one implicit, one explicit) or OTHER."""
    if a == b:
        return EQUAL, 1.0
    if isinstance(a, Implicit) != isinstance(b, Implicit):
        return IMPLICIT_MISMATCH, 0.0
    share = element_overlap(a, b)
    return (OVERLAP, share) if share >= BOUNDARY_THRESHOLD else (OTHER, 0.0)


@dataclass(frozen=True)
class Ladder:
    """How one unit's values are related: where each field sits in a value, and its classes."""

    unit: Unit
    classes: tuple[str, ...]

    def field(self, value: Key, name: str) -> object:
        return value[self.unit.fields.index(name)] if name in self.unit.fields else None

    def relate(self, gold: Key, pred: Key) -> tuple[float | None, ...]:
        same = 0.5 if self.field(gold, "sentiment") == self.field(pred, "sentiment") else 0.0
        aspect = element_relation(self.field(gold, "aspect"), self.field(pred, "aspect"))
        opinion = element_relation(self.field(gold, "opinion"), self.field(pred, "opinion"))
        category_equal = self.field(gold, "category") == self.field(pred, "category")
        kinds = (aspect[0], opinion[0])
        scores: dict[str, float | None] = {}
        if POLARITY in self.classes:
            scores[POLARITY] = 0.0 if category_equal and kinds == (EQUAL, EQUAL) else None
        scores[CATEGORY] = same if not category_equal and kinds == (EQUAL, EQUAL) else None
        scores[ASPECT_BOUNDARY] = (same + 0.4 * aspect[1]
                                   if aspect[0] == OVERLAP and opinion[0] in (EQUAL, OVERLAP) else None)
        scores[OPINION_BOUNDARY] = same + 0.4 * opinion[1] if aspect[0] == EQUAL and opinion[0] == OVERLAP else None
        elements_close = all(k in (EQUAL, OVERLAP, IMPLICIT_MISMATCH) for k in kinds)
        scores[IMPLICIT] = same if IMPLICIT_MISMATCH in kinds and elements_close else None
        return tuple(scores[c] for c in self.classes)


def _order(value: object) -> tuple[Any, ...]:
    """A sort key for unit values whose fields mix kinds (None, IMPLICIT, spans, texts)."""
    if value is None:
        return (0,)
    if isinstance(value, Implicit):
        return (1,)
    if isinstance(value, str):
        return (3, value)
    if isinstance(value, tuple):  # spans, token lists, words: named tuples of one kind per field
        return (2, type(value).__name__, tuple(value))
    return (4, repr(value))


def sentence_classes(ladder: Ladder, gold: Sequence[Any], pred: Sequence[Any]) -> tuple[list[str], list[str]]:
    """The class of every gold and predicted value of one sentence under ``ladder.unit``."""
    def key(value: Key) -> tuple[Any, ...]:
        return tuple(_order(v) for v in value)

    gold_values = sorted(ladder.unit.project(gold), key=key)
    pred_values = sorted(ladder.unit.project(pred), key=key)
    where = {v: j for j, v in enumerate(pred_values)}
    exact = [(i, where[v]) for i, v in enumerate(gold_values) if v in where]
    found = assign(gold_values, pred_values, exact, ladder.classes, ladder.relate)
    return found.gold, found.pred


def anatomy(evaluation: Evaluation) -> dict[str, dict[str, Any]]:
    """Per main unit (its ``--json`` name): the class counts over the file, the totals, and the sound tp/fp/fn they add up to."""
    out = {}
    for name, unit_name in evaluation.spec.main.items():
        unit = next(u for u in evaluation.spec.units if u.name == unit_name)
        ladder = Ladder(unit, classes_of(unit))
        order = (EXACT, *ladder.classes, SPURIOUS, MISSED)
        counts = dict.fromkeys(order, 0)
        for pair in evaluation.pairs:
            gold = pair.gold.tuples if pair.gold is not None else ()
            pred = pair.pred.tuples if pair.pred is not None else ()
            gold_classes, pred_classes = sentence_classes(ladder, gold, pred)
            for cls in gold_classes:
                counts[cls] += 1
            counts[SPURIOUS] += pred_classes.count(SPURIOUS)
        n_gold = sum(n for c, n in counts.items() if c != SPURIOUS)
        n_pred = sum(n for c, n in counts.items() if c != MISSED)
        tally = evaluation.sound.totals[(unit_name, "all")]
        out[name] = {
            "unit": unit_name, "classes": counts, "gold": n_gold, "pred": n_pred,
            "per_gold": {c: (n / n_gold if n_gold else None) for c, n in counts.items() if c != SPURIOUS},
            "per_pred": {c: (n / n_pred if n_pred else None) for c, n in counts.items() if c != MISSED},
            "sound": {"tp": tally.tp, "fp": tally.fp, "fn": tally.fn},
        }
    return out


def anatomy_lines(found: dict[str, dict[str, Any]]) -> list[str]:
    """The anatomy as summary lines: per main unit the classes with their counts and shares."""
    lines = [f"  error anatomy (sound sets, per sentence; boundary: ≥ {BOUNDARY_THRESHOLD:.0%} of the shorter "
             "element shared; docs/errors.md)"]
    for name, block in found.items():
        sound = block["sound"]
        lines.append(f"    {name} ({block['unit']}): {block['gold']} gold = tp + fn = {sound['tp']:g} + {sound['fn']:g}; "
                     f"{block['pred']} predicted = tp + fp = {sound['tp']:g} + {sound['fp']:g}")
        for cls, n in block["classes"].items():
            shares = [f"{block[side][cls]:.4f} of {what}" for side, what in (("per_gold", "gold"), ("per_pred", "predicted"))
                      if block[side].get(cls) is not None]
            lines.append(f"      {cls:<17}{n:>6}  " + ", ".join(shares))
    return lines
