"""The names of the files the commands write (a light module: each command checks them before reading)."""

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
COMPARISON_OUTPUTS = (
    *(f"{name}.csv" for name in ("runs", "conditions", "paired", "flips", "self_consistency", "subsets", "agreement",
                                 "samples_changed", "samples_only-a", "samples_only-b", "per_sample_merged")),
    "per_sample_merged.parquet", "comparison.md", "comparison_report.html", "paper.md", "paper.csv", "paper.tex",
)
"""Every file ``aggregate compare`` may write (checked against its inputs before they are read)."""
SCORE_OUTPUTS = ("score.json", "units.csv", "per_sentence.parquet", "per_sentence.csv", "compat_report.md")
"""The files of ``aggregate score --outdir``."""
