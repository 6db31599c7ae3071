"""Reading a run from what ``aggregate RUN`` wrote beside it instead of decoding its scorecards again.

``aggregate RUN`` writes ``RUN/derived/metrics/per_sample.parquet`` (the per-sample table),
``structural_metrics.csv`` (the run's metrics) and ``run_metadata.json``, whose ``reuse`` record
holds the digests of those two files, the metric definitions' hash and the side files' digests.
``aggregate compare`` reads the table and metrics from there when every one of these holds, and
decodes the scorecards otherwise:

- the input's BLAKE3 today equals the ``input_blake3`` recorded when it was read (the same bytes;
  hashing reads the file, about 7 GB/s of one core here, against ~2 GB/s for SHA-256 and ~40 µs a
  row to decode it);
- the same tool version and code (``code_sha256``: a digest of the tool's Python files, so also an
  uncommitted edit counts), the same metric definitions (``policy_hash``),
  every metric family in force, no ``--profile``, the same taxonomy as the comparison's, no skipped
  line (a comparison stops at a bad line), each side file the same bytes (or absent both times);
- ``per_sample.parquet`` and ``structural_metrics.csv`` are the bytes that were written (their
  SHA-256), the metrics read back to the values computed (checked when they were written), and the
  table has the columns and types a fresh read gives.

So a stale table cannot be used: any change to the input, an option, the code's version or a side
file makes the comparison decode. A comparison never writes into a run's folder (it may be a
read-only archive, or another comparison may be reading it): ``aggregate RUN...`` is what fills it.
"""

from __future__ import annotations

import hashlib
import io
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl
from pydantic import ValidationError

from aggregator.metrics.families import resolve
from aggregator.metrics.provenance import policy_hash
from aggregator.metrics.structural import build_registry
from aggregator.outputs.metadata import RunMetadata, TaxonomyUsed
from aggregator.outputs.metadata_fields import code_sha256, taxonomy_fields
from aggregator.outputs.metrics_csv import read_metrics_csv
from aggregator.outputs.names import INPUT_ORDER_COLUMNS, METADATA_JSON, METRICS_CSV, PER_SAMPLE_PARQUET
from aggregator.run.per_sample import table_schema
from aggregator.run.side_files import side_file_digests
from aggregator.units.taxonomy import taxonomy_in_force
from aggregator.version import __version__
from scorecards.errors import InputError
from scorecards.inputs import process_limit, resolve_input
from scorecards.lines import BLOCK

if TYPE_CHECKING:
    from aggregator.metrics.values import MetricValue
    from aggregator.outputs.metadata import Reuse

OUTPUTS = ("derived", "metrics")
"""Where ``aggregate RUN`` writes by default, under the folder of the scorecards file."""


@dataclass(frozen=True)
class ReusedRun:
    """A run's per-sample table (without input-order columns) and metrics, read from its outputs."""

    input_path: Path
    table: pl.DataFrame
    metrics: dict[str, MetricValue]


def file_blake3(path: Path) -> str:
    """BLAKE3 of a file, on one thread (:func:`reused_runs` hashes several runs at once)."""
    from blake3 import blake3

    digest = blake3(max_threads=1)
    with open(path, "rb") as handle:
        while block := handle.read(BLOCK):
            digest.update(block)
    return digest.hexdigest()


def reused_run(path: str | os.PathLike[str]) -> ReusedRun | None:
    """The run at ``path`` (a run directory or scorecards file) from its ``derived/metrics``, or None
    when anything there is missing, unreadable or not made from these very inputs (module doc)."""
    try:
        source = resolve_input(path)
        folder = source.parent.joinpath(*OUTPUTS)
        metadata = RunMetadata.model_validate_json((folder / METADATA_JSON).read_bytes())
        reuse = metadata.reuse
        if (reuse is None or reuse.structural_metrics_csv_sha256 is None or reuse.input_blake3 is None
                or not _same_settings(metadata, reuse)):
            return None
        if dict(reuse.side_files_sha256) != side_file_digests(source.parent, resolve(None)):
            return None
        parquet, metrics_csv = (folder / PER_SAMPLE_PARQUET).read_bytes(), (folder / METRICS_CSV).read_bytes()
        if (hashlib.sha256(parquet).hexdigest() != reuse.per_sample_parquet_sha256
                or hashlib.sha256(metrics_csv).hexdigest() != reuse.structural_metrics_csv_sha256
                or file_blake3(source) != reuse.input_blake3):
            return None
        table = pl.read_parquet(io.BytesIO(parquet))
        metrics = read_metrics_csv(metrics_csv, build_registry(None))
    except (InputError, OSError, ValidationError, pl.exceptions.PolarsError):
        return None
    expected = {k: v for k, v in table_schema(None).items() if k not in INPUT_ORDER_COLUMNS}
    if metrics is None or dict(table.schema) != expected:
        return None
    return ReusedRun(source, table, metrics)


def _same_settings(metadata: RunMetadata, reuse: Reuse) -> bool:
    """The outputs were made by this code (its version and files), with every family, no profile, no
    skipped line and this taxonomy."""
    used = taxonomy_in_force()
    return (
        metadata.tool_version == __version__
        and reuse.code_sha256 == code_sha256()
        and reuse.policy_hash == policy_hash(build_registry(None))
        and metadata.families == ("core", *(f.name for f in resolve(None)))
        and metadata.profile is None
        and not metadata.profile_fallback
        and metadata.rows_skipped == 0
        and metadata.taxonomy == TaxonomyUsed.model_validate(taxonomy_fields(used))
    )


def reused_runs(paths: Sequence[str | os.PathLike[str]]) -> list[ReusedRun | None]:
    """:func:`reused_run` of each path, in its order, several at a time (hashing and Parquet
    decoding release the GIL); every thread has ended when this returns, so the decoders of the
    runs not reused may fork."""
    if not paths:
        return []
    with ThreadPoolExecutor(min(process_limit(None), len(paths))) as pool:
        return list(pool.map(reused_run, paths))
