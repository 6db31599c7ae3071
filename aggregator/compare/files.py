"""All files of a comparison, as ``{name: bytes}``, ready for :func:`~aggregator.outputs.atomic.write_outputs`."""

from __future__ import annotations

import csv
import io

import polars as pl

from aggregator.compare.markdown import comparison_markdown
from aggregator.compare.result import ComparisonResult
from aggregator.outputs.cells import csv_cell
from aggregator.outputs.tables import csv_bytes, parquet_bytes
from aggregator.report.comparison_report import comparison_report
from aggregator.text import spreadsheet_cell

CSV_TABLES = ("runs", "conditions", "paired", "flips", "self_consistency")
MERGED = "per_sample_merged"
MARKDOWN = "comparison.md"
REPORT_HTML = "report.html"
COMPARISON_OUTPUTS = (*(f"{name}.csv" for name in CSV_TABLES), f"{MERGED}.parquet", f"{MERGED}.csv", MARKDOWN, REPORT_HTML)


def _cell(value: object) -> str:
    """:func:`csv_cell`, with a list written as its items separated by spaces."""
    if isinstance(value, list):
        return " ".join(csv_cell(item) for item in value)
    return csv_cell(value)


def _safe_cell(value: object) -> str:
    """:func:`_cell`, with a ``'`` before text a spreadsheet would run as a formula."""
    text = _cell(value)
    return spreadsheet_cell(text) if isinstance(value, (str, list)) else text


def frame_csv(frame: pl.DataFrame, *, spreadsheet_safe: bool = False) -> bytes:
    """A table as CSV, every cell as in ``structural_metrics.csv`` (:func:`csv_cell`);
    ``spreadsheet_safe``: see :func:`aggregator.text.spreadsheet_cell`."""
    cell = _safe_cell if spreadsheet_safe else _cell
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(map(cell, frame.columns))
    writer.writerows([cell(v) for v in row] for row in frame.iter_rows())
    return buffer.getvalue().encode("utf-8")


def comparison_files(result: ComparisonResult, *, spreadsheet_safe: bool = False) -> dict[str, bytes]:
    """runs.csv, conditions.csv, paired.csv, flips.csv, self_consistency.csv,
    per_sample_merged.parquet / .csv, comparison.md and report.html (names: :data:`COMPARISON_OUTPUTS`).

    ``spreadsheet_safe``: text cells and column names of the CSV files that a spreadsheet would
    run as a formula get a leading ``'``; Parquet stays exact."""
    files = {f"{name}.csv": frame_csv(getattr(result, name), spreadsheet_safe=spreadsheet_safe) for name in CSV_TABLES}
    files[f"{MERGED}.parquet"] = parquet_bytes(result.per_sample)
    files[f"{MERGED}.csv"] = csv_bytes(result.per_sample, spreadsheet_safe=spreadsheet_safe)
    files[MARKDOWN] = comparison_markdown(result).encode("utf-8")
    files[REPORT_HTML] = comparison_report(result)
    return files
