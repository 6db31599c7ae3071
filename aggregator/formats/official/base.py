"""What an official scorer is here: its source, its quirks in order, and how it counts.

``run(gold, pred, quirks)`` counts as the scorer does with the named quirks switched on:
all of them reproduce it exactly, none of them gives the sound counts (tested). The
compat report switches them on one at a time (:mod:`aggregator.formats.compat`).
``crash`` says, in one line, why the unchanged scorer would stop instead of printing numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aggregator.formats.model import Sentence

if TYPE_CHECKING:
    from aggregator.formats.tally import Tallies

Sentences = Sequence[Sentence[Any]]


@dataclass(frozen=True)
class Quirk:
    """One way the scorer's number departs from the sound one."""

    name: str
    meaning: str


@dataclass(frozen=True)
class Scorer:
    """An official scorer (or a named variant of one) of a format."""

    name: str
    format: str
    source: str
    quirks: tuple[Quirk, ...]
    run: Callable[[Sentences, Sentences, frozenset[str]], Tallies]
    crash: Callable[[Sentences, Sentences, Tallies], str | None]
    events: Callable[[Sentences, Sentences], dict[str, int]]
    aliases: tuple[str, ...] = ()

    @property
    def all_quirks(self) -> frozenset[str]:
        return frozenset(q.name for q in self.quirks)


def never(gold: Sentences, pred: Sentences, tallies: Tallies) -> str | None:
    """For a scorer that always prints its numbers."""
    return None


def by_position(gold: Sentences, pred: Sentences) -> list[tuple[Sentence[Any] | None, Sentence[Any] | None]]:
    """Line i of the gold with line i of the predictions (None past the shorter file)."""
    size = max(len(gold), len(pred))
    return [(gold[i] if i < len(gold) else None, pred[i] if i < len(pred) else None) for i in range(size)]


def length_crash(gold: Sentences, pred: Sentences, error: str = "AssertionError") -> str | None:
    """The crash of a scorer that asserts both files have as many sentences."""
    if len(gold) == len(pred):
        return None
    return f"{error}: the files have {len(gold)} and {len(pred)} sentences (the scorer pairs them by line)"
