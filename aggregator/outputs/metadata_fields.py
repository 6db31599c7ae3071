"""The fields of ``run_metadata.json`` as JSON data, and the file's bytes, without pydantic.

:class:`~aggregator.outputs.metadata.RunMetadata` declares the file: its fields, their order,
types, defaults and meaning. It is what the Python API returns (validated from
:func:`metadata_fields`) and what ``aggregate compare`` reads back. Writing the file needs none of
its validation, since every value comes from the run's own typed evaluation, so the command
builds the fields here, in the model's order, and encodes them with msgspec. Importing pydantic
and building its models cost the command ~0.07 CPU-s, 7% of a 5,000-row core run.
``tests/test_metadata_fields.py`` holds the two to the same keys and the same bytes.

A path that is not UTF-8 (a file name with undecodable bytes, which Python carries as lone
surrogates) is written with each such byte as ``\\xNN`` (:func:`aggregator.text.shown_path`).
"""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from aggregator.text import shown_path
from aggregator.version import __version__

if TYPE_CHECKING:
    from aggregator.run.pipeline import RunEvaluation
    from aggregator.units.taxonomy import Taxonomy

TOOL = "absa-aggregator"


def taxonomy_fields(used: Taxonomy) -> dict[str, object]:
    """``taxonomy``: the taxonomy the refs were checked against (:class:`~aggregator.outputs.metadata.TaxonomyUsed`)."""
    return {"name": used.name, "source": used.source, "sha256": used.sha256, "refs": len(used.refs)}


def metadata_fields(
    evaluation: RunEvaluation, *, spreadsheet_safe: bool = False, reuse: dict[str, object] | None = None
) -> dict[str, object]:
    """Every field of :class:`~aggregator.outputs.metadata.RunMetadata`, in its order; ``reuse``
    from :func:`~aggregator.outputs.run_files.reuse_fields` (None: not written)."""
    return {
        "tool": TOOL,
        "tool_version": __version__,
        "git_commit": git_commit(),
        "input_path": shown_path(evaluation.input_path),
        "input_sha256": evaluation.input_sha256,
        "run_ids": list(evaluation.run_ids),
        "profile": evaluation.profile,
        "taxonomy": taxonomy_fields(evaluation.taxonomy),
        "rows_read": evaluation.rows_read,
        "rows_aggregated": evaluation.rows_aggregated,
        "rows_skipped": len(evaluation.skipped),
        "skipped_lines": [{"line": bad.line, "reason": bad.reason} for bad in evaluation.skipped],
        "warnings": [raised.to_dict() for raised in evaluation.run_warnings.shown],
        "warnings_allowed": [raised.to_dict() for raised in evaluation.run_warnings.allowed],
        "counts": dict(evaluation.warnings),
        "families": list(evaluation.families),
        "profile_fallback": evaluation.profile_fallback,
        "side_files": [{"name": name, "used": used is not None} for name, used in evaluation.side_files.items()],
        "workers": evaluation.workers,
        "seconds": round(evaluation.seconds, 4),
        "spreadsheet_safe": spreadsheet_safe,
        "reuse": reuse,
    }


def metadata_json(fields: dict[str, object]) -> bytes:
    """``run_metadata.json``: the fields indented by two spaces, non-ASCII text as UTF-8, a final newline
    (the bytes of ``RunMetadata.model_dump_json(indent=2)``)."""
    return msgspec.json.format(msgspec.json.encode(fields), indent=2) + b"\n"


@functools.cache
def git_commit() -> str | None:
    """The commit of the checkout this package runs from, or None outside a git checkout.

    Asked once per process: the code running is the code imported.
    """
    root = Path(__file__).resolve().parents[2]
    if not (root / ".git").exists():
        return None
    try:
        done = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


@functools.cache
def code_sha256() -> str:
    """SHA-256 of the Python files of the packages that read scorecards and compute the per-sample
    table and metrics (``aggregator``, ``scorecards``): their relative paths and bytes, in path
    order. Unlike the version or the commit it changes with any edit, committed or not (~4 ms)."""
    import hashlib

    import scorecards

    digest = hashlib.sha256()
    for root in (Path(__file__).resolve().parents[1], Path(scorecards.__file__).resolve().parent):
        for path in sorted(root.rglob("*.py")):
            digest.update(path.relative_to(root.parent).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()
