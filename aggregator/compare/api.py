"""``compare_runs``: the Python entry point of ``aggregate compare``."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, TypedDict, Unpack

import numpy as np
import polars as pl

from aggregator.api import arguments
from aggregator.compare.agreement import agreement_table
from aggregator.compare.choices import baseline, enough, shown_metrics
from aggregator.compare.choices import pairs as contrast_pairs
from aggregator.compare.condition_warnings import WARNINGS_COLUMN, ComparisonWarnings
from aggregator.compare.conditions import ConditionInput, condition_rows, conditions_frame
from aggregator.compare.consistency import consistency_table
from aggregator.compare.contrasts import SampleSplit, contrast_rows, paired_frame, sample_split
from aggregator.compare.degenerate import degenerate_cases, degenerate_notes
from aggregator.compare.flips import flips_table
from aggregator.compare.merged import merged_table
from aggregator.compare.notes import metric_notes, missing_samples, ranked_notes, sample_notes, seed_notes
from aggregator.compare.resampled import Resampler
from aggregator.compare.result import ComparisonResult
from aggregator.compare.runs import Run, SkippedRun, load_runs, sort_runs
from aggregator.compare.samples import SampleCube, build_cube, condition_samples, sample_index
from aggregator.compare.selected import MODES, selected_samples
from aggregator.compare.subsets import subsets_table
from aggregator.compare.tables import runs_table
from aggregator.metrics.structural import STRUCTURAL
from aggregator.run_warnings import known_codes
from aggregator.stats.blas import single_thread
from aggregator.stats.compile import compile_metrics
from aggregator.stats.intervals import DEFAULT_METHOD, METHODS, Method
from scorecards.errors import InputError

if TYPE_CHECKING:
    from aggregator.stats.components import ConditionReplicates

DEFAULT_RESAMPLES = 10_000
MAX_RESAMPLES = 1_000_000
"""More resamples than this are refused by name: their time (and the memory of every resample's
statistics) grows with them, and 10^11 ran out of memory with a message about reading the input."""


def check_resamples(resamples: int) -> None:
    """``--resamples`` out of 1 … :data:`MAX_RESAMPLES` is a user error (:class:`InputError`), named."""
    if not 1 <= resamples <= MAX_RESAMPLES:
        raise InputError(f"--resamples {resamples}: must be from 1 to {MAX_RESAMPLES:,}")


@dataclass(frozen=True)
class Options:
    """How to compare (the command line's options; see :func:`compare_runs`)."""

    baseline: str | None = None
    resamples: int = DEFAULT_RESAMPLES
    seed: int = 0
    condition_pattern: str | None = None
    ddof: int = 1
    contrasts: Sequence[tuple[str, str]] = ()
    holm: bool = False
    by: Sequence[str] = ()
    metrics: Sequence[str] | None = None
    each_run: bool = False
    samples: str | None = None
    interval: Method = DEFAULT_METHOD
    skip_bad_runs: bool = False
    skipped: Sequence[SkippedRun] = field(default_factory=list)
    allow: Sequence[str] = ()
    reuse: bool = True


class OptionWords(TypedDict, total=False):
    """:class:`Options` given as keywords (of :func:`compare_runs` and :func:`compare_loaded`)."""

    baseline: str | None
    resamples: int
    seed: int
    condition_pattern: str | None
    ddof: int
    contrasts: Sequence[tuple[str, str]]
    holm: bool
    by: Sequence[str]
    metrics: Sequence[str] | None
    each_run: bool
    samples: str | None
    skip_bad_runs: bool
    skipped: Sequence[SkippedRun]
    allow: Sequence[str]
    interval: Method
    reuse: bool


def compare_runs(
    paths: str | os.PathLike[str] | Sequence[str | os.PathLike[str]], *, outdir: str | os.PathLike[str] | None = None,
    paper: str | None = None, **options: Unpack[OptionWords],
) -> ComparisonResult:
    """Compare runs (run directories or scorecards files; merged files are split by run id).

    ``paths``: the inputs, or one input (e.g. a merged file holding several runs; a string is
    one path, never its characters).

    Options (all keywords): ``baseline`` (a condition, or a run id naming its condition; default:
    the first condition in sorted order), ``resamples`` and ``seed`` (the bootstrap over samples),
    ``condition_pattern`` (a regex with a named group ``condition`` and optionally ``seed``),
    ``each_run`` (every run its own condition), ``ddof`` (of the SD over seeds, default 1), ``interval`` (``welch``, the default, or ``banerjee``: how
    the interval combines the seed and sample variances, docs/compare.md),
    ``contrasts`` (pairs (A, B) compared besides each condition against the baseline),
    ``holm`` (Holm-adjusted p-values), ``by`` (per-sample columns to split samples by),
    ``metrics`` (the metrics of the Markdown, subset and paper tables; default the headline set),
    ``samples`` (``changed``, ``only-a`` or ``only-b``: list the samples behind each contrast),
    ``skip_bad_runs`` (report an unreadable input and go on), ``reuse`` (default True: read a run from
    the ``derived/metrics`` that ``aggregate RUN`` wrote from the same bytes and settings instead of
    decoding it, :mod:`aggregator.compare.reuse`; False decodes every run), ``allow`` (warning codes to
    silence, as ``--allow``), ``outdir`` (also write the files of
    ``aggregate compare --outdir``, atomically; :class:`~aggregator.outputs.atomic.OutputError` when
    it cannot be written) and ``paper`` (``sd`` or ``ci``: with ``outdir``, the paper files too).

    The result depends only on the inputs' contents and the options, never on the order of
    ``paths`` or of the lines in a file. Raises :class:`~scorecards.errors.InputError` for
    unreadable input (without ``skip_bad_runs``), fewer than two runs (after ``skip_bad_runs``
    too), a run given twice, an unknown baseline,
    condition or metric, and ``TypeError`` / ``ValueError`` naming an argument of the wrong type
    or out of range (``resamples`` from 1 to :data:`MAX_RESAMPLES`, ``seed`` from 0 to 2^63 − 1).
    """
    given = arguments.paths("paths", paths)
    chosen = Options(**options)
    _check(chosen)
    skipped: list[SkippedRun] = []
    runs = load_runs(given, condition_pattern=chosen.condition_pattern, each_run=chosen.each_run,
                     skipped=skipped if chosen.skip_bad_runs else None, reuse=chosen.reuse)
    result = compare_loaded(runs, options=replace(chosen, skipped=skipped))
    result = result.model_copy(update={"runs_reused": sum(r.reused for r in runs)})
    if outdir is not None:
        from aggregator.compare.files import comparison_files
        from aggregator.outputs.atomic import write_outputs

        write_outputs(outdir, comparison_files(result, paper=paper), inputs=input_files(given))
    return result


def input_files(paths: Sequence[str | os.PathLike[str]]) -> list[os.PathLike[str]]:
    """The scorecards files of ``paths`` that can be read (outputs must never overwrite one)."""
    from scorecards.inputs import resolve_input

    found: list[os.PathLike[str]] = []
    for path in paths:
        try:
            found.append(resolve_input(path))
        except InputError:
            continue
    return found


@dataclass
class _Conditions:
    """Each condition's replicates over its own samples, kept while a pending contrast needs them."""

    resampler: Resampler
    cube: SampleCube
    rows_of: dict[str, np.ndarray]
    kept: dict[str, tuple[np.ndarray, ConditionReplicates]] = field(default_factory=dict)

    def samples(self, name: str) -> np.ndarray:
        """The samples of any of the condition's runs (indices on the comparison's axis)."""
        return np.flatnonzero(self.cube.present[self.rows_of[name]].any(axis=0))

    def own(self, name: str) -> tuple[np.ndarray, ConditionReplicates]:
        if name not in self.kept:
            samples = self.samples(name)
            self.kept[name] = samples, self.resampler.condition(self.rows_of[name].tolist(), samples)
        return self.kept[name]

    def plan(self, names: Sequence[str], splits: dict[tuple[str, str], SampleSplit]) -> list[tuple[list[int], np.ndarray]]:
        """The conditions ``names`` over their own samples, in order, when that is every condition the
        contrasts ``splits`` ask for (each over no common sample or over both conditions' own); else none."""
        own = {name: self.samples(name) for name in names}
        for (a, b), split in splits.items():
            if len(split.common) and not (np.array_equal(split.common, own[a]) and np.array_equal(split.common, own[b])):
                return []
        return [(self.rows_of[name].tolist(), own[name]) for name in names]

    def over(self, name: str, samples: np.ndarray) -> ConditionReplicates:
        own_samples, replicates = self.own(name)
        if np.array_equal(own_samples, samples):
            return replicates
        return self.resampler.condition(self.rows_of[name].tolist(), samples)


def compare_loaded(runs: Sequence[Run], *, options: Options | None = None, **kwargs: Unpack[OptionWords]) -> ComparisonResult:
    """:func:`compare_runs` of runs already loaded (:func:`~aggregator.compare.runs.load_runs`)."""
    opts = options if options is not None else Options(**kwargs)
    _check(opts)
    if opts.ddof < 0:
        raise InputError(f"--ddof {opts.ddof}: needs 0 or more")
    ordered = sort_runs(runs)
    enough(ordered, opts.skipped)
    names = sorted({r.condition for r in ordered})
    chosen = baseline(opts.baseline, names, ordered)
    pairs = contrast_pairs(names, chosen, opts.contrasts)
    registry = STRUCTURAL
    warned = ComparisonWarnings.check(ordered, known_codes(opts.allow))
    lead = warned.lead()
    shown = shown_metrics(opts.metrics, lead)
    cube = build_cube(ordered)
    rows_of = {name: np.array([i for i, r in enumerate(ordered) if r.condition == name]) for name in names}
    with single_thread():
        weighted = compile_metrics(registry, ordered[0].table, [m.name for m in registry if m.alias_of is None])
        positions = [sample_index(r, cube.keys) for r in ordered]
        resampler = Resampler(registry, weighted, ordered, positions, opts.resamples, opts.seed)
        conditions = _Conditions(resampler, cube, rows_of)
        pending = Counter(name for pair in pairs for name in pair)
        splits = {(a, b): sample_split(cube.present, rows_of[a], rows_of[b]) for a, b in pairs}
        condition_table: list[dict[str, object]] = []
        contrast_table: dict[tuple[str, str], list[dict[str, object]]] = {}
        done: set[str] = set()
        with resampler.ahead(conditions.plan(names, splits)):
            for name in names:
                samples, replicates = conditions.own(name)
                members = [ordered[i] for i in rows_of[name]]
                condition_table += condition_rows(registry, ConditionInput(name, members, len(samples), replicates),
                                                  weighted.names, weighted.not_resampled, opts.ddof)
                done.add(name)
                for a, b in pairs:
                    if (a, b) in contrast_table or not {a, b} <= done:
                        continue
                    split = splits[(a, b)]
                    reps = ((conditions.over(a, split.common), conditions.over(b, split.common))
                            if len(split.common) else None)
                    contrast_table[(a, b)] = contrast_rows(registry, (a, b), split, reps, weighted.names,
                                                           weighted.not_resampled, method=opts.interval)
                    pending.subtract((a, b))
                for gone in [n for n in list(conditions.kept) if pending[n] <= 0]:
                    del conditions.kept[gone]
        paired = paired_frame([row for pair in pairs for row in contrast_table[pair]], adjust=opts.holm)
        subsets = subsets_table(resampler, cube, rows_of, opts.by, shown, chosen, ddof=opts.ddof, holm=opts.holm,
                                method=opts.interval)
        agreement = agreement_table(ordered, names, resamples=opts.resamples, seed=opts.seed, draws=resampler.draws)
    summaries = [condition_samples(cube, name, rows_of[name]) for name in names]
    selected = None
    if opts.samples is not None:
        if opts.samples not in MODES:
            raise InputError(f"--samples {opts.samples}: one of {', '.join(MODES)}")
        selected = selected_samples(ordered, cube, {s.name: s for s in summaries}, pairs, opts.samples)
    missing = missing_samples(ordered, cube)
    degenerate = degenerate_cases(ordered, names, cube, paired)
    skipped_notes = [f"Skipped unreadable input {s.path}: {s.reason}" for s in opts.skipped]
    codes = pl.Series(WARNINGS_COLUMN, [[w.code for w in ws] for ws in warned.shown], dtype=pl.List(pl.String))
    return ComparisonResult(
        runs=runs_table(ordered).insert_column(3, codes),
        conditions=warned.with_column(conditions_frame(condition_table), "conditions"),
        paired=warned.with_column(paired, "paired"),
        subsets=warned.with_column(subsets, "subsets"),
        agreement=agreement,
        flips=flips_table(summaries),
        self_consistency=consistency_table(cube, summaries),
        per_sample=merged_table(ordered, cube),
        missing_samples=missing,
        selected=selected,
        selected_mode=opts.samples,
        conditions_order=tuple(names),
        baseline=chosen,
        contrasts=tuple(pairs),
        resamples=opts.resamples,
        seed=opts.seed,
        ddof=opts.ddof,
        interval=opts.interval,
        holm=opts.holm,
        each_run=opts.each_run,
        metrics_shown=tuple(shown),
        metrics_requested=opts.metrics is not None,
        by=tuple(opts.by),
        condition_pattern=opts.condition_pattern,
        not_resampled=weighted.not_resampled,
        degenerate=tuple(degenerate),
        skipped_runs=tuple({"path": s.path, "reason": s.reason} for s in opts.skipped),
        notes=tuple(ranked_notes(warned.notes(), skipped_notes, sample_notes(ordered, cube, missing),
                           seed_notes(ordered, names), metric_notes(ordered), degenerate_notes(degenerate))),
        run_warnings=tuple(warned.raised()),
        allowed=known_codes(opts.allow),
        lead_unit=lead.unit,
        lead_reason=lead.reason(),
    )


def _check(options: Options) -> None:
    arguments.optional_text("baseline", options.baseline)
    arguments.whole("resamples", options.resamples, 1, MAX_RESAMPLES)
    arguments.whole("seed", options.seed, 0, 2**63 - 1)
    arguments.optional_text("condition_pattern", options.condition_pattern)
    if options.interval not in METHODS:
        raise ValueError(f"interval must be one of {', '.join(METHODS)}, got {options.interval!r}")
    arguments.flag("reuse", options.reuse)

