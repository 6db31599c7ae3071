"""The one-way pipeline: scorecards -> records -> per-sample counts -> table -> metrics.

:func:`evaluate_run` is what the CLI, the Python API and the comparison all call.
"""

from __future__ import annotations

import os
import time
from array import array
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from aggregator.run.lookalikes import NEAR_MATCHES, near_matches
from aggregator.run.sample_values import SampleEvaluator
from aggregator.run_warnings import RunWarnings, check_run
from aggregator.units.taxonomy import Taxonomy, taxonomy_for_run, taxonomy_in_force
from scorecards.chunks import paused_gc
from scorecards.inputs import resolve_input
from scorecards.reader import start_read

if TYPE_CHECKING:
    import polars as pl

    from aggregator.metrics.registry import Registry
    from aggregator.metrics.values import MetricValue
    from scorecards.errors import BadLine


@dataclass
class RunEvaluation:
    """A run's per-sample table, its structural metrics and how they were obtained."""

    input_path: Path
    input_sha256: str
    input_blake3: str
    table: pl.DataFrame
    metrics: dict[str, MetricValue]
    rows_read: int
    skipped: list[BadLine]
    profile: str | None
    workers: int
    seconds: float
    warnings: dict[str, int] = field(default_factory=dict)
    families: tuple[str, ...] = ()
    family_selection: tuple[str, ...] | None = None
    side_files: dict[str, str | None] = field(default_factory=dict)
    profile_fallback: bool = False
    run_warnings: RunWarnings = field(default_factory=RunWarnings)
    all_rows: pl.DataFrame | None = None
    """Every row read, before the ``--profile`` filter; kept only when asked (``keep_all_rows``)."""
    taxonomy: Taxonomy = field(default_factory=taxonomy_in_force)
    side_digests: dict[str, str | None] = field(default_factory=dict)
    """SHA-256 of each side file read (None: absent); empty when none was read."""

    @property
    def rows_aggregated(self) -> int:
        return self.table.height

    @property
    def registry(self) -> Registry:
        """The metrics of the families in force, in CSV order."""
        from aggregator.metrics.structural import build_registry

        return build_registry(self.family_selection)

    @cached_property
    def absent(self) -> frozenset[str]:
        """Columns counting an optional input field that no row carries: their 0 or blank is the
        spec's rule for a missing field, not a finding (marked "field absent from input")."""
        return frozenset(self.registry.absent_fields(self.table))

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
    families: tuple[str, ...] | None = None,
    allow: Iterable[str] = (),
    keep_all_rows: bool = False,
) -> RunEvaluation:
    """Read a run directory or scorecards file and compute its structural metrics.

    Raises :class:`~scorecards.errors.InputError` (one line, with file and line) for bad input.
    Importing Polars, ``while_reading()`` (e.g. importing writers) and building the metrics'
    expressions happen while the reader's workers decode (and its thread hashes the input and checks its UTF-8), with
    the cyclic garbage collector paused: its passes over freshly imported modules find nothing.
    ``on_bytes`` is called with the size of each block read (see :func:`~scorecards.reader.start_read`).
    ``families`` selects the metric families in force (None: all; the core is always in force).
    The run's coded warnings (the core's and those of the families in force) are checked last
    (:mod:`aggregator.run_warnings`); codes in ``allow`` are raised but silenced.

    When ``profile`` matches no row, every row is aggregated and the side files are not
    read, as the research tool did (SCORECARDS.md); ``profile_fallback`` says so. Refs are checked
    against the run's taxonomy (:func:`~aggregator.units.taxonomy.taxonomy_for_run`).
    ``keep_all_rows``: keep the unfiltered table too (``all_rows``), for outputs over every row.
    """
    started = time.perf_counter()
    taxonomy = taxonomy_for_run(resolve_input(path))
    evaluator = SampleEvaluator(families)
    pending = start_read(path, evaluator, skip_bad_lines=skip_bad_lines, workers=workers, on_bytes=on_bytes)
    with paused_gc():
        from aggregator.metrics.families import resolve
        from aggregator.metrics.registry import RunContext
        from aggregator.metrics.structural import build_registry
        from aggregator.run.per_sample import filter_profile, table_of_blocks
        from aggregator.run.side_files import read_side_files

        if while_reading is not None:
            while_reading()
        registry = build_registry(families)
        registry.selected()  # the metrics' expressions, built while the input is decoded
        read = pending.result()
        all_rows = table_of_blocks(read.items, read.lines, read.kept)  # consumes the blocks
        read.lines = array("q")
    table = filter_profile(all_rows, profile)
    fallback = table.height == 0
    if fallback:
        table = all_rows
    in_force = resolve(families)
    side_digests: dict[str, str | None] = {}
    side = {} if fallback else read_side_files(read.path.parent, in_force, side_digests)
    context = RunContext(side=side, profile=profile, profile_fallback=fallback, all_rows=all_rows)
    metrics = registry.compute(table, context)
    warnings = {
        "polarity_defaulted": int(table.get_column("polarity_defaulted").sum()),
        NEAR_MATCHES: near_matches(table),
    }
    return RunEvaluation(
        input_path=read.path,
        input_sha256=read.sha256,
        input_blake3=read.blake3,
        table=table,
        metrics=metrics,
        rows_read=read.rows_read,
        skipped=read.skipped,
        profile=profile,
        workers=read.workers,
        seconds=time.perf_counter() - started,
        warnings=warnings,
        families=("core", *(f.name for f in in_force)),
        family_selection=families,
        side_files={f.side_file.name: (f.side_file.name if f.side_file.name in side else None)
                    for f in in_force if f.side_file is not None},
        profile_fallback=fallback,
        run_warnings=check_run(table, metrics, warnings, allow, registry, in_force,
                               profile_unmatched=profile if fallback else None),
        taxonomy=taxonomy,
        all_rows=all_rows if keep_all_rows else None,
        side_digests=side_digests,
    )
