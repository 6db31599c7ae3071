"""``aggregate compare RUN...``: the command line of the comparison.

Only click is imported here; the comparison itself loads when the command runs, so
``aggregate --help`` stays fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from aggregator.exits import user_errors
from aggregator.terminal import out

if TYPE_CHECKING:
    from aggregator.compare.result import ComparisonResult

DEFAULT_OUTDIR = Path("comparison")


def summary_lines(result: ComparisonResult) -> list[str]:
    """Per condition: runs and F1 S2 mean ± std per unit; then F1 S2 Δ against the baseline with CI and p."""
    from aggregator.compare.markdown import mean_std, signed
    from aggregator.metrics.structural import UNIT_LABELS
    from aggregator.outputs.cells import markdown_cell

    width = max(len(c) for c in result.conditions_order)
    lines = [f"{result.runs.height} runs, {len(result.conditions_order)} conditions; F1 S2 mean ± std over runs:"]
    for row in result.conditions.iter_rows(named=True):
        scores = "  ".join(
            f"{label} {mean_std(row, 'tuple_f1_s2' + ('' if unit == 'refpol' else '_' + unit))}"
            for unit, label in UNIT_LABELS.items()
        )
        lines.append(f"  {row['condition']:<{width}}  {row['n_runs']} runs  {scores}")
    if result.paired.height:
        lines.append(f"F1 S2 against {result.baseline}: Δ [95% CI] p")
    for condition in result.conditions_order:
        pairs = result.paired.filter(condition_b=condition, statistic="f1_s2").iter_rows(named=True)
        tests = [
            f"{UNIT_LABELS[p['unit']]} {signed(p['delta'])} [{signed(p['ci_low'])}, {signed(p['ci_high'])}] "
            f"p {markdown_cell(p['p_value'])}"
            for p in pairs
        ]
        if tests:
            lines.append(f"  {condition:<{width}}  " + "  ".join(tests))
    return lines + [f"note: {note}" for note in result.notes]


@click.command("compare")
@click.argument("runs", nargs=-1, required=True, type=click.Path(path_type=Path, readable=False))
@click.option("--outdir", type=click.Path(path_type=Path, readable=False), default=DEFAULT_OUTDIR, show_default=True,
              help="Output directory.")
@click.option("--baseline", metavar="CONDITION", help="Condition to pair the others against [default: first in sorted order].")
@click.option("--resamples", type=click.IntRange(min=1), default=10_000, show_default=True,
              help="Bootstrap resamples and permutation sign flips.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Seed of the resampling.")
@click.option("--condition-pattern", metavar="REGEX",
              help="Regex with named groups condition (and seed) to read from each run id.")
@click.option("--json", "as_json", is_flag=True, help="Print the tables (not the merged per-sample table) as JSON.")
@click.option("--quiet", "-q", is_flag=True, help="No summary on stdout.")
def compare_command(**options: Any) -> None:
    """Compare runs: conditions x seeds, paired statistics, flips, self-consistency.

    RUN is a run directory or a scorecards file; a merged file holding several run ids is split
    by run id. Condition = run id without a trailing _proposed and its __seed<N> part; seed = N.
    """
    user_errors(run_compare)(**options)


def run_compare(
    runs: tuple[Path, ...],
    outdir: Path,
    baseline: str | None,
    resamples: int,
    seed: int,
    condition_pattern: str | None,
    as_json: bool,
    quiet: bool,
) -> None:
    """Compute the comparison, write its files atomically, print JSON or a summary."""
    import json

    from aggregator.compare.api import compare_runs
    from aggregator.compare.files import comparison_files
    from aggregator.outputs.atomic import write_outputs

    result = compare_runs(runs, baseline=baseline, resamples=resamples, seed=seed,
                          condition_pattern=condition_pattern)
    written = write_outputs(outdir, comparison_files(result))
    if as_json:
        out(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
    elif not quiet:
        for line in summary_lines(result):
            out(line)
        out(f"wrote {len(written)} files to {outdir}")
