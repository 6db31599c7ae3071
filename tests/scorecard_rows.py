"""Builders of scorecard rows and files for tests: the smallest valid shapes, extended per test."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from aggregator.run.pipeline import RunEvaluation, evaluate_run
from scorecards.record import SampleRecord, to_record
from scorecards.schema import ROW_DECODER
from tests.conftest import write_lines

Json = dict[str, Any]


def item(ref: str | None = None, term: Any = None, pol: str | None = "positive", **extra: Any) -> Json:
    """A tuple item with only the keys that are given (None = key absent)."""
    given = {"aspect_ref": ref, "aspect_term": term, "polarity": pol}
    return {**{k: v for k, v in given.items() if v is not None}, **extra}


def row(
    key: Any = "k1",
    *,
    gold: list[Any] | None = None,
    stage1: list[Any] | None = None,
    final: list[Any] | None = None,
    meta: Json | None = None,
    **top: Any,
) -> Json:
    """A row keyed by ``meta.text_id``, gold at top level, stage1/final in ``final_result``."""
    out: Json = {"meta": {"text_id": key, **(meta or {})}, **top}
    if gold is not None:
        out["gold_tuples"] = gold
    final_result = {k: v for k, v in (("stage1_tuples", stage1), ("final_tuples", final)) if v is not None}
    if final_result:
        out["runtime"] = {"parsed_output": {"final_result": final_result}}
    return out


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def write_rows(path: Path, rows: list[Json]) -> Path:
    """Write rows as a JSONL file (parent directories created)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_lines(path, [dumps(r) for r in rows])


def record_of(value: Json, default_run_id: str = "run_dir") -> SampleRecord:
    """One row through the partial schema and the contract's field rules, as the reader does."""
    return to_record(ROW_DECODER.decode(dumps(value).encode()), 1, default_run_id)


def evaluate_rows(directory: Path, rows: list[Json], **options: Any) -> RunEvaluation:
    """Write ``directory/scorecards.jsonl`` and evaluate it in this process."""
    write_rows(directory / "scorecards.jsonl", rows)
    return evaluate_run(directory, workers=1, **options)
