"""The Python API of one run: :func:`aggregate_run` returns a typed :class:`RunResult`.

>>> from aggregator import aggregate_run
>>> result = aggregate_run("results/cr_n50_m1_v2__seed42")  # doctest: +SKIP
>>> result.metrics["tuple_f1_s2"]  # doctest: +SKIP
0.0
>>> result.to_polars().select("sample_key", "refpol_transition").head(3)  # doctest: +SKIP
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ConfigDict, Field, PrivateAttr

from aggregator.api import arguments
from aggregator.frozen import Frozen
from aggregator.metrics.values import MetricValue
from aggregator.outputs.metadata import RunMetadata

if TYPE_CHECKING:
    import polars as pl  # noqa: TC004 (only the private attribute _table names it; pydantic does not evaluate that)


class RunResult(RunMetadata):
    """A run's structural metrics, what produced them, and (via :meth:`to_polars`) its per-sample table.

    Every field of ``run_metadata.json`` is here too. ``metrics`` maps each column of
    ``structural_metrics.csv`` to its value; None is undefined (a blank CSV cell), never 0.
    Read-only: fields cannot be set, ``metrics`` and ``warnings`` refuse changes, lists are
    tuples, and :meth:`to_polars` gives a copy of the table.
    """

    model_config = ConfigDict(frozen=True)

    metrics: Frozen[str, MetricValue] = Field(description="structural_metrics.csv as {column: value}; None = undefined")
    outdir: str | None = Field(None, description="where the output files were written (None: not written)")
    files: tuple[str, ...] = Field((), description="names of the files written to outdir")
    _table: pl.DataFrame = PrivateAttr()

    def to_polars(self) -> pl.DataFrame:
        """The per-sample table (a copy): one row per sample (columns: docs/metrics.md, ``per_sample.csv``).

        The error anatomy's counts (``err_*``) are ``UInt8`` where every value fits a byte, and Polars wraps
        byte arithmetic silently: cast them (``.cast({pl.UInt8: pl.Int64})``) before adding columns."""
        return self._table.clone()

    def to_dict(self) -> dict[str, object]:
        """Everything but the per-sample table, JSON-ready (None for undefined values)."""
        return self.model_dump(mode="json")

    def metric(self, name: str) -> MetricValue:
        """One metric by column name; an unknown name raises ``UnknownMetric`` with a close match."""
        from aggregator.metrics.structural import STRUCTURAL

        return self.metrics[STRUCTURAL[name].name]


def aggregate_run(
    path: str | os.PathLike[str],
    *,
    profile: str | None = None,
    skip_bad_lines: bool = False,
    outdir: str | os.PathLike[str] | None = None,
    workers: int | None = None,
    families: Sequence[str] | None = None,
    allow: Sequence[str] = (),
    taxonomy: str | os.PathLike[str] | None = None,
    spreadsheet_safe: bool = False,
) -> RunResult:
    """Compute the structural metrics of a run directory or scorecards ``.jsonl`` file.

    ``families`` names the metric families to compute (default: all; the core is always in
    force; unknown names raise ``UnknownFamily``, a ``ValueError``).
    ``profile`` keeps the rows of one profile; ``skip_bad_lines`` skips and lists bad lines
    instead of raising; ``outdir`` also writes the files of ``aggregate RUN --outdir``
    (CSV, Markdown, Parquet, metadata, ``report.html``), ``spreadsheet_safe`` as
    ``--spreadsheet-safe``; ``workers`` from 1 to 64 (default: the core count, at most 4).
    ``warnings`` lists the coded warnings raised (docs/warnings.md); codes in ``allow`` go to
    ``warnings_allowed`` instead. ``taxonomy``: a taxonomy file of valid refs (default: the
    shipped NIKLuge 2022 one). Raises :class:`~scorecards.errors.InputError` for unreadable
    input (message ``file:line: reason``), :class:`~aggregator.outputs.atomic.OutputError` when
    ``outdir`` cannot be written or an output would overwrite the input,
    :class:`~aggregator.run_warnings.UnknownWarningCode` for an unknown code in ``allow``, and
    ``TypeError`` / ``ValueError`` naming an argument of the wrong type or out of range.
    """
    from aggregator.metrics.families import selection
    from aggregator.outputs.atomic import write_outputs
    from aggregator.outputs.metadata_fields import metadata_fields
    from aggregator.outputs.run_files import run_files
    from aggregator.run.pipeline import evaluate_run
    from aggregator.run_warnings import known_codes
    from aggregator.units.taxonomy import use_taxonomy

    arguments.path("path", path)
    arguments.optional_text("profile", profile)
    arguments.flag("skip_bad_lines", skip_bad_lines)
    if outdir is not None:
        arguments.path("outdir", outdir)
    arguments.optional_whole("workers", workers, 1, arguments.MAX_WORKERS)
    arguments.optional_names("families", families)
    arguments.optional_names("allow", allow)
    if taxonomy is not None:
        arguments.path("taxonomy", taxonomy)
    arguments.flag("spreadsheet_safe", spreadsheet_safe)
    use_taxonomy(taxonomy)
    codes = known_codes(allow)  # an unknown code is refused before reading
    evaluation = evaluate_run(path, profile=profile, skip_bad_lines=skip_bad_lines, workers=workers,
                              families=selection(families), allow=codes)
    written: list[Path] = []
    if outdir is not None:
        files = run_files(evaluation, spreadsheet_safe=spreadsheet_safe, streamed=True)
        written = write_outputs(outdir, files, inputs=[evaluation.input_path])
    result = RunResult.model_validate({
        **metadata_fields(evaluation, spreadsheet_safe=spreadsheet_safe),
        "metrics": evaluation.metrics,
        "outdir": None if outdir is None else str(outdir),
        "files": tuple(p.name for p in written),
    })
    result._table = evaluation.table
    return result
