"""How each tuple of a sample fares under a unit: matched, not matched, or outside the unit.

A unit compares projections of tuples, not whole tuples: under the surface unit a final tuple
whose ref is wrong still matches gold when its term and polarity do; under the GoldUnit a
tuple with no ref has no pair at all. The report's sample table and ``aggregate samples`` mark
each tuple by its own pair under the selected unit:

- ``m``: its pair is one the unit counts as a true positive (:attr:`~aggregator.units.projection.Unit.matched`);
  for a gold tuple, found by the final stage;
- ``x``: it has a pair, not matched (a false positive; for gold, a false negative);
- ``-``: it has no pair under the unit (no ref under refpol, no ``#attribute`` under attrpol).

A stage-1 tuple whose pair the final stage no longer has (dropped by the review under the
unit), and a final tuple whose pair stage 1 did not have (added), get ``M`` or ``X`` instead.
Marks are one character per tuple, in the order of the per-sample table's tuple text.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import msgspec

from scorecards.tuples import EvalTuple

if TYPE_CHECKING:
    import polars as pl

    from aggregator.units.projection import Pair, Unit

MATCHED, UNMATCHED, OUTSIDE = "m", "x", "-"
CHANGED = {MATCHED: "M", UNMATCHED: "X", OUTSIDE: OUTSIDE}
STAGES = ("gold", "s1", "s2")
_TRIPLES = msgspec.json.Decoder(list[EvalTuple])


def tuples_of(text: str) -> list[EvalTuple]:
    """A per-sample tuple column's JSON text as EvalTuples, in its order."""
    return _TRIPLES.decode(text)


class _Marker:
    """Marks under one unit. A unit projects each tuple on its own, so a set's pairs are its
    tuples' pairs; each distinct tuple's pair is computed once."""

    def __init__(self, unit: Unit) -> None:
        self.unit = unit
        self._pairs: dict[EvalTuple, Pair | None] = {}

    def pairs(self, tuples: Sequence[EvalTuple]) -> list[Pair | None]:
        known, project = self._pairs, self.unit.project
        out = []
        for t in tuples:
            if t not in known:
                known[t] = next(iter(project((t,))), None)
            out.append(known[t])
        return out

    def sample(self, gold: Sequence[EvalTuple], s1: Sequence[EvalTuple], s2: Sequence[EvalTuple]) -> tuple[str, str, str]:
        pairs = [self.pairs(tuples) for tuples in (gold, s1, s2)]
        gold_set, s1_set, s2_set = (frozenset(p for p in stage if p is not None) for stage in pairs)
        s1_matched, _ = self.unit.matched(s1_set, gold_set)
        s2_matched, gold_matched = self.unit.matched(s2_set, gold_set)
        return (
            _marks(pairs[0], gold_matched, None),
            _marks(pairs[1], s1_matched, s2_set),
            _marks(pairs[2], s2_matched, s1_set),
        )


def _marks(pairs: Sequence[Pair | None], matched: frozenset[Pair], other_stage: frozenset[Pair] | None) -> str:
    out = []
    for p in pairs:
        mark = OUTSIDE if p is None else MATCHED if p in matched else UNMATCHED
        out.append(mark if other_stage is None or p is None or p in other_stage else CHANGED[mark])
    return "".join(out)


def sample_marks(unit: Unit, gold: Sequence[EvalTuple], s1: Sequence[EvalTuple], s2: Sequence[EvalTuple]) -> tuple[str, str, str]:
    """Marks of the gold (against the final stage), stage-1 and final tuples of one sample."""
    return _Marker(unit).sample(gold, s1, s2)


def all_marks(table: pl.DataFrame, units: Sequence[Unit]) -> dict[str, dict[str, list[str]]]:
    """``{unit: {"gold" | "s1" | "s2": [marks of each sample]}}`` for a per-sample table.

    Each sample's tuple text is decoded once for all units; samples with the same three tuple
    texts share one computation (e.g. empty finals).
    """
    markers = [_Marker(unit) for unit in units]
    out: dict[str, dict[str, list[str]]] = {unit.name: {stage: [] for stage in STAGES} for unit in units}
    seen: dict[tuple[str, str, str], list[tuple[str, str, str]]] = {}
    for texts in table.select("gold_tuples", "stage1_tuples", "final_tuples").iter_rows():
        marks = seen.get(texts)
        if marks is None:
            decoded = [tuples_of(text) for text in texts]
            marks = seen[texts] = [marker.sample(*decoded) for marker in markers]
        for unit, unit_marks in zip(units, marks):
            for stage, mark in zip(STAGES, unit_marks):
                out[unit.name][stage].append(mark)
    return out
