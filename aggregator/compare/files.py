"""All files of a comparison, as ``{name: bytes}``, ready for :func:`~aggregator.outputs.atomic.write_outputs`."""

from __future__ import annotations

import csv
import io
from typing import TYPE_CHECKING

from aggregator.compare.markdown import comparison_markdown
from aggregator.compare.shown import shown_view
from aggregator.outputs.cells import csv_cell
from aggregator.outputs.tables import csv_bytes, parquet_bytes
from aggregator.report.comparison_report import comparison_report
from aggregator.text import spreadsheet_safe_csv

if TYPE_CHECKING:
    import polars as pl

    from aggregator.compare.result import ComparisonResult

CSV_TABLES = ("runs", "conditions", "paired", "flips", "self_consistency")
OPTIONAL_TABLES = ("subsets", "agreement")
MERGED = "per_sample_merged"
MARKDOWN = "comparison.md"
REPORT_HTML = "comparison_report.html"


def _cell(value: object) -> str:
    """:func:`csv_cell`, with a list written as its items separated by spaces."""
    if isinstance(value, list):
        return " ".join(csv_cell(item) for item in value)
    return csv_cell(value)


def frame_csv(frame: pl.DataFrame) -> bytes:
    """A table as CSV, every cell as in ``structural_metrics.csv`` (:func:`csv_cell`)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(frame.columns)
    writer.writerows([_cell(v) for v in row] for row in frame.iter_rows())
    return buffer.getvalue().encode("utf-8")


def comparison_files(
    result: ComparisonResult, *, paper: str | None = None, spreadsheet_safe: bool = False
) -> dict[str, bytes]:
    """runs.csv, conditions.csv, paired.csv, flips.csv, self_consistency.csv, subsets.csv (with ``--by``),
    agreement.csv (when runs carry review labels), samples_<mode>.csv (with ``--samples``),
    per_sample_merged.parquet / .csv, comparison.md, comparison_report.html (both capped:
    :mod:`aggregator.compare.shown`), and with ``paper`` ("sd" or "ci") paper.md / .csv / .tex.

    ``spreadsheet_safe``: every CSV text cell (and column name) a spreadsheet would run as a
    formula gets a leading ``'`` (:mod:`aggregator.text`); Parquet stays exact."""
    files = {f"{name}.csv": frame_csv(getattr(result, name)) for name in CSV_TABLES}
    files.update({f"{name}.csv": frame_csv(getattr(result, name)) for name in OPTIONAL_TABLES
                  if getattr(result, name).height})
    if result.selected is not None:
        files[f"samples_{result.selected_mode}.csv"] = frame_csv(result.selected)
    files[f"{MERGED}.parquet"] = parquet_bytes(result.per_sample)
    files[f"{MERGED}.csv"] = csv_bytes(result.per_sample, spreadsheet_safe=spreadsheet_safe)
    shown = shown_view(result)
    files[MARKDOWN] = comparison_markdown(shown).encode("utf-8")
    files[REPORT_HTML] = comparison_report(shown)
    if paper is not None:
        from aggregator.compare.paper import paper_files

        files.update(paper_files(result, paper))
    if spreadsheet_safe:
        files.update({name: spreadsheet_safe_csv(data) for name, data in files.items()
                      if name.endswith(".csv") and name != f"{MERGED}.csv"})
    return files
