"""ABSA-QUAD ``compute_scores`` (the paraphrase round trip) and its tuple-level ``compute_f1_scores``.

Each quad list becomes ``"{cat} is {great|bad|ok} because {aspect|it} is {opinion}"``
pieces joined by ``" [SSEP] "``, then is split back (pieces stripped; `` because `` and
`` is `` must split in two, else ``('', '', '', '')``; aspect ``it`` is ``NULL``). Every
predicted quad found in the gold list is a hit, repeats included; P = hits / n_pred,
R = hits / n_gold. The tuple-level variant compares the quads as written. Linear time per sentence.
"""

from __future__ import annotations

from typing import Any

from aggregator.formats.model import words
from aggregator.formats.official.base import Quirk, Scorer, Sentences, by_position, length_crash
from aggregator.formats.tally import Tallies, Tally

QUAD = "category sentiment aspect opinion"
OPINION_WORD = {"positive": "great", "negative": "bad", "neutral": "ok"}
Quad = tuple[Any, ...]

QUIRKS = (
    Quirk("duplicates", "repeated quads are kept: each repeated prediction found in gold is another hit, "
                        "and repeats count in the totals"),
    Quirk("exact_strings", "terms and categories are compared as exact strings (inner and edge whitespace counts)"),
    Quirk("paraphrase_round_trip", "quads go through the paraphrase string and back: a predicted 'it' aspect is "
                                   "NULL, edge whitespace of category and opinion is dropped, a term containing "
                                   "' is ' or ' because ' becomes ('', '', '', '')"),
    Quirk("empty_junk", "an empty list becomes one ('', '', '', '') quad, which an empty gold matches"),
)


def paraphrase(quads: list[Any]) -> str:
    """``get_para_asqp_targets`` of one sentence (an unknown sentiment, where it raises KeyError, kept as is)."""
    pieces = []
    for aspect, category, sentiment, opinion in quads:
        aspect = "it" if aspect == "NULL" else aspect
        pieces.append(f"{category} is {OPINION_WORD.get(sentiment, sentiment)} because {aspect} is {opinion}")
    return " [SSEP] ".join(pieces)


def parse(target: str) -> list[Quad]:
    """``extract_spans_para('asqp', ...)``: (category, aspect, opinion word, opinion) per piece."""
    quads: list[Quad] = []
    for piece in (s.strip() for s in target.split("[SSEP]")):
        try:
            category_sentiment, aspect_opinion = piece.split(" because ")
            category, sentiment = category_sentiment.split(" is ")
            aspect, opinion = aspect_opinion.split(" is ")
        except ValueError:
            quads.append(("", "", "", ""))
            continue
        quads.append((category, "NULL" if aspect.lower() == "it" else aspect, sentiment, opinion))
    return quads


def side(sentence: Any, quirks: frozenset[str]) -> list[Quad]:
    if sentence is None:
        return []
    if "exact_strings" not in quirks:
        return [(t.category, t.aspect, t.polarity, t.opinion) for t in sentence.tuples]
    if "paraphrase_round_trip" in quirks and (sentence.raw or "empty_junk" in quirks):
        return parse(paraphrase(list(sentence.raw)))
    return [(i.category, i.aspect, i.sentiment, i.opinion) for i in sentence.raw]


def run(gold: Sentences, pred: Sentences, quirks: frozenset[str]) -> Tallies:
    hits = n_pred = n_gold = 0
    for g, p in by_position(gold, pred):
        gold_quads, pred_quads = side(g, quirks), side(p, quirks)
        if "duplicates" not in quirks:
            gold_quads, pred_quads = list(set(gold_quads)), list(set(pred_quads))
        found = set(gold_quads)
        hits += sum(q in found for q in pred_quads)
        n_pred, n_gold = n_pred + len(pred_quads), n_gold + len(gold_quads)
    return {(QUAD, "all"): Tally.of(hits, n_pred, n_gold)}


def crash(gold: Sentences, pred: Sentences, tallies: Tallies) -> str | None:
    for sentence in (*gold, *pred):
        for item in sentence.raw:
            if item.sentiment not in OPINION_WORD:
                return (f"KeyError: {item.sentiment!r} (line {sentence.line}: "
                        "sentiment is not positive, negative or neutral)")
    return length_crash(gold, pred)


def _changed(after: list[Quad], before: list[Quad]) -> int:
    """How many quads differ, position by position (and how many appeared or vanished)."""
    return sum(a != b for a, b in zip(after, before)) + abs(len(after) - len(before))


def events(gold: Sentences, pred: Sentences) -> dict[str, int]:
    sentences = (*gold, *pred)
    raw, through = frozenset({"exact_strings"}), frozenset({"exact_strings", "paraphrase_round_trip"})
    return {
        "duplicates": sum(len(s.raw) - len(set(side(s, frozenset()))) for s in sentences),
        "exact_strings": sum(any(x != words(x) for x in (i.aspect, i.category, i.opinion)) or i.sentiment != t.polarity
                             for s in sentences for t, i in zip(s.tuples, s.raw)),
        "paraphrase_round_trip": sum(_changed(side(s, through), [(c, a, OPINION_WORD.get(p, p), o)
                                                                 for c, a, p, o in side(s, raw)])
                                     for s in sentences if s.raw),
        "empty_junk": sum(not s.raw for s in sentences),
    }


OFFICIAL = Scorer("official", "asqp", "IsakZhang/ABSA-QUAD eval_utils.compute_scores (paraphrase round trip) @ "
                  "ce4d4a51fc5b1abf67a315e8d15296880af3c326", QUIRKS, run, crash, events)
TUPLE_LEVEL = Scorer("tuple_level_compute_f1_scores", "asqp", "IsakZhang/ABSA-QUAD eval_utils.compute_f1_scores on "
                     "the quads as written @ ce4d4a51", QUIRKS[:2], run, lambda g, p, t: length_crash(g, p), events,
                     aliases=("asqp-tuple-level",))
