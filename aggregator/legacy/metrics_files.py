"""``structural_metrics.csv`` and ``structural_metrics_table.md`` as the research script writes them
(LEGACY.md section 4): its 230 columns in its order (the metric values are ``aggregate``'s), the
12 micro columns left out when no row has gold (quirk L2), W-csv; the table with its five
section lines, blanks as ``N/A``, integers as digits and every other number F4.
"""

from __future__ import annotations

from collections.abc import Mapping

from aggregator.legacy.values import delimited, f4, lf_text
from aggregator.metrics.structural import REFERENCE_COLUMNS

MICRO = tuple(f"tuple_f1_s2_{unit}_{part}" for unit in ("refpol", "otepol", "attrpol")
              for part in ("micro", "tp", "fp", "fn"))
SECTIONS = {
    "severe_polarity_error_L3_count": "Outcome Metrics (RQ)",
    "validator_clear_rate": "Process Control Metrics (Internal)",
    "drift_cause_n_changed": "Drift cause (stage1_to_final_changed=1)",
    "drift_any_change_n": "Drift (any vs conflict-relevant)",
    "n_stage2_selected": "Stage2 selection / pairs change",
}


def columns(metrics: Mapping[str, object]) -> list[str]:
    """The script's columns for these metrics: without the micro columns when gold is unavailable."""
    if metrics.get("gold_available"):
        return list(REFERENCE_COLUMNS)
    return [c for c in REFERENCE_COLUMNS if c not in MICRO]


def metrics_csv(metrics: Mapping[str, object]) -> bytes:
    """One header row and one data row (W-csv, cells V)."""
    names = columns(metrics)
    return delimited(names, [[metrics[name] for name in names]])


def table_value(value: object) -> str:
    """A value in the table: ``N/A`` for blank; booleans, text and integers as they are; floats F4."""
    if value is None:
        return "N/A"
    if isinstance(value, float):
        return f4(value)
    return str(value)


def metrics_table(metrics: Mapping[str, object]) -> bytes:
    """``structural_metrics_table.md``: ``| Metric | Value |``, one line per CSV column, section lines."""
    lines = ["| Metric | Value |", "|--------|-------|"]
    for name in columns(metrics):
        if name in SECTIONS:
            lines.append(f"| **{SECTIONS[name]}** | |")
        lines.append(f"| {name} | {table_value(metrics[name])} |")
    return lf_text(lines)
