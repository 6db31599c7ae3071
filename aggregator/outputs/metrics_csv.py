"""``structural_metrics.csv``: one header row of metric names, one row of values."""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping

from aggregator.outputs.cells import csv_cell


def metrics_csv(rows: list[Mapping[str, object]]) -> bytes:
    """CSV of metric rows sharing the first row's columns, cells in :func:`csv_cell` form."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    columns = list(rows[0])
    writer.writerow(columns)
    for row in rows:
        writer.writerow(csv_cell(row.get(c)) for c in columns)
    return buffer.getvalue().encode("utf-8")
