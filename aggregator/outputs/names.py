"""The names of the files ``aggregate RUN`` writes (a light module: the command checks them before reading)."""

from __future__ import annotations

METRICS_CSV = "structural_metrics.csv"
METRICS_MD = "structural_metrics_table.md"
PER_SAMPLE_PARQUET = "per_sample.parquet"
PER_SAMPLE_CSV = "per_sample.csv"
METADATA_JSON = "run_metadata.json"
REPORT_HTML = "report.html"
RUN_OUTPUTS = (METRICS_CSV, METRICS_MD, PER_SAMPLE_PARQUET, PER_SAMPLE_CSV, METADATA_JSON, REPORT_HTML)
INPUT_ORDER_COLUMNS = ("line",)
"""Per-sample columns that depend on the input's line order: kept out of the files, so that
shuffled input lines give byte-identical CSV, Markdown and Parquet (only run_metadata.json differs)."""
