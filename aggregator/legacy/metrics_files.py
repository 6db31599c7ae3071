"""``structural_metrics.csv`` and ``structural_metrics_table.md`` as the research script writes them
(LEGACY.md section 4): its 230 columns in its order (the metric values are ``aggregate``'s), the
12 micro columns left out when no row has gold (quirk L2), W-csv; the table with its five
section lines, blanks as ``N/A``, integers as digits and every other number F4.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import msgspec

from aggregator.legacy.values import delimited, f4, lf_text
from aggregator.metrics.override import HINT_COLUMNS
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


class _Hints(msgspec.Struct, gc=False):
    override_hint_invalid_total: int | float | None = None
    override_hint_repair_total: int | float | None = None
    override_hint_invalid_rate: int | float | None = None


def integral_hints(side_file: Path | None) -> frozenset[str]:
    """The hint columns whose value in the side file is a JSON integer: the table writes a copied
    number in its own type (``0``, not ``0.0000``). None: the side file was not read."""
    if side_file is None:
        return frozenset()
    try:
        hints = msgspec.json.decode(side_file.read_bytes(), type=_Hints)
    except (OSError, msgspec.MsgspecError):
        return frozenset()
    return frozenset(name for name in HINT_COLUMNS if type(getattr(hints, name)) is int)


def columns(metrics: Mapping[str, object]) -> list[str]:
    """The script's columns for these metrics: without the micro columns when gold is unavailable."""
    if metrics.get("gold_available"):
        return list(REFERENCE_COLUMNS)
    return [c for c in REFERENCE_COLUMNS if c not in MICRO]


def metrics_csv(metrics: Mapping[str, object]) -> bytes:
    """One header row and one data row (W-csv, cells V)."""
    names = columns(metrics)
    return delimited(names, [[metrics[name] for name in names]])


def table_value(value: object, integral: bool = False) -> str:
    """A value in the table: ``N/A`` for blank; booleans, text and integers as they are; other floats F4."""
    if value is None:
        return "N/A"
    if isinstance(value, float):
        return str(int(value)) if integral and value.is_integer() else f4(value)
    return str(value)


def metrics_table(metrics: Mapping[str, object], integral: frozenset[str] = frozenset()) -> bytes:
    """``structural_metrics_table.md``: ``| Metric | Value |``, one line per CSV column, section lines;
    the metrics named in ``integral`` (copied JSON integers) as digits."""
    lines = ["| Metric | Value |", "|--------|-------|"]
    for name in columns(metrics):
        if name in SECTIONS:
            lines.append(f"| **{SECTIONS[name]}** | |")
        lines.append(f"| {name} | {table_value(metrics[name], name in integral)} |")
    return lf_text(lines)
