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

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from aggregator.compare.samples import UNIT_NAMES
from aggregator.metrics.structural import STRUCTURAL, UNIT_LABELS
from aggregator.outputs.cells import NOT_AVAILABLE, markdown_cell
from aggregator.text import md_code, md_text
from aggregator.units.error_anatomy import UNIT_CLASSES, gold_side
from aggregator.units.error_classes import EXACT, SPURIOUS

if TYPE_CHECKING:
    import polars as pl

    from aggregator.compare.result import ComparisonResult


def table(header: Sequence[str], rows: Sequence[Sequence[str]], numeric_from: int) -> list[str]:
    align = ["---" if i < numeric_from else "---:" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines + [""]


def name(text: object) -> str:
    """A condition (or a level) in a table cell."""
    return md_code(str(text), in_table=True)


def note(text: object) -> str:
    """A note in a table cell."""
    return md_text(str(text or ""))


def signed(value: object) -> str:
    return NOT_AVAILABLE if value is None else f"{value:+.4f}"


def interval(low: object, high: object, sign: bool = False) -> str:
    if low is None or high is None:
        return NOT_AVAILABLE
    show = signed if sign else markdown_cell
    return f"[{show(low)}, {show(high)}]"


def mean_sd(row: dict[str, object]) -> str:
    mean, sd = row["mean"], row["sd"]
    if mean is None:
        return NOT_AVAILABLE
    return markdown_cell(mean) if sd is None else f"{markdown_cell(mean)} ± {markdown_cell(sd)}"


def p_cell(p: object) -> str:
    if p is None:
        return NOT_AVAILABLE
    return "< 0.0001" if isinstance(p, float) and p < 1e-4 else markdown_cell(p)


def label(metric: str) -> str:
    return STRUCTURAL[metric].label if metric in STRUCTURAL else metric


def method_caption(result: ComparisonResult) -> str:
    """How the condition and contrast numbers were made, for captions."""
    return (f"SD over seeds with ddof = {result.ddof}. 95% intervals over seeds and samples: seed variance from "
            "the runs' values (ddof 1, t with seeds − 1 df), sample variance from a paired bootstrap over samples "
            f"({result.resamples} resamples, seed {result.seed}; t with samples − 1 df), combined by Banerjee's "
            "conservative rule; p-values from the same test (the interval excludes 0 exactly when p < 0.05).")


def _shown(frame: pl.DataFrame, shown: Sequence[str]) -> list[dict[str, Any]]:
    """The rows of the ``shown`` metrics, in that order (Polars types row values as Any)."""
    order = {m: i for i, m in enumerate(shown)}
    rows = [r for r in frame.iter_rows(named=True) if r["metric"] in order]
    return sorted(rows, key=lambda r: order[str(r["metric"])])


def conditions_section(result: ComparisonResult) -> list[str]:
    """Per shown metric and condition: runs, seeds, mean ± SD, the interval, pooled value, seed share."""
    lines = ["## Conditions", "", method_caption(result) + " Pooled: the metric over all runs' rows together. "
             f"Every metric: conditions.csv ({result.conditions.get_column('metric').n_unique()} metrics).", ""]
    header = ["Metric", "Condition", "Runs", "Seeds", "Mean ± SD", "95% CI", "Pooled", "Seed share", "Note"]
    rows = [
        [label(str(r["metric"])), name(r["condition"]), str(r["n_defined"]), _seeds(r["seeds"]), mean_sd(r),
         interval(r["ci_low"], r["ci_high"]), markdown_cell(r["pooled"]), markdown_cell(r["seed_share"], 2),
         note(r["note"])]
        for r in _shown(result.conditions, result.metrics_shown)
    ]
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
              f"{method_caption(result)}{holm} Every metric: paired.csv.", ""]
    header = ["Metric", "A", "B", "n", "Mean A", "Mean B", "Δ", "95% CI", "p", *(["p (Holm)"] if result.holm else []),
              "Seed share", "Note"]
    rows = [
        [label(str(r["metric"])), name(r["condition_a"]), name(r["condition_b"]), str(r["n_samples"]),
         markdown_cell(r["mean_a"]), markdown_cell(r["mean_b"]), signed(r["delta"]),
         interval(r["ci_low"], r["ci_high"], sign=True), p_cell(r["p_value"]),
         *([p_cell(r["p_holm"])] if result.holm else []), markdown_cell(r["seed_share"], 2), note(r["note"])]
        for r in _shown(result.paired, result.metrics_shown)
    ]
    return lines + table(header, rows, 3)


def subsets_section(result: ComparisonResult) -> list[str]:
    if result.subsets.height == 0:
        return []
    lines = ["## Subsets", "", f"Samples split by {', '.join(result.by)}; levels with fewer than 10 samples are "
             f"marked small. Δ against {md_code(result.baseline)} on the level's samples present in every run of both. "
             + method_caption(result), ""]
    header = ["By", "Level", "Metric", "Condition", "n", "Mean", "95% CI", "Δ", "Δ 95% CI", "p", "Note"]
    rows = [
        [str(r["by"]), name(r["level"]) + (" (small)" if r["small"] else ""), label(str(r["metric"])),
         name(r["condition"]), str(r["n_samples"]), markdown_cell(r["mean"]), interval(r["ci_low"], r["ci_high"]),
         signed(r["delta"]), interval(r["delta_ci_low"], r["delta_ci_high"], sign=True), p_cell(r["p_value"]),
         note(r["note"])]
        for r in result.subsets.iter_rows(named=True)
    ]
    return lines + table(header, rows, 4)


AGREEMENT = (("fleiss_kappa", "Fleiss' κ"), ("krippendorff_alpha", "Krippendorff's α"),
             ("observed_agreement", "Observed agreement"))


def agreement_rows(agreement: pl.DataFrame) -> list[list[str]]:
    """Per scope: runs, samples, items, and each statistic with its interval."""
    return [
        [name(r["scope"]), str(r["n_runs"]), str(r["n_samples"]), str(r["n_items"]),
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


def error_class_metrics() -> list[tuple[str, str, str]]:
    """``(unit, class, metric)`` of the section, in display order."""
    out = []
    for unit in UNIT_CLASSES:
        for cls in (EXACT, *gold_side(unit)):
            out.append((unit, cls, f"errors_{cls}_s2_{unit}_per_gold"))
        out.append((unit, SPURIOUS, f"errors_{SPURIOUS}_s2_{unit}_per_pred"))
    return out


def errors_section(result: ComparisonResult) -> list[str]:
    """``## Error anatomy (final stage)``: per unit and class, each condition's mean with its 95% interval,
    and each contrast's paired Δ with its interval and p (rows of conditions.csv and paired.csv). Gold-side
    classes are ``errors_{class}_s2_{unit}_per_gold`` (exact … missed sum to 1), spurious is
    ``errors_spurious_s2_{unit}_per_pred``. None when the errors family's metrics are not compared."""
    shown = error_class_metrics()
    wanted = {metric: (unit, cls) for unit, cls, metric in shown}
    order = {metric: i for i, (_, _, metric) in enumerate(shown)}
    conditions = [r for r in result.conditions.iter_rows(named=True) if r["metric"] in wanted]
    if not conditions:
        return []
    conditions.sort(key=lambda r: order[r["metric"]])
    lines = ["## Error anatomy (final stage)", "",
             "Every gold and predicted pair of a unit classified at the final stage (docs/errors.md). Gold-side classes "
             "(exact, polarity, category, boundary, implicit, missed) are shares of the unit's gold pairs and sum to 1; "
             "spurious is a share of the final predicted pairs. Samples with gold. n: runs. "
             + method_caption(result), ""]
    header = ["Unit", "Class", "Condition", "n", "Mean ± SD", "95% CI", "Note"]
    rows = [[UNIT_LABELS[wanted[r["metric"]][0]], wanted[r["metric"]][1], name(r["condition"]), str(r["n_defined"]),
             mean_sd(r), interval(r["ci_low"], r["ci_high"]), note(r["note"])] for r in conditions]
    lines += table(header, rows, 3)
    paired = sorted((r for r in result.paired.iter_rows(named=True) if r["metric"] in wanted),
                    key=lambda r: (order[r["metric"]], r["condition_a"], r["condition_b"]))
    if paired:
        lines += ["Paired Δ = B − A per class, on the samples present in every run of both (n: samples).", ""]
        header = ["Unit", "Class", "A", "B", "n", "Δ", "95% CI", "p", "Note"]
        rows = [[UNIT_LABELS[wanted[r["metric"]][0]], wanted[r["metric"]][1], name(r["condition_a"]),
                 name(r["condition_b"]), str(r["n_samples"]), signed(r["delta"]),
                 interval(r["ci_low"], r["ci_high"], sign=True), p_cell(r["p_value"]), note(r["note"])]
                for r in paired]
        lines += table(header, rows, 4)
    return lines


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
