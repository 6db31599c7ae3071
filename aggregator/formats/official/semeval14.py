"""SemEval-2014 Task 4 ``semeval_base.py`` ``Evaluate``: aspect term extraction and category detection.

Sentences pair by position. Terms: per sentence the (from, to) offsets, as written, of
every predicted term found among the gold's count (no de-duplication); categories:
lower-cased, the predicted ones de-duplicated, the gold ones not. P = common / retrieved
(0 if none), R = common / relevant (no guard), F1 = 2PR / (P + R).
"""

from __future__ import annotations

from typing import Any

from aggregator.formats.model import CharSpan, Element
from aggregator.formats.official.base import Quirk, Scorer, Sentences, by_position
from aggregator.formats.pairing import pair
from aggregator.formats.tally import Tallies, Tally

SOURCE = "SemEval-2014 Task 4 semeval_base.py Evaluate.aspect_extraction / category_detection"
QUIRKS = (
    Quirk("position_pairing", "sentences are paired by position; ids are not checked"),
    Quirk("offset_strings", "offsets are compared as written (04 is not 4)"),
    Quirk("lower_case_categories", "categories are compared lower-cased"),
    Quirk("duplicates", "repeated terms count again on both sides, and repeated gold categories count again"),
)


def _terms(sentence: Any, quirks: frozenset[str]) -> list[Any]:
    if sentence is None:
        return []
    if "offset_strings" in quirks:
        return [(i.start, i.end) for i in sentence.raw if i.kind == "term"]
    return [t.aspect for t in sentence.tuples if t.category is None]


def _categories(sentence: Any, quirks: frozenset[str]) -> list[str]:
    if sentence is None:
        return []
    names = [t.category for t in sentence.tuples if t.category is not None and t.aspect is None]
    return [n.lower() for n in names] if "lower_case_categories" in quirks else names


def run(gold: Sentences, pred: Sentences, quirks: frozenset[str]) -> Tallies:
    if "position_pairing" in quirks:
        sentences = by_position(gold, pred[: len(gold)])
    else:
        sentences = [(p.gold, p.pred) for p in pair(list(gold), list(pred))]
    terms, categories = Tally(0, 0, 0), Tally(0, 0, 0)
    repeats = "duplicates" in quirks
    for g, p in sentences:
        cor, pre = _terms(g, quirks), _terms(p, quirks)
        cor, pre = (cor, pre) if repeats else (list(set(cor)), list(set(pre)))
        terms = terms.plus(Tally.of(sum(a in cor for a in pre), len(pre), len(cor)))
        cor_c, pre_c = _categories(g, quirks), list(set(_categories(p, quirks)))
        cor_c = cor_c if repeats else list(set(cor_c))
        categories = categories.plus(Tally.of(sum(c in cor_c for c in pre_c), len(pre_c), len(cor_c)))
    return {("aspect", "all"): terms, ("category", "all"): categories}


def crash(gold: Sentences, pred: Sentences, tallies: Tallies) -> str | None:
    if len(pred) < len(gold):
        return f"IndexError: list index out of range (gold has {len(gold)} sentences, the predictions {len(pred)})"
    for unit in ("aspect", "category"):
        if tallies[(unit, "all")].tp + tallies[(unit, "all")].fn == 0:
            return f"ZeroDivisionError: float division by zero (no gold {unit} to recall)"
    return None


def _rewritten(aspect: Element | None, item: Any) -> bool:
    """A term whose offsets as written are not the numbers read (``04`` for 4)."""
    return item.kind == "term" and isinstance(aspect, CharSpan) and (item.start, item.end) != (str(aspect.start), str(aspect.end))


def events(gold: Sentences, pred: Sentences) -> dict[str, int]:
    everything = frozenset(q.name for q in QUIRKS)
    sentences = (*gold, *pred)
    return {
        "position_pairing": sum(g is None or p is None or g.key != p.key for g, p in by_position(gold, pred)),
        "offset_strings": sum(_rewritten(t.aspect, i) for s in sentences for t, i in zip(s.tuples, s.raw)),
        "lower_case_categories": sum(c != c.lower() for s in sentences for c in _categories(s, frozenset())),
        "duplicates": sum(len(x) - len(set(x)) for s in sentences
                          for x in (_terms(s, everything), _categories(s, everything))),
    }


OFFICIAL = Scorer("official", "semeval14", SOURCE, QUIRKS, run, crash, events)
