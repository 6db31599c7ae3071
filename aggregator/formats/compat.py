"""The compat report: which of a scorer's quirks changed its number on this input, how often, by how much.

The scorer runs with no quirk (the sound counts), then with its quirks switched on one at
a time in their declared order, ending at the scorer itself. A quirk's effect is the
change of precision, recall and F1 (of each main unit) when it is switched on; the effects
add up to official − sound, with ``residual``: what no quirk explains (the scorer with
no quirk − sound), zero unless the two pair sentences in a way no quirk names.
"""

from __future__ import annotations

from dataclasses import dataclass

from aggregator.formats.official.base import Quirk, Scorer, Sentences
from aggregator.formats.tally import Scores, Tallies

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


def ladder(scorer: Scorer, gold: Sentences, pred: Sentences, main: dict[str, str],
           sound: Tallies) -> tuple[Tallies, list[Step], dict[str, Scores]]:
    """The scorer's own tallies, one :class:`Step` per quirk, and the residual per main unit."""
    events = scorer.events(gold, pred)
    on: frozenset[str] = frozenset()
    tallies = scorer.run(gold, pred, on)
    before = _main(tallies, main)
    residual = {key: delta(before[key], scores) for key, scores in _main(sound, main).items()}
    steps = []
    for quirk in scorer.quirks:
        on = on | {quirk.name}
        tallies = scorer.run(gold, pred, on)
        after = _main(tallies, main)
        steps.append(Step(quirk, events.get(quirk.name, 0), {k: delta(after[k], before[k]) for k in main}))
        before = after
    return tallies, steps, residual
