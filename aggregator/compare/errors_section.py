"""The error-anatomy section of ``comparison.md``: each error class's rate per condition and its paired Δ.

The rows come from ``conditions.csv`` and ``paired.csv`` (the errors family's metrics, resampled like any
other registry metric); docs/errors.md defines the classes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aggregator.compare.cells import interval, mean_sd, method_caption, name, note, p_cell, signed, table
from aggregator.metrics.structural import UNIT_LABELS
from aggregator.units.error_anatomy import UNIT_CLASSES, gold_side
from aggregator.units.error_classes import EXACT, SPURIOUS

if TYPE_CHECKING:
    from aggregator.compare.result import ComparisonResult


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
