"""``structural_metrics.csv``: one header row of metric names, one row of values; and reading it back."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from typing import TYPE_CHECKING

from aggregator.outputs.cells import BLANK, csv_cell

if TYPE_CHECKING:
    from aggregator.metrics.registry import Registry
    from aggregator.metrics.values import MetricValue

_BOOLS = {"True": True, "False": False}


def metrics_csv(rows: list[Mapping[str, object]]) -> bytes:
    """CSV of metric rows sharing the first row's columns, cells in :func:`csv_cell` form."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    columns = list(rows[0])
    writer.writerow(columns)
    for row in rows:
        writer.writerow(csv_cell(row.get(c)) for c in columns)
    return buffer.getvalue().encode("utf-8")


def read_metrics_csv(data: bytes, registry: Registry) -> dict[str, MetricValue] | None:
    """The one row of a :func:`metrics_csv` file whose columns are ``registry``'s, typed by each
    metric's kind (blank is None); None when the header, the row count or a cell does not fit.

    Exact for what :func:`~aggregator.outputs.cells.csv_cell` writes (floats as their shortest
    round-trip repr), but for a text value ``""``, which reads back as None: the writer checks
    that the values read back equal the values written before it lets them be reused.
    """
    try:
        header, *rows = csv.reader(io.StringIO(data.decode("utf-8"), newline=""))
    except (UnicodeDecodeError, csv.Error, ValueError):
        return None
    if header != registry.names or len(rows) != 1 or len(rows[0]) != len(header):
        return None
    values: dict[str, MetricValue] = {}
    try:
        for metric, cell in zip(registry, rows[0]):
            if cell == BLANK:
                values[metric.name] = None
            elif metric.kind == "bool":
                values[metric.name] = _BOOLS[cell]
            elif metric.kind == "int":
                values[metric.name] = int(cell)
            elif metric.kind == "float":
                values[metric.name] = float(cell)
            else:
                values[metric.name] = cell
    except (KeyError, ValueError):
        return None
    return values
