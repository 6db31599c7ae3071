"""What aggregating each of several runs gives, computed in a pool of processes or here.

An experiment grid is many small runs. Those small enough to be decoded by one process
are shared among a pool of processes, forked before Polars is imported (each process
imports it once, for all the runs it takes). Runs large enough for the reader to split
across the cores run here, one after another, once the pool is done (no pool thread runs
while they fork their decoders). Outcomes come back in the order the runs were given;
each run is written exactly as if aggregated alone.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from aggregator.commands.exits import user_error
from aggregator.commands.summary import Raised, metrics_payload, raised, summary_lines

if TYPE_CHECKING:
    from aggregator.run.pipeline import RunEvaluation
    from scorecards.errors import BadLine


@dataclass(frozen=True)
class RunOptions:
    """The options of ``aggregate RUN...`` that shape each run's outcome."""

    profile: str | None = None
    skip_bad_lines: bool = False
    workers: int | None = None
    quiet: bool = False
    as_json: bool = False
    families: tuple[str, ...] | None = None
    allow: tuple[str, ...] = ()
    spreadsheet_safe: bool = False


@dataclass(frozen=True)
class RunOutcome:
    """What is shown of one run: its one-line error, or its skipped lines, warnings (``(run, code,
    message)``), summary and files."""

    target: Path
    error: str | None = None
    skipped: tuple[BadLine, ...] = ()
    warnings: tuple[Raised, ...] = ()
    summary: tuple[str, ...] = ()
    payload: dict[str, object] | None = None
    files_written: int = 0


def aggregate_one(run: Path, target: Path, options: RunOptions) -> tuple[RunEvaluation, list[Path]]:
    """Evaluate one run and write its files atomically into ``target``."""
    from aggregator.commands.progress import reading
    from aggregator.run.pipeline import evaluate_run

    with reading(run, quiet=options.quiet) as on_bytes:
        evaluation = evaluate_run(
            run, profile=options.profile, skip_bad_lines=options.skip_bad_lines, workers=options.workers,
            while_reading=_import_writers, on_bytes=on_bytes, families=options.families, allow=options.allow,
        )
    from aggregator.outputs.atomic import write_outputs
    from aggregator.outputs.run_files import run_files

    files = run_files(evaluation, spreadsheet_safe=options.spreadsheet_safe, streamed=True)
    return evaluation, write_outputs(target, files, inputs=[evaluation.input_path])


def _import_writers() -> None:
    """Import the writers (they pull in pydantic) and read their assets while the input is being decoded."""
    import aggregator.outputs.run_files

    aggregator.outputs.run_files.prepare()


def outcome_of(run: Path, target: Path, options: RunOptions) -> RunOutcome:
    """Aggregate ``run`` into ``target``; an error a user can cause becomes the outcome's error."""
    try:
        evaluation, written = aggregate_one(run, target, options)
    except Exception as exc:
        message = user_error(exc, workers=True)
        if message is None:
            raise
        return RunOutcome(target, error=message)
    shown = not (options.quiet or options.as_json)
    return RunOutcome(
        target,
        skipped=tuple(evaluation.skipped),
        warnings=tuple(raised(evaluation)),
        summary=tuple(summary_lines(evaluation)) if shown else (),
        payload=metrics_payload(evaluation) if options.as_json else None,
        files_written=len(written),
    )


def _pooled(run: Path) -> bool:
    from scorecards.errors import InputError
    from scorecards.inputs import decoded_serially, resolve_input

    try:
        return decoded_serially(resolve_input(run))
    except (InputError, OSError):
        return True  # the pool process reports it like any run


def _collected(future: Future[RunOutcome], run: Path, target: Path) -> RunOutcome:
    try:
        return future.result()
    except BrokenProcessPool:
        message = f"{run}: the process aggregating it died (out of memory?); retry with --workers 1"
        return RunOutcome(target, error=message)


def outcomes(runs: Sequence[Path], targets: Sequence[Path], options: RunOptions) -> Iterator[RunOutcome]:
    """Each run's outcome, in the order of ``runs``."""
    from scorecards.inputs import process_limit

    small = [index for index, run in enumerate(runs) if _pooled(run)] if len(runs) > 1 else []
    processes = min(process_limit(options.workers), len(small))
    pool: ProcessPoolExecutor | None = None
    pending: dict[int, Future[RunOutcome]] = {}
    if processes > 1 and hasattr(os, "fork"):
        pool = ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("fork"))
        pending = {index: pool.submit(outcome_of, runs[index], targets[index], options) for index in small}
    try:
        for index, (run, target) in enumerate(zip(runs, targets)):
            if index in pending:
                yield _collected(pending.pop(index), run, target)
                continue
            if pool is not None:
                pool.shutdown()  # waits for the pooled runs
                pool = None
            yield outcome_of(run, target, options)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)
