"""Each tuple's error class, for showing samples: the class of the pair it projects to under a unit.

Gold tuples take their pair's class against the final stage (as the marks of
:mod:`aggregator.units.sample_marks` do), stage-1 and final tuples their pair's class at their
stage; a tuple without a pair under the unit (no ref under refpol) has None. Tuples are those
of the per-sample table's tuple text, in its order.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from aggregator.units.error_anatomy import classify, unit_items
from aggregator.units.projection import UNITS

if TYPE_CHECKING:
    from aggregator.units.error_anatomy import Item
    from aggregator.units.projection import Pair
    from scorecards.tuples import EvalTuple

Classes = list[str | None]


def _by_pair(found: Sequence[str], listed: Sequence[Item]) -> dict[Pair, str]:
    return {item.pair: cls for item, cls in zip(listed, found)}


def tuple_classes(unit: str, gold: Sequence[EvalTuple], s1: Sequence[EvalTuple],
                  s2: Sequence[EvalTuple]) -> tuple[Classes, Classes, Classes]:
    """The class of every gold (against the final stage), stage-1 and final tuple under ``unit``."""
    project = UNITS[unit].project
    gold_items, first_items, final_items = (unit_items(unit, tuples) for tuples in (gold, s1, s2))
    first = classify(unit, gold_items, first_items)
    final = classify(unit, gold_items, final_items)
    tables = (_by_pair(final.gold, gold_items), _by_pair(first.pred, first_items), _by_pair(final.pred, final_items))
    out: list[Classes] = []
    for tuples, table in zip((gold, s1, s2), tables):
        pairs = [next(iter(project((t,))), None) for t in tuples]
        out.append([None if pair is None else table[pair] for pair in pairs])
    return out[0], out[1], out[2]
