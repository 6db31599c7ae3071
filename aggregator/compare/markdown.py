"""``comparison.md``: the comparison as a readable report.

The shown metrics (``--metrics``, default the headline set) per condition as mean ± SD over seeds
with the 95% interval of the mean, each contrast's Δ with its interval and p, subsets, flips,
self-consistency, and the notes (unequal seeds, missing samples, degenerate cases). Every metric
is in ``conditions.csv`` and ``paired.csv``; the captions say how the numbers were made. The error
anatomy's class rates (docs/errors.md) get their own section. Condition names and levels are code
spans, notes escaped prose (:mod:`aggregator.text`): a name holding ``|``, a newline or markup
changes no table and no line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from aggregator.compare.cells import MARKED, SEED_SHARE, interval, is_count, label, mean_sd, method_caption, name, p_cell, signed, table, value
from aggregator.compare.errors_section import errors_section
from aggregator.compare.samples import UNIT_NAMES
from aggregator.metrics.structural import UNIT_LABELS
from aggregator.outputs.cells import NOT_AVAILABLE, markdown_cell
from aggregator.text import md_code, md_text

if TYPE_CHECKING:
    import polars as pl

    from aggregator.compare.result import ComparisonResult


def _shown(frame: pl.DataFrame, shown: Sequence[str]) -> list[dict[str, Any]]:
    """The rows of the ``shown`` metrics, in that order (Polars types row values as Any)."""
    order = {m: i for i, m in enumerate(shown)}
    rows = [r for r in frame.iter_rows(named=True) if r["metric"] in order]
    return sorted(rows, key=lambda r: order[str(r["metric"])])


def codes_of(row: Mapping[str, Any]) -> list[str]:
    """The warning codes covering a row's value (its ``warnings`` column)."""
    return [str(code) for code in row.get("warnings") or ()]


def warned(text: str, row: dict[str, object]) -> str:
    """A value cell, followed by ⚠ when a warning covers it."""
    return f"{text} ⚠" if codes_of(row) and text != NOT_AVAILABLE else text


def noted(row: dict[str, object]) -> str:
    """The Note cell: the row's note, then ⚠ and the codes covering its value."""
    codes = codes_of(row)
    parts = [str(row["note"] or ""), f"⚠ {', '.join(codes)}" if codes else ""]
    return md_text("; ".join(p for p in parts if p))


def runs_defined(row: dict[str, object]) -> str:
    """Runs in which the metric is defined, ``k of n`` when that is not all of them."""
    defined, runs = row["n_defined"], row["n_runs"]
    return str(defined) if defined == runs else f"{defined} of {runs}"


def conditions_section(result: ComparisonResult) -> list[str]:
    """Per shown metric and condition: runs, seeds, mean ± SD, the interval, pooled value, seed share."""
    lines = ["## Conditions", "", method_caption(result) + " Pooled: the metric over all runs' rows together. "
             f"{SEED_SHARE} {MARKED} Every metric: conditions.csv "
             f"({result.conditions.get_column('metric').n_unique()} metrics).", ""]
    header = ["Metric", "Condition", "Runs", "Seeds", "Mean ± SD", "95% CI", "Pooled", "Seed share", "Note"]
    rows = []
    for r in _shown(result.conditions, result.metrics_shown):
        count = is_count(r["metric"])
        rows.append([label(str(r["metric"])), name(r["condition"]), runs_defined(r), _seeds(r["seeds"]),
                     warned(mean_sd(r), r), warned(interval(r["ci_low"], r["ci_high"], count=count), r),
                     warned(value(r["pooled"], count), r), markdown_cell(r["seed_share"], 2), noted(r)])
    return lines + table(header, rows, 2)


def _seeds(seeds: Sequence[int] | None) -> str:
    return ", ".join(map(str, seeds)) if seeds else "—"


def paired_section(result: ComparisonResult) -> list[str]:
    """Each contrast: both means, Δ with its 95% interval, p (and Holm's p)."""
    lines = ["## Contrasts", ""]
    if result.paired.height == 0:
        return lines + ["Only one condition: nothing to pair.", ""]
    holm = " Holm-adjusted p over every row of paired.csv." if result.holm else ""
    lines += [f"Δ = B − A on the samples present in every run of both (paired on split and sample key). "
              f"{method_caption(result)}{holm} {SEED_SHARE} {MARKED} Every metric: paired.csv.", ""]
    header = ["Metric", "A", "B", "n", "Mean A", "Mean B", "Δ", "95% CI", "p", *(["p (Holm)"] if result.holm else []),
              "Seed share", "Note"]
    rows = []
    for r in _shown(result.paired, result.metrics_shown):
        count = is_count(r["metric"])
        rows.append([label(str(r["metric"])), name(r["condition_a"]), name(r["condition_b"]), str(r["n_samples"]),
                     warned(value(r["mean_a"], count), r), warned(value(r["mean_b"], count), r),
                     warned(signed(r["delta"], count), r),
                     warned(interval(r["ci_low"], r["ci_high"], sign=True, count=count), r), p_cell(r["p_value"]),
                     *([p_cell(r["p_holm"])] if result.holm else []), markdown_cell(r["seed_share"], 2), noted(r)])
    return lines + table(header, rows, 3)


def subsets_section(result: ComparisonResult) -> list[str]:
    if result.subsets.height == 0:
        return []
    lines = ["## Subsets", "", f"Samples split by {', '.join(result.by)}; levels with fewer than 10 samples are "
             f"marked small. Δ against {md_code(result.baseline)} on the level's samples present in every run of both. "
             + method_caption(result) + f" {MARKED}", ""]
    header = ["By", "Level", "Metric", "Condition", "n", "Mean", "95% CI", "Δ", "Δ 95% CI", "p", "Note"]
    rows = []
    for r in result.subsets.iter_rows(named=True):
        count = is_count(r["metric"])
        rows.append([str(r["by"]), name(r["level"]) + (" (small)" if r["small"] else ""), label(str(r["metric"])),
                     name(r["condition"]), str(r["n_samples"]), warned(value(r["mean"], count), r),
                     warned(interval(r["ci_low"], r["ci_high"], count=count), r), warned(signed(r["delta"], count), r),
                     warned(interval(r["delta_ci_low"], r["delta_ci_high"], sign=True, count=count), r),
                     p_cell(r["p_value"]), noted(r)])
    return lines + table(header, rows, 4)


AGREEMENT = (("fleiss_kappa", "Fleiss' κ"), ("krippendorff_alpha", "Krippendorff's α"),
             ("observed_agreement", "Observed agreement"))


def agreement_rows(agreement: pl.DataFrame, scope: Callable[[object], str] = name) -> list[list[str]]:
    """Per scope (written by ``scope``: a code span here, escaped text in the HTML report): runs,
    samples, items, and each statistic with its interval."""
    return [
        [scope(r["scope"]), str(r["n_runs"]), str(r["n_samples"]), str(r["n_items"]),
         *(f"{markdown_cell(r[s])} {interval(r[s + '_ci_low'], r[s + '_ci_high'])}" for s, _ in AGREEMENT)]
        for r in agreement.iter_rows(named=True)
    ]


def agreement_section(result: ComparisonResult) -> list[str]:
    """Fleiss' κ and Krippendorff's α of the review agents, pooled and per condition."""
    if result.agreement.height == 0:
        return []
    lines = ["## Agreement of the review agents", "",
             "Agents A, B, C over the reviewed tuple ids (KEEP, MERGE, DROP, FLIP…); 95% percentile bootstrap "
             f"intervals over samples ({result.resamples} resamples, seed {result.seed}).", ""]
    header = ["Scope", "Runs", "Samples", "Tuples", *(text for _, text in AGREEMENT)]
    return lines + table(header, agreement_rows(result.agreement), 1)


def flips_section(flips: pl.DataFrame) -> list[str]:
    """Samples correct (final stage, majority of runs) in both / only A / only B / neither."""
    lines = ["## Flips (final stage correct in most runs)", ""]
    if flips.height == 0:
        return lines + ["Only one condition: no pair.", ""]
    header = ["A", "B", "Unit", "n", "Both", "Only A", "Only B", "Neither"]
    rows = [
        [name(r["condition_a"]), name(r["condition_b"]), UNIT_LABELS[r["unit"]],
         *(str(r[c]) for c in ("n_samples", "both", "only_a", "only_b", "neither"))]
        for r in flips.iter_rows(named=True)
    ]
    return lines + table(header, rows, 3)


def consistency_section(consistency: pl.DataFrame) -> list[str]:
    """Agreement between the runs of each condition."""
    lines = ["## Self-consistency across seeds", ""]
    if consistency.height == 0:
        return lines + ["No condition has two runs.", ""]
    header = ["Condition", "Runs", "Samples", "Cross-run max runs", "Cross-run tuple agreement", "Mean Jaccard",
              *(f"{UNIT_LABELS[u]} correct agreement" for u in UNIT_NAMES)]
    rows = [
        [name(r["condition"]), str(r["n_runs"]), str(r["n_samples"]), str(r["cross_run_max_runs"]),
         markdown_cell(r["cross_run_tuple_agreement"]), markdown_cell(r["mean_jaccard"]),
         *(markdown_cell(r[f"{u}_correct_agreement"]) for u in UNIT_NAMES)]
        for r in consistency.iter_rows(named=True)
    ]
    lines += table(header, rows, 1)
    return lines + [
        "Cross-run tuple agreement: share of samples (in ≥ 2 runs) whose final tuple set is identical in every run "
        "(not the CSV's family-17 tuple_agreement_rate). Cross-run max runs: the most runs any sample is in. "
        "Mean Jaccard: mean pairwise |A ∩ B| / |A ∪ B| of final sets (two empty sets: 1). "
        "Correct agreement: share of samples with gold whose final-stage correctness is the same in every run.",
        "",
    ]


def comparison_markdown(result: ComparisonResult) -> str:
    """The whole report."""
    counts = result.runs.group_by("condition", maintain_order=True).len().iter_rows()
    lines = [
        "# Run comparison",
        "",
        f"- Runs: {result.runs.height} in {len(result.conditions_order)} conditions "
        f"({', '.join(f'{md_code(c)} × {n}' for c, n in counts)})",
        f"- Baseline: {md_code(result.baseline)}",
        "",
        *([f"- {md_text(result.lead_reason)} (the readable tables list its metrics first; `--metrics` to choose)"]
          if result.lead_reason else []),
        "",
        "## Notes",
        "",
        *(f"- {md_text(text)}" for text in result.notes),
        "",
    ]
    lines += conditions_section(result)
    lines += paired_section(result)
    lines += errors_section(result)
    lines += subsets_section(result)
    lines += agreement_section(result)
    lines += flips_section(result.flips)
    lines += consistency_section(result.self_consistency)
    lines.append(f"{NOT_AVAILABLE}: undefined (blank in the CSV files). Column definitions: docs/compare.md.")
    return "\n".join(lines) + "\n"
