"""All files of one run's aggregation, as ``{name: bytes}``, ready for :func:`write_outputs`.

The one place the output set of a run is assembled: the Markdown table and the HTML report
are both fed the same run facts (:mod:`aggregator.outputs.facts`); neither takes anything back
from here.
"""

from __future__ import annotations

import hashlib
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from typing import TYPE_CHECKING

from aggregator.outputs.errors_markdown import errors_section
from aggregator.outputs.facts import run_facts
from aggregator.outputs.markdown import metrics_markdown
from aggregator.outputs.metadata_fields import code_sha256, git_commit, metadata_fields, metadata_json
from aggregator.outputs.metrics_csv import metrics_csv, read_metrics_csv
from aggregator.outputs.names import (
    INPUT_ORDER_COLUMNS,
    METADATA_JSON,
    METRICS_CSV,
    METRICS_MD,
    PER_SAMPLE_CSV,
    PER_SAMPLE_PARQUET,
    REPORT_HTML,
)
from aggregator.outputs.tables import csv_bytes, parquet_bytes, write_csv
from aggregator.report.html import REPORT_ASSETS, asset
from aggregator.report.run_report import run_report

if TYPE_CHECKING:
    from aggregator.outputs.atomic import Output
    from aggregator.run.pipeline import RunEvaluation

def prepare() -> None:
    """Read ahead what the writers take from outside (report assets, the git commit): called
    while the input is being decoded, so that writing the files after it is all rendering."""
    for name in REPORT_ASSETS:
        asset(name)
    git_commit()


def reuse_fields(evaluation: RunEvaluation, parquet: bytes, metrics: bytes) -> dict[str, object]:
    """``reuse`` (:class:`~aggregator.outputs.metadata.Reuse`): what ``aggregate compare`` checks before
    reusing the files: the metric definitions, the side files read, and the digests of the table and
    metrics written (the metrics' only when their CSV cells read back to the very values: a text
    metric that is ``""`` would read back as blank)."""
    from aggregator.metrics.provenance import policy_hash

    registry = evaluation.registry
    exact = read_metrics_csv(metrics, registry) == evaluation.metrics
    return {
        "input_blake3": evaluation.input_blake3,
        "code_sha256": code_sha256(),
        "policy_hash": policy_hash(registry),
        "side_files_sha256": dict(evaluation.side_digests),
        "per_sample_parquet_sha256": hashlib.sha256(parquet).hexdigest(),
        "structural_metrics_csv_sha256": hashlib.sha256(metrics).hexdigest() if exact else None,
    }


def with_intervals(markdown: str, evaluation: RunEvaluation) -> str:
    """The Markdown table with the headline intervals (:mod:`aggregator.run.intervals`) after its facts."""
    from aggregator.run.intervals import intervals_markdown

    head, sep, rest = markdown.partition("\n## ")
    return head + "\n" + intervals_markdown(evaluation) + sep.lstrip("\n") + rest if sep else markdown


def run_files(
    evaluation: RunEvaluation, *, spreadsheet_safe: bool = False, streamed: bool = False
) -> dict[str, Output]:
    """structural_metrics.csv / _table.md, per_sample.parquet / .csv, run_metadata.json and report.html.

    The per-sample tables are written by Polars in a thread (it releases the GIL) while
    the other files are rendered in Python; ``streamed``: they are instead functions that
    write them straight into the staged files (:data:`~aggregator.outputs.atomic.Output`), so
    that their text is never in memory (889 MB of CSV at 1,000,000 rows; the Parquet file, 4 MB there,
    is always rendered first: its digest goes into ``run_metadata.json``). ``spreadsheet_safe``:
    text cells of per_sample.csv that a spreadsheet would run as a formula get a leading ``'``
    (:mod:`aggregator.text`).
    """
    facts = run_facts(evaluation)
    per_sample = evaluation.table.drop(INPUT_ORDER_COLUMNS)
    with ThreadPoolExecutor(1) as polars_writer:
        parquet = polars_writer.submit(parquet_bytes, per_sample)
        if streamed:
            csv_output: Output = partial(write_csv, per_sample, spreadsheet_safe=spreadsheet_safe)
        else:
            csv = polars_writer.submit(csv_bytes, per_sample, spreadsheet_safe=spreadsheet_safe)
        markdown = metrics_markdown(
            evaluation.registry, evaluation.metrics, title="Structural metrics", names=evaluation.run_ids,
            facts=facts, warnings=evaluation.run_warnings, absent=evaluation.absent,
        )
        markdown = with_intervals(markdown, evaluation)
        errors = errors_section(evaluation)
        markdown += "\n" + errors if errors else ""
        metrics = metrics_csv([evaluation.metrics])
        report = run_report(evaluation, facts)
        table_bytes = parquet.result()
        reuse = reuse_fields(evaluation, table_bytes, metrics)
        metadata = metadata_json(metadata_fields(evaluation, spreadsheet_safe=spreadsheet_safe, reuse=reuse))
        if not streamed:
            csv_output = csv.result()
        return {
            METRICS_CSV: metrics,
            METRICS_MD: markdown.encode("utf-8"),
            PER_SAMPLE_PARQUET: table_bytes,
            PER_SAMPLE_CSV: csv_output,
            METADATA_JSON: metadata,
            REPORT_HTML: report,
        }
