"""Which gold and predicted sentences are one sentence: pairing by key (id, line or text).

A key repeated in one file is an error (``file:line``) unless the format merges such
sentences (ACOS keys by text, as its official scorer does: their tuples are joined).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Generic, TypeVar

from aggregator.formats.lines import bad
from scorecards.errors import quoted

if TYPE_CHECKING:
    from aggregator.formats.model import Sentence

R = TypeVar("R")


@dataclass(frozen=True, slots=True)
class Pair(Generic[R]):
    """One sentence of the evaluation: its gold and its prediction (``None`` when the file lacks it)."""

    key: str
    gold: Sentence[R] | None
    pred: Sentence[R] | None


def unique(sentences: list[Sentence[R]], path: Path, *, merge: bool) -> list[Sentence[R]]:
    """The sentences with distinct keys, in first-seen order; repeats merged or an error."""
    seen: dict[str, Sentence[R]] = {}
    for sentence in sentences:
        first = seen.get(sentence.key)
        if first is None:
            seen[sentence.key] = sentence
        elif merge:
            seen[sentence.key] = replace(first, tuples=first.tuples + sentence.tuples, raw=first.raw + sentence.raw)
        else:
            raise bad(path, sentence.line, f"sentence {quoted(sentence.key)} repeats line {first.line}")
    return list(seen.values())


def pair(gold: list[Sentence[R]], pred: list[Sentence[R]]) -> list[Pair[R]]:
    """Gold sentences in file order with their predictions, then predicted sentences unknown to gold."""
    by_key = {s.key: s for s in pred}
    pairs = [Pair(s.key, s, by_key.pop(s.key, None)) for s in gold]
    return pairs + [Pair(s.key, None, s) for s in by_key.values()]
