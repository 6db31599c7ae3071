"""The compat report: which of a scorer's quirks changed its number on this input, how often, by how much.

Starting from the sound counts (what every scorer gives with no quirk switched on, as the
tests prove), the scorer's quirks are switched on one at a time in their declared order,
ending at the scorer itself. A quirk's effect is the change of precision, recall and F1 of
each main unit when it is switched on, so the effects add up to official − sound. A quirk
that concerns nothing in the input (count 0) changes nothing and is not run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from aggregator.formats.tally import Scores, Tallies

if TYPE_CHECKING:
    from aggregator.formats.official.base import Quirk, Scorer, Sentences

ALL = "all"


@dataclass(frozen=True)
class Step:
    """One quirk switched on: how many input items it concerns and its effect per main unit."""

    quirk: Quirk
    count: int
    effect: dict[str, Scores]

    @property
    def changed(self) -> bool:
        return any(any(delta != 0 for delta in scores) for scores in self.effect.values())


def delta(after: Scores, before: Scores) -> Scores:
    return Scores(*(a - b for a, b in zip(after, before)))


def _main(tallies: Tallies, main: dict[str, str]) -> dict[str, Scores]:
    return {key: tallies[(unit, ALL)].scores() for key, unit in main.items()}


def ladder(scorer: Scorer, gold: Sentences, pred: Sentences, main: dict[str, str], sound: Tallies,
           *, skip_unused: bool = True) -> tuple[Tallies, list[Step]]:
    """The scorer's own tallies and one :class:`Step` per quirk (``skip_unused=False`` runs every step)."""
    events = scorer.events(gold, pred)
    on: frozenset[str] = frozenset()
    before = _main(sound, main)
    tallies: Tallies | None = None
    steps = []
    for quirk in scorer.quirks:
        on = on | {quirk.name}
        count = events.get(quirk.name, 0)
        if count == 0 and skip_unused:
            steps.append(Step(quirk, 0, {key: Scores(0.0, 0.0, 0.0) for key in main}))
            tallies = None
            continue
        tallies = scorer.run(gold, pred, on)
        after = _main(tallies, main)
        steps.append(Step(quirk, count, {key: delta(after[key], before[key]) for key in main}))
        before = after
    return (tallies if tallies is not None else scorer.run(gold, pred, on)), steps
