"""``comparison.md``: the comparison as a readable report.

Conditions as mean ± std over runs (with their seeds), paired deltas with CI and p against the
baseline, flips, self-consistency, and the notes on unequal seeds and missing samples.
Condition names are code spans and the notes escaped prose (:mod:`aggregator.text`): a name
holding ``|``, a newline or markup changes no table and no line.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from aggregator.compare.result import ComparisonResult
from aggregator.compare.tables import PER_UNIT, UNIT_SUFFIXES
from aggregator.metrics.structural import STRUCTURAL, UNIT_LABELS
from aggregator.outputs.cells import NOT_AVAILABLE, markdown_cell
from aggregator.text import md_code, md_text

STATISTIC_LABELS = {"f1_s2": "F1 S2", "delta_f1": "ΔF1 (S2 − S1)"}


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], numeric_from: int) -> list[str]:
    align = ["---" if i < numeric_from else "---:" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines + [""]


def _name(condition: str) -> str:
    """A condition in a table cell."""
    return md_code(condition, in_table=True)


def mean_std(row: dict[str, object], metric: str) -> str:
    mean, std = row[f"{metric}_mean"], row[f"{metric}_std"]
    if mean is None:
        return NOT_AVAILABLE
    return markdown_cell(mean) if std is None else f"{markdown_cell(mean)} ± {markdown_cell(std)}"


def signed(value: object) -> str:
    return NOT_AVAILABLE if value is None else f"{value:+.4f}"


def _seeds(seeds: Sequence[int]) -> str:
    return ", ".join(map(str, seeds)) if seeds else "—"


def conditions_section(conditions: pl.DataFrame) -> list[str]:
    """One table per unit: runs, seeds and mean ± std of each headline metric."""
    lines = ["## Conditions (mean ± std over runs)", ""]
    for unit, suffix in zip(UNIT_LABELS, UNIT_SUFFIXES):
        metrics = [f"{name}{suffix}" for name in PER_UNIT] + [f"tuple_f1_s2_{unit}_micro"]
        header = ["Condition", "Runs", "Seeds", *(STRUCTURAL[m].label for m in metrics)]
        rows = [
            [_name(row["condition"]), str(row["n_runs"]), _seeds(row["seeds"]), *(mean_std(row, m) for m in metrics)]
            for row in conditions.iter_rows(named=True)
        ]
        lines += [f"### {UNIT_LABELS[unit]} ({unit})", "", *_table(header, rows, 3)]
    return lines


def paired_section(result: ComparisonResult) -> list[str]:
    """Each condition against the baseline: means, Δ with its 95% CI, and p."""
    lines = [f"## Paired against {md_code(result.baseline)}", ""]
    if result.paired.height == 0:
        return lines + ["Only one condition: nothing to pair.", ""]
    lines += [
        f"Per-sample scores (mean over a condition's runs), samples present in both conditions; Δ = condition − "
        f"baseline; 95% percentile bootstrap CI and two-sided sign-flip permutation p, {result.resamples} "
        f"resamples, seed {result.seed}.",
        "",
    ]
    header = ["Condition", "Unit", "Statistic", "n", "Baseline", "Condition mean", "Δ", "95% CI", "p"]
    rows = [
        [_name(r["condition_b"]), UNIT_LABELS[r["unit"]], STATISTIC_LABELS[r["statistic"]], str(r["n_samples"]),
         markdown_cell(r["mean_a"]), markdown_cell(r["mean_b"]), signed(r["delta"]),
         NOT_AVAILABLE if r["ci_low"] is None else f"[{signed(r['ci_low'])}, {signed(r['ci_high'])}]",
         markdown_cell(r["p_value"])]
        for r in result.paired.iter_rows(named=True)
    ]
    return lines + _table(header, rows, 3)


def flips_section(flips: pl.DataFrame) -> list[str]:
    """Samples correct (final stage, majority of runs) in both / only A / only B / neither."""
    lines = ["## Flips (final stage correct in most runs)", ""]
    if flips.height == 0:
        return lines + ["Only one condition: no pair.", ""]
    header = ["A", "B", "Unit", "n", "Both", "Only A", "Only B", "Neither"]
    rows = [
        [_name(r["condition_a"]), _name(r["condition_b"]), UNIT_LABELS[r["unit"]],
         *(str(r[c]) for c in ("n_samples", "both", "only_a", "only_b", "neither"))]
        for r in flips.iter_rows(named=True)
    ]
    return lines + _table(header, rows, 3)


def consistency_section(consistency: pl.DataFrame) -> list[str]:
    """Agreement between the runs of each condition."""
    lines = ["## Self-consistency across seeds", ""]
    if consistency.height == 0:
        return lines + ["No condition has two runs.", ""]
    units = list(UNIT_LABELS)
    header = ["Condition", "Runs", "Samples", "Trials", "Tuple agreement", "Mean Jaccard",
              *(f"{UNIT_LABELS[u]} correct agreement" for u in units)]
    rows = [
        [_name(r["condition"]), str(r["n_runs"]), str(r["n_samples"]), str(r["n_trials"]),
         markdown_cell(r["tuple_agreement_rate"]), markdown_cell(r["mean_jaccard"]),
         *(markdown_cell(r[f"{u}_correct_agreement"]) for u in units)]
        for r in consistency.iter_rows(named=True)
    ]
    lines += _table(header, rows, 1)
    return lines + [
        "Tuple agreement: share of samples (in ≥ 2 runs) whose final tuple set is identical in every run. "
        "Mean Jaccard: mean pairwise |A ∩ B| / |A ∪ B| of final sets (two empty sets: 1). "
        "Correct agreement: share of samples with gold whose final-stage correctness is the same in every run.",
        "",
    ]


def comparison_markdown(result: ComparisonResult) -> str:
    """The whole report."""
    counts = result.conditions.select("condition", "n_runs").iter_rows()
    lines = [
        "# Run comparison",
        "",
        f"- Runs: {result.runs.height} in {len(result.conditions_order)} conditions "
        f"({', '.join(f'{md_code(c)} × {n}' for c, n in counts)})",
        f"- Baseline: {md_code(result.baseline)}",
        "",
        "## Notes",
        "",
        *(f"- {md_text(note)}" for note in result.notes),
        "",
    ]
    lines += conditions_section(result.conditions)
    lines += paired_section(result)
    lines += flips_section(result.flips)
    lines += consistency_section(result.self_consistency)
    lines.append(f"{NOT_AVAILABLE}: undefined (blank in the CSV files). Column definitions: docs/compare.md.")
    return "\n".join(lines) + "\n"
