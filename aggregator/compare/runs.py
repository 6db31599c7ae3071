"""Which runs are compared: reading the inputs, splitting merged files, naming conditions and seeds.

A run id names its condition and seed: the condition is the run id without a trailing
``_proposed`` and without its ``__seed<N>`` suffix, the seed is N
(``cr_n50_m1_v2__seed42_proposed`` -> condition ``cr_n50_m1_v2``, seed 42). A run id
without ``__seed<N>`` is a condition of its own with no seed. ``--condition-pattern``
replaces this rule by a regular expression searched in the run id, whose named group
``condition`` is the condition and optional named group ``seed`` (digits) the seed.
``--each-run`` makes every run a condition of its own (named by its run id, no seed), so that
any two runs, even two seeds of one condition, can be compared directly.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from aggregator.metrics.registry import RunContext
from aggregator.metrics.structural import STRUCTURAL
from aggregator.run.pipeline import RunEvaluation, evaluate_run
from scorecards.errors import InputError
from scorecards.inputs import resolve_input

if TYPE_CHECKING:
    import polars as pl

    from aggregator.metrics.values import MetricValue

PROPOSED_SUFFIX = "_proposed"
SEED_SUFFIX = re.compile(r"__seed(?P<seed>\d+)$")
MAX_SEED = 2**63 - 1
"""Seeds are 64-bit integers in the tables (``runs.csv``, Parquet); a larger one is refused by name."""


def _seed(run_id: str, digits: str) -> int:
    seed = int(digits)
    if seed > MAX_SEED:
        raise InputError(f"run id {run_id!r}: seed {digits} is larger than 2^63 - 1; rename the run, or give "
                         "--condition-pattern without a seed group")
    return seed


@dataclass(frozen=True)
class RunNaming:
    """Maps a run id to ``(condition, seed)``; ``pattern`` None is the default rule above."""

    pattern: re.Pattern[str] | None = None
    each_run: bool = False

    @classmethod
    def from_text(cls, pattern: str | None, *, each_run: bool = False) -> RunNaming:
        """Compile ``--condition-pattern``; :class:`InputError` when it is invalid or has no ``condition`` group."""
        if each_run:
            if pattern is not None:
                raise InputError("--each-run and --condition-pattern exclude each other")
            return cls(each_run=True)
        if pattern is None:
            return cls()
        try:
            compiled = re.compile(pattern)
        except re.error as exc:
            raise InputError(f"--condition-pattern {pattern!r}: not a regular expression ({exc})") from None
        if "condition" not in compiled.groupindex:
            raise InputError(f"--condition-pattern {pattern!r}: needs a named group (?P<condition>...)")
        return cls(compiled)

    def parse(self, run_id: str) -> tuple[str, int | None]:
        """``(condition, seed)`` of ``run_id``."""
        if self.each_run:
            return run_id, None
        if self.pattern is None:
            stem = run_id.removesuffix(PROPOSED_SUFFIX)
            found = SEED_SUFFIX.search(stem)
            if found is None:
                return stem, None
            return stem[: found.start()], _seed(run_id, found.group("seed"))
        match = self.pattern.search(run_id)
        if match is None or not match.group("condition"):
            raise InputError(f"run id {run_id!r} does not match --condition-pattern {self.pattern.pattern!r}")
        seed = match.groupdict().get("seed")
        if seed is not None and not seed.isdecimal():
            raise InputError(f"run id {run_id!r}: seed {seed!r} from --condition-pattern is not a whole number")
        return match.group("condition"), None if seed is None else _seed(run_id, seed)


@dataclass(frozen=True)
class Run:
    """One run of a comparison.

    ``table`` is the run's per-sample table (columns of :mod:`aggregator.run.per_sample`, sample-key
    order) and ``metrics`` its ``structural_metrics.csv`` row, ``STRUCTURAL.compute(table)``.
    """

    run_id: str
    condition: str
    seed: int | None
    source: Path
    table: pl.DataFrame = field(repr=False)
    metrics: dict[str, MetricValue] = field(repr=False)

    def sort_key(self) -> tuple[str, bool, int, str]:
        """Condition, then seed (runs without a seed last), then run id."""
        return self.condition, self.seed is None, self.seed or 0, self.run_id


def split_runs(evaluation: RunEvaluation, naming: RunNaming) -> list[Run]:
    """The runs of one input: a merged file is split by run id, each group gets its own metrics."""
    ids = evaluation.run_ids
    if len(ids) == 1:
        groups = {ids[0]: (evaluation.table, evaluation.metrics)}
    else:
        parts = evaluation.table.partition_by("run_id", as_dict=True, maintain_order=True)
        groups = {}
        for (run_id,), part in parts.items():
            table = part.rechunk()
            groups[str(run_id)] = (table, STRUCTURAL.compute(table, RunContext(all_rows=table)))
    runs = []
    for run_id in ids:
        condition, seed = naming.parse(run_id)
        table, metrics = groups[run_id]
        runs.append(Run(run_id, condition, seed, evaluation.input_path, table, metrics))
    return runs


@dataclass(frozen=True)
class SkippedRun:
    """An input ``--skip-bad-runs`` left out, and why."""

    path: str
    reason: str


def load_runs(
    paths: Sequence[str | os.PathLike[str]],
    *,
    condition_pattern: str | None = None,
    each_run: bool = False,
    skipped: list[SkippedRun] | None = None,
) -> list[Run]:
    """Evaluate every input and return its runs in :meth:`Run.sort_key` order.

    Raises :class:`InputError` when no input is given, an input is given twice (also as a directory
    and its ``scorecards.jsonl``), or two inputs carry the same run id. With a ``skipped`` list,
    an input that cannot be read is appended to it instead (``--skip-bad-runs``); an error still
    stops when no run is left.
    """
    if not paths:
        raise InputError("compare: no run given")
    naming = RunNaming.from_text(condition_pattern, each_run=each_run)
    given_as: dict[Path, str] = {}
    found_in: dict[str, str] = {}
    runs: list[Run] = []
    for path in paths:
        try:
            resolved = resolve_input(path).resolve()
        except (InputError, OSError) as exc:
            _skip_or_raise(path, exc, skipped)
            continue
        if resolved in given_as:
            raise InputError(f"{os.fspath(path)}: given twice (same input as {given_as[resolved]})")
        given_as[resolved] = os.fspath(path)
        try:
            loaded = split_runs(evaluate_run(path), naming)
        except (InputError, OSError) as exc:
            _skip_or_raise(path, exc, skipped)
            continue
        for run in loaded:
            if run.run_id in found_in:
                raise InputError(
                    f"{os.fspath(path)}: run id {run.run_id!r} is also in {found_in[run.run_id]}; give each run once"
                )
            found_in[run.run_id] = os.fspath(path)
            runs.append(run)
    if not runs:
        raise InputError(f"compare: no readable run ({len(skipped or [])} skipped)")
    return sort_runs(runs)


def _skip_or_raise(path: str | os.PathLike[str], exc: Exception, skipped: list[SkippedRun] | None) -> None:
    if skipped is None:
        raise exc
    reason = str(exc) if isinstance(exc, InputError) else f"{os.fspath(path)}: cannot read ({exc})"
    skipped.append(SkippedRun(os.fspath(path), reason))


def sort_runs(runs: Iterable[Run]) -> list[Run]:
    """Runs in condition, seed, run id order."""
    return sorted(runs, key=Run.sort_key)
