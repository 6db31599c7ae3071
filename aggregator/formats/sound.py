"""Sound scoring: per-sentence sets, duplicates once, an empty prediction is no tuple, micro over the file.

For each unit u and sentence: G = u(gold tuples), P = u(predicted tuples) as sets;
tp = |G ∩ P|, fp = |P − G|, fn = |G − P|, summed over the sentences. Hence tp ≤ every
denominator and P, R, F1 ≤ 1, and neither order nor repeats change a number. Sentences
pair by key (:mod:`aggregator.formats.pairing`): a predicted sentence unknown to gold
adds false positives, a gold sentence without prediction false negatives.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aggregator.formats.tally import Tallies, Tally
from aggregator.formats.units import ALL, TYPES, Unit, tuple_type

if TYPE_CHECKING:
    from aggregator.formats.model import AbsaTuple
    from aggregator.formats.pairing import Pair


@dataclass(frozen=True)
class SoundResult:
    """Per-sentence counts (one :class:`Tally` per unit, breakdown ``all``) and the file's totals."""

    units: tuple[Unit, ...]
    rows: list[tuple[Pair[object], tuple[Tally, ...]]]
    totals: Tallies


def counts(unit: Unit, gold: Sequence[AbsaTuple], pred: Sequence[AbsaTuple]) -> Tally:
    """tp, fp, fn of one sentence under one unit."""
    if gold == pred:
        return Tally(len(unit.project(gold)), 0, 0)
    g, p = unit.project(gold), unit.project(pred)
    tp = len(g & p)
    return Tally(tp, len(p) - tp, len(g) - tp)


def by_type(tuples: Sequence[AbsaTuple]) -> dict[str, list[AbsaTuple]]:
    """The tuples grouped by explicit/implicit type (only the types present)."""
    groups: dict[str, list[AbsaTuple]] = {}
    for item in tuples:
        groups.setdefault(tuple_type(item), []).append(item)
    return groups


def type_counts(unit: Unit, gold: dict[str, list[AbsaTuple]],
                pred: dict[str, list[AbsaTuple]]) -> Iterator[tuple[str, Tally]]:
    """Per type present on either side, the counts of that type's tuples alone (other types count 0)."""
    for kind in TYPES:
        if kind in gold or kind in pred:
            yield kind, counts(unit, gold.get(kind, ()), pred.get(kind, ()))


def _add(totals: dict[tuple[str, str], list[float]], key: tuple[str, str], tally: Tally) -> None:
    sums = totals.setdefault(key, [0, 0, 0])
    sums[0] += tally.tp
    sums[1] += tally.fp
    sums[2] += tally.fn


def score(pairs: Sequence[Pair[object]], units: tuple[Unit, ...], *, breakdowns: Collection[str] = ()) -> SoundResult:
    """Sound counts of every unit; for the units named in ``breakdowns``, also per explicit/implicit type
    (only that type's tuples)."""
    broken_down = [unit for unit in units if unit.name in breakdowns]
    totals: dict[tuple[str, str], list[float]] = {}
    rows = []
    for pair in pairs:
        gold = pair.gold.tuples if pair.gold is not None else ()
        pred = pair.pred.tuples if pair.pred is not None else ()
        row = tuple(counts(unit, gold, pred) for unit in units)
        rows.append((pair, row))
        for unit, tally in zip(units, row):
            _add(totals, (unit.name, ALL), tally)
        if broken_down:
            gold_by, pred_by = by_type(gold), by_type(pred)
            for unit in broken_down:
                for kind, tally in type_counts(unit, gold_by, pred_by):
                    _add(totals, (unit.name, kind), tally)
    keys = [(unit.name, kind) for unit in units for kind in ((ALL, *TYPES) if unit in broken_down else (ALL,))]
    return SoundResult(units, rows, {key: Tally(*totals.get(key, (0, 0, 0))) for key in keys})
