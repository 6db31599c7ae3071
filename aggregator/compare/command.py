"""``aggregate compare RUN...``: the command line of the comparison.

Only click is imported here; the comparison itself loads when the command runs, so
``aggregate --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from aggregator.commands.exits import user_errors
from aggregator.commands.options import OutputDirectory, spreadsheet_safe_option
from aggregator.commands.terminal import out, say, say_json

if TYPE_CHECKING:
    from aggregator.compare.result import ComparisonResult

DEFAULT_OUTDIR = Path("comparison")
SUMMARY_METRICS = ("tuple_f1_s2", "tuple_f1_s2_otepol", "tuple_f1_s2_attrpol")


def summary_lines(result: ComparisonResult) -> list[str]:
    """Per condition: runs and F1 S2 mean ± SD per unit; then each contrast's Δ F1 S2 with CI and p."""
    from aggregator.compare.markdown import interval, label, mean_sd, p_cell, signed

    width = max(len(c) for c in result.conditions_order)
    conditions = {(r["condition"], r["metric"]): r for r in result.conditions.iter_rows(named=True)}
    lines = [f"{result.runs.height} runs, {len(result.conditions_order)} conditions; "
             f"F1 S2 mean ± SD over seeds (ddof {result.ddof}):"]
    for condition in result.conditions_order:
        first = conditions[(condition, SUMMARY_METRICS[0])]
        scores = "  ".join(f"{label(m)} {mean_sd(conditions[(condition, m)])}" for m in SUMMARY_METRICS)
        lines.append(f"  {condition:<{width}}  {first['n_runs']} runs  {scores}")
    paired = [r for r in result.paired.iter_rows(named=True) if r["metric"] in SUMMARY_METRICS]
    if paired:
        lines.append("F1 S2, B − A: Δ [95% CI] p (intervals over seeds and samples)")
    for a, b in result.contrasts:
        tests = [f"{label(str(r['metric']))} {signed(r['delta'])} {interval(r['ci_low'], r['ci_high'], sign=True)} "
                 f"p {p_cell(r['p_value'])}" for r in paired if (r["condition_a"], r["condition_b"]) == (a, b)]
        if tests:
            lines.append(f"  {b} − {a}:  " + "  ".join(tests))
    return lines + [f"note: {note}" for note in result.notes]


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
@click.option("--holm", is_flag=True, help="Add Holm-adjusted p-values (over the rows of each table).")
@click.option("--by", "by", metavar="COLUMN", multiple=True,
              help="Split samples by a boolean or text per-sample column, or gold_explicitness, aspect_count, "
                   "gold_polarity, aspect_category; repeatable.")
@click.option("--metrics", metavar="A,B,...", help="Metrics of the readable and paper tables [default: headline].")
@click.option("--paper", type=click.Choice(["sd", "ci"]), default=None,
              help="Also write paper.md, paper.csv, paper.tex; cells mean ± SD (sd) or mean [95% CI] (ci).")
@click.option("--samples", type=click.Choice(["changed", "only-a", "only-b"]), default=None,
              help="Write samples_<mode>.csv: the samples whose final correctness differs in each contrast.")
@click.option("--condition-pattern", metavar="REGEX",
              help="Regex with named groups condition (and seed) to read from each run id.")
@click.option("--skip-bad-runs", is_flag=True, help="Report and skip an unreadable run instead of stopping.")
@click.option("--json", "as_json", is_flag=True, help="Print the tables (not the merged per-sample table) as JSON.")
@click.option("--quiet", "-q", is_flag=True, help="No summary on stdout.")
@spreadsheet_safe_option
def compare_command(**options: Any) -> None:
    """Compare runs: every metric per condition over seeds, contrasts with intervals and p-values,
    subsets, review-agent agreement, flips, self-consistency.

    RUN is a run directory or a scorecards file; a merged file holding several run ids is split
    by run id. Condition = run id without a trailing _proposed and its __seed<N> part; seed = N.
    """
    user_errors(run_compare)(**options)


def run_compare(runs: tuple[Path, ...], outdir: Path, as_json: bool, quiet: bool, paper: str | None,
                contrasts: tuple[str, ...], metrics: str | None, skip_bad_runs: bool, spreadsheet_safe: bool,
                **options: Any) -> None:
    """Compute the comparison, write its files atomically (never over an input), print JSON or a summary."""
    from aggregator.compare.api import check_resamples, compare_runs, input_files
    from aggregator.compare.files import comparison_files
    from aggregator.compare.paper import metric_list
    from aggregator.outputs.atomic import write_outputs
    from aggregator.outputs.destination import check_destination
    from aggregator.outputs.names import COMPARISON_OUTPUTS

    check_resamples(options["resamples"])
    check_destination(outdir, COMPARISON_OUTPUTS, input_files(runs))
    result = compare_runs(runs, contrasts=[_contrast(c) for c in contrasts], metrics=metric_list(metrics),
                          skip_bad_runs=skip_bad_runs, **options)
    for skipped in result.skipped_runs:
        say(f"aggregate: skipped {skipped['path']}: {skipped['reason']}", err=True)
    files = comparison_files(result, paper=paper, spreadsheet_safe=spreadsheet_safe)
    written = write_outputs(outdir, files, inputs=input_files(runs))
    if as_json:
        say_json(result.to_dict())
    elif not quiet:
        for line in summary_lines(result):
            out(line)
        out(f"wrote {len(written)} files to {outdir}")
