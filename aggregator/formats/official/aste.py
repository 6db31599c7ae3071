"""ASTE scorers over token indices: Span-ASTE ``SpanModel.score`` (the oracle) and GTS ``score_uniontags``.

Span-ASTE: a triplet is (a[0], a[-1], o[0], o[-1], tag); per sentence (paired by line)
every equal (prediction, gold) pair is a hit; P = hits / n_pred, R = hits / n_gold.
GTS: per-sentence sets of the same keys; P = |G ∩ P| / |P|, R = |G ∩ P| / |G|.
Counted in linear time per sentence (keys counted, not pairs compared; the same numbers, tested).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from aggregator.formats.model import TokenList
from aggregator.formats.official.base import Quirk, Scorer, Sentences, by_position, length_crash, never
from aggregator.formats.tally import Tallies, Tally

TRIPLET = "sentiment aspect opinion"
ENDPOINTS = Quirk("endpoint_spans", "a span is its first and last index only: [3,4,5], [3,5] and [3,9,5] are one span")
MULTIPLY = Quirk("pair_multiplication", "every equal (prediction, gold) pair is a hit: repeated triplets on either "
                                        "side multiply, and count in the totals")


def keys(sentence: Any, quirks: frozenset[str]) -> list[tuple[object, ...]]:
    """The triplets of a sentence as the scorer compares them."""
    if sentence is None:
        return []
    if "endpoint_spans" in quirks:
        return [(i.aspect[0], i.aspect[-1], i.opinion[0], i.opinion[-1], i.label) for i in sentence.raw]
    return [(t.aspect, t.opinion, t.polarity) for t in sentence.tuples]


def run(gold: Sentences, pred: Sentences, quirks: frozenset[str]) -> Tallies:
    hits = n_pred = n_gold = 0
    for g, p in by_position(gold, pred):
        gold_keys, pred_keys = keys(g, quirks), keys(p, quirks)
        if "pair_multiplication" in quirks:  # every equal (prediction, gold) pair: Σ over keys of n_pred · n_gold
            in_gold = Counter(gold_keys)
            hits += sum(in_gold[key] for key in pred_keys)
            n_pred, n_gold = n_pred + len(pred_keys), n_gold + len(gold_keys)
        else:
            hits += len(set(pred_keys) & set(gold_keys))
            n_pred, n_gold = n_pred + len(set(pred_keys)), n_gold + len(set(gold_keys))
    return {(TRIPLET, "all"): Tally.of(hits, n_pred, n_gold)}


def events(gold: Sentences, pred: Sentences) -> dict[str, int]:
    sentences = (*gold, *pred)
    endpoints = frozenset({"endpoint_spans"})
    return {
        "endpoint_spans": sum(isinstance(t.aspect, TokenList) or isinstance(t.opinion, TokenList)
                              for s in sentences for t in s.tuples),
        "pair_multiplication": sum(len(k) - len(set(k)) for s in sentences for k in [keys(s, endpoints)]),
    }


def crash(gold: Sentences, pred: Sentences, tallies: Tallies) -> str | None:
    return length_crash(gold, pred)


SPAN_ASTE = Scorer("official", "aste", "chiayewken/Span-ASTE aste/wrapper.py SpanModel.score @ "
                   "b252f8b1e4026de26838f00de6257a0849951e67", (ENDPOINTS, MULTIPLY), run, crash, events)
GTS = Scorer("gts_score_uniontags", "aste", "NJUNLP/GTS code/BertModel/utils.py Metric.score_uniontags "
             "(triplets fed in directly)", (ENDPOINTS,), run, never, events, aliases=("aste-gts",))
