"""NIKLuge 2022 ``evaluation_f1`` (teddysum/korean_ABSA_baseline), fixed 2022-11-02 and before.

Per sentence (paired by position): for each gold annotation, the first prediction of the
same category decides (category TP if any; pipeline TP if its polarity is the gold's);
for each prediction, the first gold of the same category decides its false positive.
TP are counted on the gold side, FP on the prediction side; no guard against a zero
denominator. Before the fix the found-flags were not reset between predictions. Counted in linear
time per sentence (first matches and repeats looked up by category).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import itemgetter
from typing import TYPE_CHECKING, Any

from aggregator.formats.official.base import Quirk, Scorer, Sentences, by_position
from aggregator.formats.pairing import pair
from aggregator.formats.tally import Tallies, Tally

if TYPE_CHECKING:
    from aggregator.formats.model import Sentence
    from aggregator.formats.nikluge import Item

SOURCE = "teddysum/korean_ABSA_baseline src/sentiment_analysis.py evaluation_f1"
CATEGORY, PIPELINE = "category", "category sentiment"
Ann = tuple[Any, Any]

QUIRKS = (
    Quirk("position_pairing", "sentences are paired by line position; ids are not checked"),
    Quirk("exact_strings", "categories and polarities are compared as exact strings "
                           "(no whitespace or case normalization)"),
    Quirk("polarity_at_index_1", "a prediction in the gold's 3-element form has its polarity read from its "
                                 "[term, start, end] element, so it never matches"),
    Quirk("gold_repeats", "every gold annotation counts, also when its category (and polarity) repeats "
                          "in the sentence"),
    Quirk("pred_repeats", "every prediction counts, also when its category (and polarity) repeats in the sentence: "
                          "a repeated wrong one is another false positive"),
    Quirk("first_match", "only the first annotation of the same category on the other side is checked (order matters)"),
)
STALE = Quirk("stale_flags", "after the first matched prediction of a sentence no later one is a false positive "
                             "(found-flags not reset)")


_category = itemgetter(0)


def _pair(ann: Ann) -> Ann:
    return ann


def _hashable(value: Any) -> Any:
    return tuple(map(_hashable, value)) if isinstance(value, list) else value


def _annotations(sentence: Sentence[Item] | None, gold: bool, quirks: frozenset[str]) -> list[Ann]:
    """(category, polarity) as the scorer reads them under ``quirks``."""
    if sentence is None:
        return []
    out = []
    for typed, item in zip(sentence.tuples, sentence.raw):
        exact = "exact_strings" in quirks
        polarity: Any = item.polarity if exact else typed.polarity
        if not gold and item.size == 3 and "polarity_at_index_1" in quirks:
            polarity = _hashable(item.second)
        out.append((item.category if exact else typed.category, polarity))
    return out


def _once(anns: list[Ann], key: Callable[[Ann], Any]) -> list[Ann]:
    first: dict[Any, Ann] = {}
    for ann in anns:
        first.setdefault(key(ann), ann)
    return list(first.values())


def _matcher(others: list[Ann], key: Callable[[Ann], Any], first: bool) -> Callable[[Ann], bool]:
    """Whether an annotation is matched: by the first same-category annotation of ``others``, or by any."""
    if not first:
        keys = set(map(key, others))
        return lambda ann: key(ann) in keys
    firsts: dict[Any, Any] = {}
    for other in others:
        firsts.setdefault(other[0], key(other))
    return lambda ann: ann[0] in firsts and firsts[ann[0]] == key(ann)


def _unit(gold: list[Ann], pred: list[Ann], key: Callable[[Ann], Any], quirks: frozenset[str]) -> Tally:
    gold = gold if "gold_repeats" in quirks else _once(gold, key)
    pred = pred if "pred_repeats" in quirks else _once(pred, key)
    first = "first_match" in quirks
    tp = sum(map(_matcher(pred, key, first), gold))
    matched = list(map(_matcher(gold, key, first), pred))
    if "stale_flags" in quirks and True in matched:
        matched = matched[: matched.index(True)] + [True] * (len(matched) - matched.index(True))
    return Tally(tp, matched.count(False), len(gold) - tp)


def run(gold: Sentences, pred: Sentences, quirks: frozenset[str]) -> Tallies:
    if "position_pairing" in quirks:
        sentences = by_position(gold, pred[: len(gold)])
    else:
        sentences = [(p.gold, p.pred) for p in pair(list(gold), list(pred))]
    totals = {CATEGORY: Tally(0, 0, 0), PIPELINE: Tally(0, 0, 0)}
    for g, p in sentences:
        gold_anns, pred_anns = _annotations(g, True, quirks), _annotations(p, False, quirks)
        totals[CATEGORY] = totals[CATEGORY].plus(_unit(gold_anns, pred_anns, _category, quirks))
        totals[PIPELINE] = totals[PIPELINE].plus(_unit(gold_anns, pred_anns, _pair, quirks))
    return {(unit, "all"): tally for unit, tally in totals.items()}


def crash(gold: Sentences, pred: Sentences, tallies: Tallies) -> str | None:
    if len(pred) < len(gold):
        return f"IndexError: list index out of range (gold has {len(gold)} lines, the predictions {len(pred)})"
    if any(item.size < 3 for s in gold for item in s.raw):
        return "IndexError: list index out of range (a gold annotation has no polarity at index 2)"
    for unit, what in ((CATEGORY, "category"), (PIPELINE, "pipeline")):
        if tallies[(unit, "all")].tp == 0:
            return f"ZeroDivisionError: division by zero (no {what} true positive)"
    return None


def _repeats(items: Sequence[Any]) -> int:
    return len(items) - len(set(items))


def events(gold: Sentences, pred: Sentences) -> dict[str, int]:
    positions = by_position(gold, pred)
    exact = frozenset({"exact_strings", "polarity_at_index_1"})
    counts = {
        "position_pairing": sum(g is None or p is None or g.key != p.key for g, p in positions),
        "exact_strings": sum(t.category != i.category or t.polarity != i.polarity
                             for s in (*gold, *pred) for t, i in zip(s.tuples, s.raw)),
        "polarity_at_index_1": sum(i.size == 3 for s in pred for i in s.raw),
        "gold_repeats": sum(_repeats([a[0] for a in _annotations(s, True, exact)]) for s in gold),
        "pred_repeats": sum(_repeats([a[0] for a in _annotations(s, False, exact)]) for s in pred),
        "first_match": 0,
        "stale_flags": 0,
    }
    for g, p in positions:
        gold_anns, pred_anns = _annotations(g, True, exact), _annotations(p, False, exact)
        for side, other in ((gold_anns, pred_anns), (pred_anns, gold_anns)):
            distinct: dict[Any, set[Ann]] = {}
            for o in other:
                distinct.setdefault(o[0], set()).add(o)
            counts["first_match"] += sum(len(distinct.get(a[0], ())) > 1 for a in side)
        categories = {g_[0] for g_ in gold_anns}
        matched = next((i for i, a in enumerate(pred_anns) if a[0] in categories), None)
        counts["stale_flags"] += len(pred_anns) - 1 - matched if matched is not None else 0
    return counts


OFFICIAL = Scorer("official", "nikluge", f"{SOURCE} @ 0b8908fb54d7583447774a354eac2c7c5323b19e (fixed 2022-11-02)",
                  QUIRKS, run, crash, events)
PRE_FIX = Scorer("pre_fix_2022_10", "nikluge", f"{SOURCE} @ def5aa1eb02a257a33e56fc96f29509abc637e83 (before the fix)",
                 (*QUIRKS, STALE), run, crash, events, aliases=("nikluge-prefix-2022-10",))
