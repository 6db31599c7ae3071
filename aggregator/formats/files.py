"""The files of ``aggregate score --outdir DIR``, as ``{name: bytes}`` for
:func:`~aggregator.outputs.atomic.write_outputs`.

- ``score.json``: the ``--json`` object plus provenance (tool, version, commit, inputs and their SHA-256);
- ``units.csv``: per semantics (sound, official), unit and breakdown: tp, fp, fn, precision, recall, f1;
- ``per_sentence.parquet`` / ``.csv``: sound tp/fp/fn per sentence and unit, with the tuples as JSON;
- ``compat_report.md``: the summary and the compat report, readable.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from aggregator.formats.model import AbsaTuple, field_json
from aggregator.formats.payload import summary_lines

if TYPE_CHECKING:
    import polars as pl

    from aggregator.formats.evaluate import Evaluation

_FIELDS = ("aspect", "category", "opinion", "polarity")


def tuples_json(tuples: tuple[AbsaTuple, ...]) -> str:
    """The distinct tuples as a sorted JSON array of objects with the fields present (implicit = null)."""
    import msgspec

    encode = msgspec.json.encode
    shown = {encode({f: field_json(v) for f, v in zip(_FIELDS, t) if v is not None}) for t in tuples}
    return (b"[" + b",".join(sorted(shown)) + b"]").decode()


def per_sentence(evaluation: Evaluation) -> pl.DataFrame:
    import polars as pl

    rows = evaluation.sound.rows
    pairs = [pair for pair, _ in rows]
    columns: dict[str, pl.Series] = {
        "key": pl.Series([p.key for p in pairs], dtype=pl.String),
        "gold_line": pl.Series([p.gold.line if p.gold else None for p in pairs], dtype=pl.Int64),
        "pred_line": pl.Series([p.pred.line if p.pred else None for p in pairs], dtype=pl.Int64),
        "gold_tuples": pl.Series([tuples_json(p.gold.tuples if p.gold else ()) for p in pairs], dtype=pl.String),
        "pred_tuples": pl.Series([tuples_json(p.pred.tuples if p.pred else ()) for p in pairs], dtype=pl.String),
    }
    for index, unit in enumerate(evaluation.sound.units):
        for field, name in enumerate(("tp", "fp", "fn")):
            values = [int(tallies[index][field]) for _, tallies in rows]
            columns[f"{unit.name.replace(' ', '_')}_{name}"] = pl.Series(values, dtype=pl.Int64)
    return pl.DataFrame(columns)


def units_table(body: dict[str, Any]) -> pl.DataFrame:
    import polars as pl

    rows = [{"semantics": semantics, **row} for semantics in ("sound", "official") for row in body["units"][semantics]]
    return pl.DataFrame(rows, schema={"semantics": pl.String, "unit": pl.String, "breakdown": pl.String,
                                      "tp": pl.Float64, "fp": pl.Float64, "fn": pl.Float64, "precision": pl.Float64,
                                      "recall": pl.Float64, "f1": pl.Float64})


def _sha256(path: Any) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def score_files(evaluation: Evaluation, body: dict[str, Any], semantics: str, *,
                spreadsheet_safe: bool = False) -> dict[str, bytes]:
    """The files; ``spreadsheet_safe``: a ``'`` before every CSV text cell a spreadsheet would run as a
    formula (sentence keys of ``per_sentence.csv``: :mod:`aggregator.text`), as ``aggregate RUN`` does."""
    from aggregator.outputs.metadata_fields import git_commit
    from aggregator.outputs.tables import csv_bytes, parquet_bytes
    from aggregator.version import __version__

    provenance = {"tool": "absa-aggregator", "tool_version": __version__, "git_commit": git_commit(),
                  "gold_sha256": _sha256(evaluation.gold_path), "pred_sha256": _sha256(evaluation.pred_path),
                  "seconds": evaluation.seconds, "spreadsheet_safe": spreadsheet_safe}
    table = per_sentence(evaluation)
    report = "\n".join(["# Score", "", "```", *summary_lines(evaluation, semantics), "```", ""])
    return {
        "score.json": json.dumps({**body, "provenance": provenance}, ensure_ascii=False, indent=2).encode() + b"\n",
        "units.csv": csv_bytes(units_table(body), spreadsheet_safe=spreadsheet_safe),
        "per_sentence.parquet": parquet_bytes(table),
        "per_sentence.csv": csv_bytes(table, spreadsheet_safe=spreadsheet_safe),
        "compat_report.md": report.encode(),
    }
