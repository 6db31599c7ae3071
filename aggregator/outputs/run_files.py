"""All files of one run's aggregation, as ``{name: bytes}``, ready for :func:`write_outputs`."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from aggregator.outputs.markdown import metrics_markdown
from aggregator.outputs.metadata import RunMetadata, RunWarning, SideFileUse, SkippedLine, TaxonomyUsed, git_commit
from aggregator.outputs.metrics_csv import metrics_csv
from aggregator.outputs.tables import csv_bytes, parquet_bytes
from aggregator.pipeline import RunEvaluation
from aggregator.report.html import REPORT_ASSETS, asset
from aggregator.report.run_report import run_report

METRICS_CSV = "structural_metrics.csv"
METRICS_MD = "structural_metrics_table.md"
PER_SAMPLE_PARQUET = "per_sample.parquet"
PER_SAMPLE_CSV = "per_sample.csv"
METADATA_JSON = "run_metadata.json"
REPORT_HTML = "report.html"
INPUT_ORDER_COLUMNS = ("line",)
"""Per-sample columns that depend on the input's line order: kept out of the files, so that
shuffled input lines give byte-identical CSV, Markdown and Parquet (only run_metadata.json differs)."""


def prepare() -> None:
    """Read ahead what the writers take from outside (report assets, the git commit): called
    while the input is being decoded, so that writing the files after it is all rendering."""
    for name in REPORT_ASSETS:
        asset(name)
    git_commit()


def taxonomy_used() -> TaxonomyUsed:
    from aggregator.taxonomy import taxonomy_in_force

    used = taxonomy_in_force()
    return TaxonomyUsed(name=used.name, source=used.source, sha256=used.sha256, refs=len(used.refs))


def run_metadata(evaluation: RunEvaluation) -> RunMetadata:
    return RunMetadata(
        taxonomy=taxonomy_used(),
        git_commit=git_commit(),
        input_path=str(evaluation.input_path),
        input_sha256=evaluation.input_sha256,
        run_ids=evaluation.run_ids,
        profile=evaluation.profile,
        rows_read=evaluation.rows_read,
        rows_aggregated=evaluation.rows_aggregated,
        rows_skipped=len(evaluation.skipped),
        skipped_lines=[SkippedLine(line=bad.line, reason=bad.reason) for bad in evaluation.skipped],
        warnings=[RunWarning(**w.to_dict()) for w in evaluation.run_warnings.shown],
        warnings_allowed=[RunWarning(**w.to_dict()) for w in evaluation.run_warnings.allowed],
        counts=evaluation.warnings,
        families=list(evaluation.families),
        profile_fallback=evaluation.profile_fallback,
        side_files=[SideFileUse(name=name, used=used is not None) for name, used in evaluation.side_files.items()],
        workers=evaluation.workers,
        seconds=round(evaluation.seconds, 4),
    )


def run_facts(evaluation: RunEvaluation) -> list[str]:
    m = evaluation.metrics
    facts = [
        f"Run: {', '.join(evaluation.run_ids)}",
        f"Input: `{evaluation.input_path.name}` (SHA-256 in run_metadata.json)",
        f"Rows aggregated: {evaluation.rows_aggregated}; with gold: {m['N_gold']}",
    ]
    if evaluation.profile:
        fallback = " (matched no row: every row aggregated, as the research tool did)" if evaluation.profile_fallback else ""
        facts.append(f"Profile: {evaluation.profile}{fallback}")
    facts += [f"Side file `{name}`: {'read' if used else 'absent'}" for name, used in evaluation.side_files.items()]
    if evaluation.skipped:
        facts.append(f"Bad lines skipped: {len(evaluation.skipped)} (see run_metadata.json)")
    return facts


def with_intervals(markdown: str, evaluation: RunEvaluation) -> str:
    """The Markdown table with the headline intervals (:mod:`aggregator.run_intervals`) after its facts."""
    from aggregator.run_intervals import intervals_markdown

    head, sep, rest = markdown.partition("\n## ")
    return head + "\n" + intervals_markdown(evaluation) + sep.lstrip("\n") + rest if sep else markdown


def run_files(evaluation: RunEvaluation) -> dict[str, bytes]:
    """structural_metrics.csv / _table.md, per_sample.parquet / .csv, run_metadata.json and report.html.

    The per-sample tables are written by Polars in a thread (it releases the GIL) while
    the other files are rendered in Python.
    """
    title = f"Structural metrics — {', '.join(evaluation.run_ids)}"
    per_sample = evaluation.table.drop(INPUT_ORDER_COLUMNS)
    with ThreadPoolExecutor(1) as polars_writer:
        parquet = polars_writer.submit(parquet_bytes, per_sample)
        csv = polars_writer.submit(csv_bytes, per_sample)
        markdown = metrics_markdown(evaluation.registry, evaluation.metrics, title=title, facts=run_facts(evaluation),
                                    warnings=evaluation.run_warnings, absent=evaluation.absent)
        markdown = with_intervals(markdown, evaluation)
        metrics = metrics_csv([evaluation.metrics])
        metadata = run_metadata(evaluation).model_dump_json(indent=2).encode("utf-8") + b"\n"
        report = run_report(evaluation)
        return {
            METRICS_CSV: metrics,
            METRICS_MD: markdown.encode("utf-8"),
            PER_SAMPLE_PARQUET: parquet.result(),
            PER_SAMPLE_CSV: csv.result(),
            METADATA_JSON: metadata,
            REPORT_HTML: report,
        }
