"""``compare_runs``: the Python entry point of ``aggregate compare``."""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np

from aggregator.compare.condition_warnings import warning_notes
from aggregator.compare.consistency import consistency_table
from aggregator.compare.flips import flips_table
from aggregator.compare.merged import merged_table
from aggregator.compare.notes import metric_notes, missing_samples, sample_notes, seed_notes
from aggregator.compare.paired import paired_table
from aggregator.compare.result import ComparisonResult
from aggregator.compare.runs import Run, load_runs, sort_runs
from aggregator.compare.samples import build_cube, condition_samples
from aggregator.compare.tables import conditions_table, runs_table
from scorecards.errors import InputError

DEFAULT_RESAMPLES = 10_000


def compare_runs(
    paths: Sequence[str | os.PathLike[str]],
    *,
    baseline: str | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    condition_pattern: str | None = None,
    outdir: str | os.PathLike[str] | None = None,
) -> ComparisonResult:
    """Compare runs (run directories or scorecards files; merged files are split by run id).

    ``baseline``: the condition every other one is paired against (default: the first in sorted
    order). ``resamples`` and ``seed`` drive the bootstrap and the permutation test.
    ``condition_pattern``: a regex with a named group ``condition`` (and optionally ``seed``)
    replacing the default naming rule (:mod:`aggregator.compare.runs`).

    The result depends only on the inputs' contents, ``resamples`` and ``seed``, never on the
    order of ``paths`` or of the lines in a file. Raises :class:`~scorecards.errors.InputError`
    for unreadable input, a run given twice, an unknown baseline or ``resamples`` < 1.
    ``outdir`` also writes the files of ``aggregate compare --outdir`` (atomically;
    :class:`~aggregator.outputs.atomic.OutputError` when it cannot be written).
    """
    runs = load_runs(paths, condition_pattern=condition_pattern)
    result = compare_loaded(runs, baseline=baseline, resamples=resamples, seed=seed,
                            condition_pattern=condition_pattern)
    if outdir is not None:
        from aggregator.compare.files import comparison_files
        from aggregator.outputs.atomic import write_outputs

        write_outputs(outdir, comparison_files(result))
    return result


def compare_loaded(
    runs: Sequence[Run],
    *,
    baseline: str | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    condition_pattern: str | None = None,
) -> ComparisonResult:
    """:func:`compare_runs` of runs already loaded (:func:`~aggregator.compare.runs.load_runs`)."""
    if resamples < 1:
        raise InputError(f"--resamples {resamples}: needs at least 1")
    ordered = sort_runs(runs)
    names = sorted({r.condition for r in ordered})
    chosen = names[0] if baseline is None else baseline
    if chosen not in names:
        raise InputError(f"--baseline {chosen!r}: no such condition (conditions: {', '.join(names)})")
    cube = build_cube(ordered)
    conditions = [
        condition_samples(cube, name, np.array([i for i, r in enumerate(ordered) if r.condition == name]))
        for name in names
    ]
    base = conditions[names.index(chosen)]
    others = [c for c in conditions if c is not base]
    missing = missing_samples(ordered, cube)
    return ComparisonResult(
        runs=runs_table(ordered),
        conditions=conditions_table(ordered, names),
        paired=paired_table(base, others, resamples=resamples, seed=seed),
        flips=flips_table(conditions),
        self_consistency=consistency_table(cube, conditions),
        per_sample=merged_table(ordered, cube),
        missing_samples=missing,
        conditions_order=names,
        baseline=chosen,
        resamples=resamples,
        seed=seed,
        condition_pattern=condition_pattern,
        notes=warning_notes(ordered) + seed_notes(ordered, names) + sample_notes(ordered, cube, missing)
        + metric_notes(ordered),
    )
