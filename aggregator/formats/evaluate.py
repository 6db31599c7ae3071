"""Score one prediction file against its gold: read, pair, sound counts, the chosen scorer and its compat report."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aggregator.formats.compat import Step, ladder
from aggregator.formats.model import Sentence, words
from aggregator.formats.pairing import Pair, pair, unique
from aggregator.formats.registry import FORMATS, FormatSpec
from aggregator.formats.sound import SoundResult, score
from scorecards.errors import InputError

if TYPE_CHECKING:
    from aggregator.formats.official.base import Scorer
    from aggregator.formats.tally import Tallies


@dataclass
class Evaluation:
    """Everything ``aggregate score`` shows and writes."""

    spec: FormatSpec
    gold_path: Path
    pred_path: Path
    gold: list[Sentence[Any]]
    pred: list[Sentence[Any]]
    sound: SoundResult
    scorer: Scorer | None
    official: Tallies | None = None
    crash: str | None = None
    steps: list[Step] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def pairs(self) -> list[Pair[Any]]:
        return [p for p, _ in self.sound.rows]


def choose_scorer(spec: FormatSpec, compat: str) -> Scorer | None:
    """``compat`` among the format's scorers; None when the format has none (SemEval-2016)."""
    if not spec.scorers and compat == "official":
        return None
    found = spec.scorer(compat)
    if found is None:
        names = ", ".join(spec.scorer_names()) or "official (none reproduced: sound numbers only)"
        raise InputError(f"--compat {compat!r} is not a scorer of {spec.name}; one of: {names}")
    return found


def _notes(spec: FormatSpec, pairs: list[Pair[Any]]) -> list[str]:
    notes = []
    unknown = sum(p.gold is None for p in pairs)
    missing = sum(p.pred is None for p in pairs)
    differ = [p.gold.line for p in pairs if p.gold and p.pred and words(p.gold.text) != words(p.pred.text)]
    if unknown:
        notes.append(f"{unknown} predicted sentences are not in the gold (by {spec.keyed_by}): "
                     "their tuples count as false positives")
    if missing:
        notes.append(f"{missing} gold sentences have no prediction (by {spec.keyed_by}): "
                     "their tuples count as false negatives")
    if differ:
        notes.append(f"{len(differ)} paired sentences differ in text between the files "
                     f"(first: gold line {differ[0]})")
    return notes


def _by_line(sentences: list[Sentence[Any]]) -> list[Sentence[Any]]:
    return [replace(s, key=str(position)) for position, s in enumerate(sentences, 1)]


def read_both(spec: FormatSpec, gold_path: Path,
              pred_path: Path) -> tuple[list[Sentence[Any]], list[Sentence[Any]], list[str]]:
    """Both files read strictly, their sentences with distinct keys, and notes on how they were keyed.

    A sentence without a key (a NIKLuge line without ``id``) makes both files pair by position.
    """
    gold_read, pred_read = spec.read(gold_path), spec.read(pred_path)
    notes = []
    if any(not s.key for s in (*gold_read, *pred_read)):
        gold_read, pred_read = _by_line(gold_read), _by_line(pred_read)
        notes.append(f"sentences pair by line: a line has no {spec.keyed_by}")
    gold = unique(gold_read, gold_path, merge=spec.merge_same_key)
    pred = unique(pred_read, pred_path, merge=spec.merge_same_key)
    merged = len(gold_read) + len(pred_read) - len(gold) - len(pred)
    if merged:
        notes.append(f"{merged} lines repeat an earlier sentence's text and were merged into it, "
                     "as the official scorer keys sentences by text")
    return gold, pred, notes


def read_pairs(gold_path: Path, pred_path: Path, format_name: str) -> tuple[FormatSpec, list[Pair[Any]]]:
    """The format and its paired sentences (what ``aggregate convert`` writes)."""
    spec = FORMATS[format_name]
    gold, pred, _ = read_both(spec, gold_path, pred_path)
    return spec, pair(gold, pred)


def evaluate(gold_path: Path, pred_path: Path, format_name: str, compat: str = "official") -> Evaluation:
    """Read both files strictly, score soundly and with the chosen scorer (quirk by quirk)."""
    started = time.perf_counter()
    spec = FORMATS[format_name]
    scorer = choose_scorer(spec, compat)
    gold, pred, notes = read_both(spec, gold_path, pred_path)
    pairs = pair(gold, pred)
    sound = score(pairs, spec.units, breakdowns=spec.main.values() if spec.breakdowns else ())
    result = Evaluation(spec, gold_path, pred_path, gold, pred, sound, scorer, notes=notes + _notes(spec, pairs))
    if scorer is not None:
        result.official, result.steps = ladder(scorer, gold, pred, spec.main, sound.totals)
        result.crash = scorer.crash(gold, pred, result.official)
    result.seconds = time.perf_counter() - started
    return result
