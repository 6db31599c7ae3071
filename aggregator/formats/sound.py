"""Sound scoring: per-sentence sets, duplicates once, an empty prediction is no tuple, micro over the file.

For each unit u and sentence: G = u(gold tuples), P = u(predicted tuples) as sets;
tp = |G ∩ P|, fp = |P − G|, fn = |G − P|, summed over the sentences. Hence tp ≤ every
denominator and P, R, F1 ≤ 1, and neither order nor repeats change a number. Sentences
pair by key (:mod:`aggregator.formats.pairing`): a predicted sentence unknown to gold
adds false positives, a gold sentence without prediction false negatives.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from aggregator.formats.model import AbsaTuple
from aggregator.formats.pairing import Pair
from aggregator.formats.tally import Tallies, Tally
from aggregator.formats.units import ALL, TYPES, Unit, tuple_type


@dataclass(frozen=True)
class SoundResult:
    """Per-sentence counts (one :class:`Tally` per unit, breakdown ``all``) and the file's totals."""

    units: tuple[Unit, ...]
    rows: list[tuple[Pair[object], tuple[Tally, ...]]]
    totals: Tallies


def counts(unit: Unit, gold: Sequence[AbsaTuple], pred: Sequence[AbsaTuple]) -> Tally:
    """tp, fp, fn of one sentence under one unit."""
    g, p = unit.project(gold), unit.project(pred)
    tp = len(g & p)
    return Tally(tp, len(p) - tp, len(g) - tp)


def _add(totals: dict[tuple[str, str], list[int]], key: tuple[str, str], tally: Tally) -> None:
    sums = totals.setdefault(key, [0, 0, 0])
    sums[0] += tally.tp
    sums[1] += tally.fp
    sums[2] += tally.fn


def score(pairs: Sequence[Pair[object]], units: tuple[Unit, ...], *, breakdowns: bool = False) -> SoundResult:
    """Sound counts of every unit; with ``breakdowns``, also per explicit/implicit type (only that type's tuples)."""
    totals: dict[tuple[str, str], list[int]] = {}
    rows = []
    for pair in pairs:
        gold = pair.gold.tuples if pair.gold is not None else ()
        pred = pair.pred.tuples if pair.pred is not None else ()
        row = tuple(counts(unit, gold, pred) for unit in units)
        rows.append((pair, row))
        for unit, tally in zip(units, row):
            _add(totals, (unit.name, ALL), tally)
        if breakdowns:
            for kind in TYPES:
                gold_of = [t for t in gold if tuple_type(t) == kind]
                pred_of = [t for t in pred if tuple_type(t) == kind]
                for unit in units:
                    _add(totals, (unit.name, kind), counts(unit, gold_of, pred_of))
    return SoundResult(units, rows, {key: Tally(*sums) for key, sums in totals.items()})
