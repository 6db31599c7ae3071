"""``run_metadata.json``: what produced the outputs, from what, and what was skipped.

These models declare the file. The command writes it without them
(:mod:`aggregator.outputs.metadata_fields`, which keeps pydantic out of a run); the Python API and
``aggregate compare`` read it through them.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from aggregator.frozen import Frozen
from aggregator.outputs.metadata_fields import TOOL
from aggregator.version import __version__


class SkippedLine(BaseModel):
    """A bad line skipped under ``--skip-bad-lines``."""

    model_config = ConfigDict(frozen=True)

    line: int = Field(description="1-based line number in the input file")
    reason: str = Field(description="why the line was rejected")


class RunWarning(BaseModel):
    """A coded warning raised for the run (docs/warnings.md)."""

    model_config = ConfigDict(frozen=True)

    code: str = Field(description="the warning's code, as given to --allow")
    message: str = Field(description="what was found, with the numbers")
    metrics: tuple[str, ...] = Field((), description="columns whose values it makes unreliable")
    count: int | None = Field(None, description="samples or tuple items concerned, when that is one number")


class TaxonomyUsed(BaseModel):
    """The aspect taxonomy the refs were checked against (``--taxonomy``)."""

    model_config = ConfigDict(frozen=True)

    name: str = Field(description="the taxonomy's name, from its file")
    source: str = Field(description="`default` (shipped NIKLuge 2022), the path given to --taxonomy, or the "
                        "run's own taxonomy.json beside its scorecards")
    sha256: str = Field(description="SHA-256 of the taxonomy file")
    refs: int = Field(description="number of valid refs")


class SideFileUse(BaseModel):
    """A side file a metric family reads next to the scorecards."""

    model_config = ConfigDict(frozen=True)

    name: str = Field(description="file name, in the scorecards' directory")
    used: bool = Field(description="it was present and read (not read when --profile matched no row)")


class Reuse(BaseModel):
    """What ``aggregate compare`` checks before it reads this folder's per-sample table and metrics
    instead of decoding the scorecards again (docs/compare.md, "Reusing what aggregate wrote")."""

    model_config = ConfigDict(frozen=True)

    input_blake3: str | None = Field(
        None, description="BLAKE3 of the input file (the digest a comparison computes again; null: written by a version "
                          "without it, never reused)")
    code_sha256: str = Field(description="SHA-256 of the tool's Python files (the code that computed the table)")
    policy_hash: str = Field(description="hash of the metric definitions in force (eval_policy_hash)")
    side_files_sha256: Frozen[str, str | None] = Field(
        default_factory=dict, description="SHA-256 of each side file read, by name (null: absent)")
    per_sample_parquet_sha256: str = Field(description="SHA-256 of per_sample.parquet as written")
    structural_metrics_csv_sha256: str | None = Field(
        None, description="SHA-256 of structural_metrics.csv; null when its cells do not read back to the same values")


class RunMetadata(BaseModel):
    """Provenance of one aggregation (read-only)."""

    model_config = ConfigDict(frozen=True)

    tool: str = Field(TOOL, description="the program that wrote these outputs")
    tool_version: str = Field(__version__, description="its version")
    git_commit: str | None = Field(None, description="commit of the tool's checkout, when known")
    input_path: str = Field(description="the scorecards file read")
    input_sha256: str = Field(description="SHA-256 of the input file")
    run_ids: tuple[str, ...] = Field(description="run ids found in the input")
    profile: str | None = Field(None, description="--profile filter, if any")
    taxonomy: TaxonomyUsed | None = Field(None, description="the taxonomy refs were checked against")
    rows_read: int = Field(description="non-blank lines in the input")
    rows_aggregated: int = Field(description="rows that entered the metrics (after --profile)")
    rows_skipped: int = Field(description="bad lines skipped (--skip-bad-lines)")
    skipped_lines: tuple[SkippedLine, ...] = Field((), description="every skipped line")
    warnings: tuple[RunWarning, ...] = Field((), description="coded warnings raised (docs/warnings.md)")
    warnings_allowed: tuple[RunWarning, ...] = Field(
        (), description="coded warnings raised but silenced with --allow")
    counts: Frozen[str, int] = Field(
        default_factory=dict, description="counted oddities, e.g. polarity_defaulted, unicode_near_matches")
    families: tuple[str, ...] = Field((), description="metric families in force (core always)")
    profile_fallback: bool = Field(False, description="--profile matched no row, so every row was aggregated")
    side_files: tuple[SideFileUse, ...] = Field((), description="side files of the families in force")
    workers: int = Field(description="processes that decoded the input")
    seconds: float = Field(description="wall time of reading and computing")
    spreadsheet_safe: bool = Field(
        False, description="--spreadsheet-safe: CSV text cells that began with = + - @ tab or CR carry a leading '"
    )
    reuse: Reuse | None = Field(None, description="what `aggregate compare` checks before reusing these outputs")
