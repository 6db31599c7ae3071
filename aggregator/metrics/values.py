"""A metric's value in Python: what a run's ``metrics`` map holds (no Polars needed to name it)."""

from __future__ import annotations

from typing import Literal

MetricValue = bool | int | float | str | None
"""One column of ``structural_metrics.csv``; None is undefined (a blank cell), never 0."""

Kind = Literal["int", "float", "bool", "str"]


def python_value(value: MetricValue, kind: Kind) -> MetricValue:
    """``value`` as the Python type its column declares (None stays None)."""
    if value is None:
        return None
    if kind == "str":
        return str(value)
    if kind == "int":
        return int(value)
    if kind == "bool":
        return bool(value)
    return float(value)
