"""NUSTM/ACOS ``measureQuad_imp`` over the 15 element subsets (``pair_eval``, eval_type='test').

Sentences are keyed by their text (lines with one text merged); every subset projection
is de-duplicated per sentence; tp = predicted in gold, fp = n_pred − tp, fn = n_gold − tp,
micro over the file, 0 on zero denominators. A sentence's text types come from its gold
quads: ``all`` if it has any, and each of EA&EO, IA&EO, EA&IO, IA&IO it holds; a breakdown
counts every quad of the sentences of its type. A predicted text missing from gold raises
KeyError.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aggregator.formats.official.base import Quirk, Scorer, Sentences
from aggregator.formats.pairing import pair
from aggregator.formats.sound import by_type, counts, type_counts
from aggregator.formats.tally import Tallies, Tally
from aggregator.formats.units import ALL, TYPES, subsets, tuple_type

if TYPE_CHECKING:
    from aggregator.formats.model import AbsaTuple

UNITS = subsets("category", "sentiment", "aspect", "opinion", complete=True)
SOURCE = "NUSTM/ACOS Extract-Classify-ACOS/eval_metrics.py measureQuad_imp @ 45d179a3dcc6a3dedd848d81b16f2552454805fe"

QUIRKS = (
    Quirk("empty_gold_ignored", "a gold sentence without quads has no text type, so its predicted quads are not "
                                "counted, not even as false positives"),
    Quirk("whole_sentence_types", "a type breakdown (EA&EO, IA&EO, EA&IO, IA&IO) counts every quad of each sentence "
                                  "holding one quad of that type"),
)


def run(gold: Sentences, pred: Sentences, quirks: frozenset[str]) -> Tallies:
    sums: dict[tuple[str, str], list[float]] = {(u.name, b): [0.0, 0.0, 0.0] for u in UNITS for b in (*TYPES, ALL)}

    def add(key: tuple[str, str], tally: Tally) -> None:
        into = sums[key]
        into[0] += tally.tp
        into[1] += tally.fp
        into[2] += tally.fn

    for sentence in pair(list(gold), list(pred)):
        g: tuple[AbsaTuple, ...] = sentence.gold.tuples if sentence.gold is not None else ()
        p: tuple[AbsaTuple, ...] = sentence.pred.tuples if sentence.pred is not None else ()
        if not g and "empty_gold_ignored" in quirks:
            continue
        gold_by, pred_by = by_type(g), by_type(p)
        for unit in UNITS:
            whole = counts(unit, g, p)
            add((unit.name, ALL), whole)
            if "whole_sentence_types" in quirks:
                for kind in gold_by:
                    add((unit.name, kind), whole)
            else:
                for kind, tally in type_counts(unit, gold_by, pred_by):
                    add((unit.name, kind), tally)
    return {key: Tally(*values) for key, values in sums.items()}


def crash(gold: Sentences, pred: Sentences, tallies: Tallies) -> str | None:
    known = {s.key for s in gold}
    unknown = [s for s in pred if s.key not in known]
    if not unknown:
        return None
    return f"KeyError: line {unknown[0].line} of the predictions: its sentence is not in the gold ({len(unknown)} such)"


def events(gold: Sentences, pred: Sentences) -> dict[str, int]:
    """Predicted quads in sentences without gold quads; sentences whose breakdowns differ from their types' quads."""
    with_quads = {s.key for s in gold if s.tuples}
    mixed = 0
    for sentence in pair(list(gold), list(pred)):
        g = sentence.gold.tuples if sentence.gold is not None else ()
        p = sentence.pred.tuples if sentence.pred is not None else ()
        mixed += len({tuple_type(t) for t in (*g, *p)}) > 1 or (not g and bool(p))
    return {"empty_gold_ignored": sum(len(s.tuples) for s in pred if s.key not in with_quads),
            "whole_sentence_types": mixed}


OFFICIAL = Scorer("official", "acos", SOURCE, QUIRKS, run, crash, events)
