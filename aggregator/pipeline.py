"""The one-way pipeline: scorecards -> records -> per-sample counts -> table -> metrics.

:func:`evaluate_run` is what the CLI, the Python API and the comparison all call.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from aggregator.run_warnings import RunWarnings, check_run
from aggregator.sample_counts import sample_counts
from scorecards.errors import BadLine, InputError
from scorecards.reader import paused_gc, start_read

if TYPE_CHECKING:
    import polars as pl


@dataclass
class RunEvaluation:
    """A run's per-sample table, its structural metrics and how they were obtained."""

    input_path: Path
    input_sha256: str
    table: pl.DataFrame
    metrics: dict[str, object]
    rows_read: int
    skipped: list[BadLine]
    profile: str | None
    workers: int
    seconds: float
    warnings: dict[str, int] = field(default_factory=dict)
    run_warnings: RunWarnings = field(default_factory=RunWarnings)

    @property
    def rows_aggregated(self) -> int:
        return self.table.height

    @property
    def run_ids(self) -> list[str]:
        return sorted(self.table.get_column("run_id").unique().to_list())


def evaluate_run(
    path: str | os.PathLike[str],
    *,
    profile: str | None = None,
    skip_bad_lines: bool = False,
    workers: int | None = None,
    while_reading: Callable[[], object] | None = None,
    on_bytes: Callable[[int], None] | None = None,
    allow: Iterable[str] = (),
) -> RunEvaluation:
    """Read a run directory or scorecards file and compute its structural metrics.

    Raises :class:`~scorecards.errors.InputError` (one line, with file and line) for bad input.
    Importing Polars and ``while_reading()`` (e.g. importing writers) happen while the
    reader's workers decode (and its thread hashes the input and checks its UTF-8), with
    the cyclic garbage collector paused: its passes over freshly imported modules find nothing.
    ``on_bytes`` is called with the size of each block read (see :func:`~scorecards.reader.start_read`).
    The run's coded warnings are checked last (:mod:`aggregator.run_warnings`); codes in ``allow``
    are raised but silenced.
    """
    started = time.perf_counter()
    pending = start_read(path, sample_counts, skip_bad_lines=skip_bad_lines, workers=workers, on_bytes=on_bytes)
    with paused_gc():
        from aggregator.metrics.structural import STRUCTURAL
        from aggregator.per_sample import build_table, filter_profile

        if while_reading is not None:
            while_reading()
        read = pending.result()
        table = build_table(read.items, [line for _, _, line in read.ids])
        read.items = []  # the per-sample tuples now live in the table; free them before writing
    table = filter_profile(table, profile)
    if table.height == 0:
        raise InputError(f"{read.path}: no rows with profile {profile!r}")
    metrics = STRUCTURAL.compute(table)
    warnings = {"polarity_defaulted": int(table.get_column("polarity_defaulted").sum())}
    return RunEvaluation(
        input_path=read.path,
        input_sha256=read.sha256,
        table=table,
        metrics=metrics,
        rows_read=read.rows_read,
        skipped=read.skipped,
        profile=profile,
        workers=read.workers,
        seconds=time.perf_counter() - started,
        warnings=warnings,
        run_warnings=check_run(table, metrics, warnings, allow),
    )
