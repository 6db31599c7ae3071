"""``aggregate RUN...``: the structural metrics of each run, written beside it (or under ``--outdir``).

Several runs are aggregated by one command, so an experiment grid pays the interpreter
start and the imports once per process instead of once per run, and small runs share the
cores (:mod:`aggregator.commands.run_outcomes`). A run that fails is reported in one line and the
others still run; the exit status is 2 if any failed, else 3 with ``--fail-on-warning`` if
any raised a warning (:mod:`aggregator.run_warnings`), else 0.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

import click

from aggregator.commands import allocator
from aggregator.commands.exits import EXIT_USER_ERROR, EXIT_WARNING, fail, report_skips, user_errors
from aggregator.commands.options import OutputDirectory, spreadsheet_safe_option
from aggregator.commands.run_outcomes import RunOptions, outcomes
from aggregator.commands.summary import Raised, batch_warning_lines
from aggregator.commands.terminal import out, say, say_json, warn


@click.command("run")
@click.argument("runs", nargs=-1, required=True, metavar="RUN...", type=click.Path(path_type=Path, readable=False))
@click.option("--outdir", type=OutputDirectory(),
              help="Output directory [default: RUN/derived/metrics]; with several runs, one subdirectory "
                   "per run, named after its run directory (or its file, when not scorecards.jsonl).")
@click.option("--profile", help="Aggregate only rows of this profile (e.g. paper_main).")
@click.option("--skip-bad-lines", is_flag=True, help="Skip and report bad lines instead of stopping.")
@click.option("--workers", type=click.IntRange(1, 64),
              help="Processes [default: the core count, at most 4]: a large run is decoded by "
                   "several, several small runs are shared among them.")
@click.option("--json", "as_json", is_flag=True,
              help='Print {"runs": [...]} as JSON on stdout: each run\'s metrics and warnings, or its error.')
@click.option("--families", metavar="NAME,...",
              help="Metric families to compute, comma-separated (e.g. core,conflict) [default: all]; "
                   "the core columns are always written. See docs/metrics.md.")
@click.option("--taxonomy", type=click.Path(path_type=Path, dir_okay=False),
              help='Taxonomy of valid aspect refs, JSON {"name", "refs": [...]} [default: NIKLuge 2022, shipped].')
@click.option("--allow", "allow", multiple=True, metavar="CODE",
              help="Silence the warning CODE (repeatable; see docs/warnings.md).")
@click.option("--fail-on-warning", is_flag=True, help="Exit with status 3 when a run raises a warning not allowed.")
@click.option("--quiet", "-q", is_flag=True,
              help="No summary on stdout, no progress bar, and warnings as their codes and counts only.")
@spreadsheet_safe_option
@user_errors
def run_command(
    runs: tuple[Path, ...],
    outdir: Path | None,
    profile: str | None,
    skip_bad_lines: bool,
    workers: int | None,
    as_json: bool,
    families: str | None,
    taxonomy: Path | None,
    allow: tuple[str, ...],
    fail_on_warning: bool,
    quiet: bool,
    spreadsheet_safe: bool,
) -> None:
    """Compute structural_metrics.csv and friends for each RUN (a run directory or scorecards file)."""
    from aggregator.units.taxonomy import use_taxonomy

    targets = output_dirs(runs, outdir)
    refuse_overwriting_inputs(runs, targets, taxonomy)
    allocator.for_runs(runs)
    use_taxonomy(taxonomy)
    options = RunOptions(profile=profile, skip_bad_lines=skip_bad_lines, workers=workers, quiet=quiet,
                         as_json=as_json, families=family_selection(families), allow=allowed_codes(allow),
                         spreadsheet_safe=spreadsheet_safe)
    entries: list[dict[str, object]] = []
    found: list[tuple[Raised, ...]] = []
    failed = warned = 0
    for run, outcome in zip(runs, outcomes(runs, targets, options)):
        if outcome.error is not None:
            say(f"aggregate: error: {outcome.error}", err=True)
            entries.append({"run": str(run), "error": outcome.error})
            failed += 1
            continue
        report_skips(outcome.skipped)
        found.append(outcome.warnings)
        if len(runs) == 1:
            for line in batch_warning_lines(found, quiet=quiet):
                warn(line)
        warned += bool(outcome.warnings)
        if outcome.payload is not None:
            entries.append({"run": str(run), **outcome.payload})
        for line in outcome.summary:
            out(line)
        if outcome.summary:
            out(f"wrote {outcome.files_written} files to {outcome.target}")
    if len(runs) > 1:
        for line in batch_warning_lines(found, quiet=quiet):
            warn(line)
    if as_json:
        say_json({"runs": entries})
    if failed and len(runs) == 1:
        sys.exit(EXIT_USER_ERROR)
    if failed:
        fail(f"{failed} of {len(runs)} runs failed (each named above)")
    if warned and fail_on_warning:
        click.echo(f"aggregate: error: {warned} of {len(runs)} runs raised warnings (--fail-on-warning)", err=True)
        sys.exit(EXIT_WARNING)


def allowed_codes(codes: Sequence[str]) -> tuple[str, ...]:
    """The warning codes given to ``--allow``, as declared (``ref-unmeasurable`` = ``ref_unmeasurable``);
    an unknown code is a user error, found before anything is read."""
    from aggregator.run_warnings import UnknownWarningCode, known_codes

    try:
        return known_codes(codes)
    except UnknownWarningCode as exc:
        fail(f"--allow: {exc}")
        raise


def family_selection(text: str | None) -> tuple[str, ...] | None:
    """``--families a,b`` as a selection (None: all); an unknown name is a one-line error naming the known ones."""
    if text is None:
        return None
    from aggregator.metrics.families import UnknownFamily, selection

    try:
        return selection(text.split(","))
    except UnknownFamily as exc:
        fail(f"--families: {exc}")
        raise


def default_outdir(run: Path) -> Path:
    """``RUN/derived/metrics`` for a run directory, ``<dir of file>/derived/metrics`` for a file."""
    base = run if run.is_dir() else run.parent
    return base / "derived" / "metrics"


def run_name(run: Path) -> str:
    """The name of a run: its run directory's, the name of the directory holding its
    ``scorecards.jsonl`` (``.gz``, ``.zst``), or the name of any other file without its extensions."""
    from scorecards.inputs import SCORECARDS_NAMES

    path = Path(os.path.realpath(run))
    if path.is_dir() or not path.exists():
        return path.name
    if path.name in SCORECARDS_NAMES:
        return path.parent.name
    return path.name.split(".", 1)[0] or path.name


def refuse_overwriting_inputs(runs: Sequence[Path], targets: Sequence[Path], taxonomy: Path | None = None) -> None:
    """A user error, before anything is read, when an output directory cannot be written
    (:func:`~aggregator.outputs.destination.check_destination`) or an output of any run would be an
    input of any run (or the taxonomy file)."""
    from aggregator.outputs.destination import check_destination
    from aggregator.outputs.names import RUN_OUTPUTS
    from scorecards.errors import InputError
    from scorecards.inputs import resolve_input

    inputs: list[Path] = [] if taxonomy is None else [taxonomy]
    for run in runs:
        try:
            inputs.append(resolve_input(run))
        except InputError:
            continue  # the run reports it when its turn comes
    for target in targets:
        check_destination(target, RUN_OUTPUTS, inputs)


def output_dirs(runs: Sequence[Path], outdir: Path | None) -> list[Path]:
    """Where each run's files go: ``outdir`` for one run, ``outdir/<run name>`` for several,
    else :func:`default_outdir`. Two runs that would write to one directory are a user error,
    found before anything is read."""
    if outdir is None:
        targets = [default_outdir(run) for run in runs]
    elif len(runs) == 1:
        targets = [outdir]
    else:
        targets = [outdir / run_name(run) for run in runs]
    first: dict[Path, int] = {}
    for index, target in enumerate(targets):
        earlier = first.setdefault(Path(os.path.realpath(target)), index)
        if earlier != index:
            hint = _apart(runs[earlier], runs[index], outdir)
            fail(f"{runs[earlier]} and {runs[index]} would both write to {target}; {hint}")
    return targets


def _same_input(first: Path, second: Path) -> bool:
    """Both name one scorecards file (e.g. a run directory and its ``scorecards.jsonl``)."""
    from scorecards.errors import InputError
    from scorecards.inputs import resolve_input

    try:
        return os.path.realpath(resolve_input(first)) == os.path.realpath(resolve_input(second))
    except InputError:
        return os.path.realpath(first) == os.path.realpath(second)


def _apart(first: Path, second: Path, outdir: Path | None) -> str:
    """What to do when two runs would write to one directory."""
    if _same_input(first, second):
        return "give each run once"
    if outdir is None:
        return ("both default to the derived/metrics of their one folder: give --outdir DIR, "
                "which writes each run to DIR/<its name>")
    return "both runs have that name: rename one, or aggregate them one at a time with --outdir"
