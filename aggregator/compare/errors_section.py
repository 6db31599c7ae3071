"""The ``## Error anatomy (final stage)`` section of ``comparison.md``: per unit and error class, each
condition's mean with its 95% interval, and each contrast's paired Δ with its interval and p.

The numbers are rows of ``conditions.csv`` and ``paired.csv`` (the errors family's registry metrics,
resampled like every other metric): gold-side classes as shares of the unit's gold pairs
(``errors_{class}_s2_{unit}_per_gold``; exact … missed sum to 1), spurious as a share of the final
predicted pairs (``errors_spurious_s2_{unit}_per_pred``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aggregator.compare.markdown import interval, mean_sd, method_caption, name, note, p_cell, signed, table
from aggregator.units.error_anatomy import UNIT_CLASSES, gold_side
from aggregator.units.error_classes import EXACT, SPURIOUS

if TYPE_CHECKING:
    from aggregator.compare.result import ComparisonResult

UNIT_TITLES = {"refpol": "Ref", "otepol": "Surface", "attrpol": "Attr"}


def class_metrics() -> list[tuple[str, str, str]]:
    """``(unit, class, metric)`` of the section, in display order."""
    out = []
    for unit in UNIT_CLASSES:
        for cls in (EXACT, *gold_side(unit)):
            out.append((unit, cls, f"errors_{cls}_s2_{unit}_per_gold"))
        out.append((unit, SPURIOUS, f"errors_{SPURIOUS}_s2_{unit}_per_pred"))
    return out


def errors_section(result: ComparisonResult) -> list[str]:
    """The section's lines; none when the errors family's metrics are not in the comparison."""
    shown = class_metrics()
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
    rows = [[UNIT_TITLES[wanted[r["metric"]][0]], wanted[r["metric"]][1], name(r["condition"]), str(r["n_defined"]),
             mean_sd(r), interval(r["ci_low"], r["ci_high"]), note(r["note"])] for r in conditions]
    lines += table(header, rows, 3)
    paired = sorted((r for r in result.paired.iter_rows(named=True) if r["metric"] in wanted),
                    key=lambda r: (order[r["metric"]], r["condition_a"], r["condition_b"]))
    if paired:
        lines += ["Paired Δ = B − A per class, on the samples present in every run of both (n: samples).", ""]
        header = ["Unit", "Class", "A", "B", "n", "Δ", "95% CI", "p", "Note"]
        rows = [[UNIT_TITLES[wanted[r["metric"]][0]], wanted[r["metric"]][1], name(r["condition_a"]),
                 name(r["condition_b"]), str(r["n_samples"]), signed(r["delta"]),
                 interval(r["ci_low"], r["ci_high"], sign=True), p_cell(r["p_value"]), note(r["note"])]
                for r in paired]
        lines += table(header, rows, 4)
    return lines
