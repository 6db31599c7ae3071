"""The only two ways an aggregation may end, checked: whole outputs, or one error line and nothing written.

:func:`parse_outputs` reads every output file to its end (a torn file fails to parse or
disagrees with the others); :func:`check_cli` and :func:`check_api` hold a finished run to
the contract of issue #6: exit 0 and complete outputs, or exit 2 and one ``file:line: reason``
line, never a traceback and never a partial file. :class:`CutShort` interrupts a write for tests
of what an interrupted write leaves.
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from aggregator import RunResult, aggregate_run
from aggregator.outputs.run_files import (
    METADATA_JSON,
    METRICS_CSV,
    METRICS_MD,
    PER_SAMPLE_CSV,
    PER_SAMPLE_PARQUET,
    REPORT_HTML,
)
from scorecards.errors import InputError

OUTPUT_NAMES = frozenset({METRICS_CSV, METRICS_MD, PER_SAMPLE_PARQUET, PER_SAMPLE_CSV, METADATA_JSON, REPORT_HTML})
ERROR_PREFIX = "aggregate: error: "
WARNING_PREFIX = "aggregate: warning: "


def but_warnings(stderr: str) -> list[str]:
    """The lines of stderr other than coded warnings (which small test inputs raise, e.g. few_samples)."""
    return [line for line in stderr.splitlines() if not line.startswith(WARNING_PREFIX)]


def snapshot(directory: Path) -> dict[str, bytes]:
    """Every file in ``directory`` (dot-files too) with its bytes; empty when it does not exist."""
    if not directory.is_dir():
        return {}
    return {p.name: p.read_bytes() for p in directory.iterdir() if p.is_file()}


def but_metadata(files: dict[str, bytes]) -> dict[str, bytes]:
    """The outputs that depend on the rows only: all but run_metadata.json (input hash, path, timing)."""
    return {name: data for name, data in files.items() if name != METADATA_JSON}


def parse_file(name: str, data: bytes) -> Any:
    """Parse one output file completely; raise if it is torn or not what its name says."""
    if name == METRICS_CSV:
        rows = list(csv.reader(io.StringIO(data.decode("utf-8"), newline="")))
        assert len(rows) == 2 and len(rows[0]) == len(rows[1]) and rows[0][0] == "n", rows[:1]
        return dict(zip(rows[0], rows[1]))
    if name == PER_SAMPLE_CSV:
        return pl.read_csv(io.BytesIO(data), infer_schema=False)
    if name == PER_SAMPLE_PARQUET:
        return pl.read_parquet(io.BytesIO(data))
    if name == METADATA_JSON:
        return json.loads(data)
    text = data.decode("utf-8")
    if name == METRICS_MD:
        assert text.startswith("# ") and text.endswith("\n") and "| Metric | Value |" in text
    elif name == REPORT_HTML:
        assert text.rstrip().endswith("</html>"), text[-80:]
    else:
        raise AssertionError(f"unexpected output file {name}")
    return text


def parse_outputs(directory: Path) -> dict[str, Any]:
    """All outputs of a finished run, parsed; asserts the set is complete, consistent and has no stray file."""
    files = snapshot(directory)
    assert set(files) == OUTPUT_NAMES, sorted(files)
    parsed = {name: parse_file(name, data) for name, data in files.items()}
    rows = parsed[METADATA_JSON]["rows_aggregated"]
    assert parsed[PER_SAMPLE_PARQUET].height == parsed[PER_SAMPLE_CSV].height == rows == int(parsed[METRICS_CSV]["n"])
    assert parsed[PER_SAMPLE_PARQUET].columns == parsed[PER_SAMPLE_CSV].columns
    return parsed


class CutShort:
    """A staged output file whose write stops halfway, flushed, then ``stop()`` runs: raises a
    disk-full error or kills the process. Returned by a patched ``os.fdopen``."""

    def __init__(self, handle: Any, stop: Callable[[], None]) -> None:
        self.handle, self.stop = handle, stop

    def __enter__(self) -> CutShort:
        return self

    def __exit__(self, *exc: object) -> None:
        self.handle.close()

    def write(self, data: bytes) -> None:
        self.handle.write(data[: len(data) // 2])
        self.handle.flush()
        self.stop()


def check_cli(done: subprocess.CompletedProcess[str], outdir: Path, before: dict[str, bytes] | None = None) -> Any:
    """A finished ``aggregate RUN --outdir outdir``: parsed outputs (exit 0) or the error line (exit 2).

    On exit 2 the output directory must hold exactly what it held ``before``.
    """
    assert "Traceback" not in done.stderr, done.stderr
    if done.returncode == 0:
        return parse_outputs(outdir)
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(ERROR_PREFIX), done.stderr
    assert done.stdout == ""
    assert snapshot(outdir) == (before or {})
    return lines[0][len(ERROR_PREFIX):]


def check_api(path: Path, outdir: Path, **options: Any) -> RunResult | InputError:
    """``aggregate_run(path, outdir=outdir)``: the result with its outputs checked, or the one-line InputError.

    Any other exception (a traceback for a user) propagates and fails the calling test.
    """
    try:
        result = aggregate_run(path, outdir=outdir, **options)
    except InputError as exc:
        message = str(exc)
        assert message.startswith(str(path)) and "\n" not in message, message
        assert snapshot(outdir) == {}
        return exc
    parsed = parse_outputs(outdir)
    assert parsed[METADATA_JSON]["rows_aggregated"] == result.rows_aggregated
    return result
