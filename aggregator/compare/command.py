"""``aggregate compare RUN...``: the command line of the comparison.

Only click is imported here; the comparison itself loads when the command runs, so
``aggregate --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from aggregator.commands import allocator
from aggregator.commands.exits import user_errors
from aggregator.commands.options import OutputDirectory, spreadsheet_safe_option
from aggregator.commands.terminal import out, say, say_json

if TYPE_CHECKING:
    from aggregator.compare.result import ComparisonResult

DEFAULT_OUTDIR = Path("comparison")
NOTES_SHOWN = 3
WARNING_NOTE = "Warning "
PAPER_CELLS = ("sd", "ci")


def summary_lines(result: ComparisonResult) -> list[str]:
    """Per condition: runs and F1 S2 mean ± SD per unit, the lead unit first with a line saying why when it
    is not Ref-F1; then each contrast's Δ F1 S2 with CI and p. A value a warning covers ends with its codes
    in brackets. Then the first :data:`NOTES_SHOWN` notes but the warnings (on stderr), and where the rest are."""
    from aggregator.compare.cells import interval, label, mean_sd, p_cell, signed
    from aggregator.compare.files import MARKDOWN
    from aggregator.units.lead import SUFFIXES, Lead

    metrics = [f"tuple_f1_s2{SUFFIXES[unit]}" for unit in Lead(result.lead_unit).order()]
    width = max(len(c) for c in result.conditions_order)
    conditions = {(r["condition"], r["metric"]): r for r in result.conditions.iter_rows(named=True)}
    lines = [f"{result.runs.height} runs, {len(result.conditions_order)} conditions; "
             f"F1 S2 mean ± SD over seeds (ddof {result.ddof}):"]
    if result.lead_reason:
        lines.append(f"  {result.lead_reason}")
    for condition in result.conditions_order:
        first = conditions[(condition, metrics[0])]
        scores = "  ".join(f"{label(m)} {mean_sd(conditions[(condition, m)])}{_codes(conditions[(condition, m)])}"
                           for m in metrics)
        lines.append(f"  {condition:<{width}}  {first['n_runs']} runs  {scores}")
    paired = {(r["condition_a"], r["condition_b"], r["metric"]): r for r in result.paired.iter_rows(named=True)
              if r["metric"] in metrics}
    if paired:
        lines.append(f"F1 S2, B − A: Δ [95% CI] p (intervals over seeds and samples, --interval {result.interval})")
    for a, b in result.contrasts:
        tests = [f"{label(m)} {signed(r['delta'])} {interval(r['ci_low'], r['ci_high'], sign=True)} "
                 f"p {p_cell(r['p_value'])}{_codes(r)}" for m in metrics if (r := paired.get((a, b, m)))]
        if tests:
            lines.append(f"  {b} − {a}:  " + "  ".join(tests))
    notes = [n for n in result.notes if not n.startswith(WARNING_NOTE)]
    lines += [f"note: {note}" for note in notes[:NOTES_SHOWN]]
    if len(notes) > NOTES_SHOWN:
        lines.append(f"note: {len(notes) - NOTES_SHOWN} more note(s) in {MARKDOWN}")
    return lines


def _codes(row: dict[str, object]) -> str:
    codes = row.get("warnings") or []
    return f" [{', '.join(codes)}]" if codes else ""  # type: ignore[arg-type]


def warning_lines(result: ComparisonResult, *, quiet: bool) -> list[str]:
    """The runs' warnings as ``aggregate RUN...`` prints them, one line per code."""
    from aggregator.commands.summary import Raised, batch_warning_lines

    per_run: dict[str, list[Raised]] = {str(run_id): [] for run_id in result.runs.get_column("run_id")}
    for w in result.run_warnings:
        per_run[str(w["run_id"])].append((str(w["run_id"]), str(w["code"]), str(w["message"])))
    return batch_warning_lines(list(per_run.values()), quiet=quiet)


def reading_line(runs: int, reused: int, no_cache: bool) -> str:
    """How the runs were read: how many from what ``aggregate RUN`` wrote (RUN/derived/metrics)."""
    if no_cache:
        return f"read {runs} runs from their scorecards (--no-cache)"
    line = f"read {reused} of {runs} runs from what aggregate wrote (RUN/derived/metrics), {runs - reused} decoded"
    return line + ("" if reused else "; `aggregate RUN...` first writes what later comparisons reuse")


def _contrast(text: str) -> tuple[str, str]:
    from scorecards.errors import InputError

    a, sep, b = text.partition(":")
    if not sep or not a or not b:
        raise InputError(f"--contrast {text!r}: write A:B (Δ = B − A)")
    return a, b


@click.command("compare")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path, readable=False))
@click.option("--outdir", type=OutputDirectory(), default=DEFAULT_OUTDIR, show_default=True,
              help="Output directory.")
@click.option("--baseline", metavar="CONDITION|RUN",
              help="Condition (or a run id, naming its condition) the others are compared against "
                   "[default: first in sorted order].")
@click.option("--contrast", "contrasts", metavar="A:B", multiple=True,
              help="Also compare condition B against condition A (Δ = B − A); repeatable.")
@click.option("--each-run", is_flag=True, help="Every run is a condition of its own (compare any two runs).")
@click.option("--resamples", type=int, default=10_000, show_default=True,
              help="Bootstrap resamples over samples (1 to 1,000,000).")
@click.option("--seed", type=click.IntRange(0, 2**63 - 1), default=0, show_default=True, help="Seed of the resampling.")
@click.option("--ddof", type=click.IntRange(min=0), default=1, show_default=True,
              help="Delta degrees of freedom of the SD over seeds (0: population SD).")
@click.option("--interval", type=click.Choice(["welch", "banerjee"]), default="welch", show_default=True,
              help="How intervals combine seed and sample variance: Welch–Satterthwaite df (welch) or "
                   "Banerjee's conservative rule (banerjee).")
@click.option("--holm", is_flag=True, help="Add Holm-adjusted p-values (over the rows of each table).")
@click.option("--by", "by", metavar="COLUMN", multiple=True,
              help="Split samples by a boolean or text per-sample column, or gold_explicitness, aspect_count, "
                   "gold_polarity, aspect_category; repeatable.")
@click.option("--metrics", metavar="A,B,...", help="Metrics of the readable and paper tables [default: headline].")
@click.option("--paper", is_flag=True, help="Also write paper.md, paper.csv, paper.tex (the paper table).")
@click.option("--paper-cells", type=click.Choice(PAPER_CELLS), default="sd", show_default=True,
              help="Cells of the paper table: mean ± SD over seeds (sd) or mean [95% CI] over seeds and samples (ci).")
@click.option("--samples", type=click.Choice(["changed", "only-a", "only-b"]), default=None,
              help="Write samples_<mode>.csv: the samples whose final correctness differs in each contrast.")
@click.option("--condition-pattern", metavar="REGEX",
              help="Regex with named groups condition (and seed) to read from each run id.")
@click.option("--skip-bad-runs", is_flag=True, help="Report and skip an unreadable run instead of stopping.")
@click.option("--allow", "allow", multiple=True, metavar="CODE",
              help="Silence the warning CODE (repeatable; see docs/warnings.md).")
@click.option("--fail-on-warning", is_flag=True, help="Exit with status 3 when a run raises a warning not allowed.")
@click.option("--no-cache", "no_cache", is_flag=True,
              help="Decode every run's scorecards, even where RUN/derived/metrics holds what aggregate wrote "
                   "from the same bytes and settings.")
@click.option("--json", "as_json", is_flag=True, help="Print the tables (not the merged per-sample table) as JSON.")
@click.option("--quiet", "-q", is_flag=True, help="No summary on stdout; warnings as their codes and counts only.")
@spreadsheet_safe_option
def compare_command(**options: Any) -> None:
    """Compare runs: every metric per condition over seeds, contrasts with intervals and p-values,
    subsets, review-agent agreement, flips, self-consistency.

    RUN is a run directory or a scorecards file; a merged file holding several run ids is split
    by run id. Condition = run id without a trailing _proposed and its __seed<N> part; seed = N.
    """
    user_errors(run_compare)(**options)


def run_compare(runs: tuple[Path, ...], outdir: Path, as_json: bool, quiet: bool, paper: bool, paper_cells: str,
                contrasts: tuple[str, ...], metrics: str | None, skip_bad_runs: bool, spreadsheet_safe: bool,
                allow: tuple[str, ...], fail_on_warning: bool, no_cache: bool, **options: Any) -> None:
    """Compute the comparison, write its files atomically (never over an input), print JSON or a summary;
    the runs' warnings go to stderr, and with ``fail_on_warning`` any of them makes the exit status 3.
    Freed memory is kept briefly when the runs are small together (:func:`aggregator.commands.allocator.for_runs`)."""
    allocator.for_runs(runs, together=True)
    from aggregator.commands.exits import EXIT_WARNING
    from aggregator.commands.run import allowed_codes
    from aggregator.commands.terminal import warn
    from aggregator.compare.api import check_resamples, compare_runs, input_files
    from aggregator.compare.files import comparison_files
    from aggregator.compare.paper import metric_list
    from aggregator.outputs.atomic import write_outputs
    from aggregator.outputs.destination import check_destination
    from aggregator.outputs.names import COMPARISON_OUTPUTS

    _refuse_old_paper_value(runs)
    check_resamples(options["resamples"])
    check_destination(outdir, COMPARISON_OUTPUTS, input_files(runs))
    result = compare_runs(runs, contrasts=[_contrast(c) for c in contrasts], metrics=metric_list(metrics),
                          skip_bad_runs=skip_bad_runs, allow=allowed_codes(allow), reuse=not no_cache,
                          **options)
    for skipped in result.skipped_runs:
        say(f"aggregate: skipped {skipped['path']}: {skipped['reason']}", err=True)
    files = comparison_files(result, paper=paper_cells if paper else None, spreadsheet_safe=spreadsheet_safe)
    written = write_outputs(outdir, files, inputs=input_files(runs))
    for line in warning_lines(result, quiet=quiet):
        warn(line)
    if as_json:
        say_json(result.to_dict())
    elif not quiet:
        for line in summary_lines(result):
            out(line)
        out(reading_line(result.runs.height, result.runs_reused, no_cache))
        out(f"wrote {len(written)} files to {outdir}")
    if fail_on_warning and result.run_warnings:
        warned = len({w["run_id"] for w in result.run_warnings})
        say(f"aggregate: error: {warned} of {result.runs.height} runs raised warnings (--fail-on-warning)", err=True)
        raise SystemExit(EXIT_WARNING)


def _refuse_old_paper_value(runs: tuple[Path, ...]) -> None:
    """``--paper sd`` / ``--paper ci`` (the old optional value) would read ``sd`` as a run: say what to write."""
    from scorecards.errors import InputError

    for run in runs:
        if str(run) in PAPER_CELLS and not run.exists():
            raise InputError(f"{run}: no such run; --paper takes no value now: write --paper --paper-cells {run}")
