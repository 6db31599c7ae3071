"""The reader gives a batching transform many records at a time (:data:`scorecards.chunks.BATCH_ROWS`);
what it reads must be what a line-by-line transform reads: the same rows, bad lines, skips and stop."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import aggregator.run.sample_values as sample_values
from aggregator.run.sample_values import SampleEvaluator
from scorecards import chunks
from scorecards.chunks import read_range
from scorecards.record import BadRow, SampleRecord
from tests.scorecard_rows import item, row

if TYPE_CHECKING:
    from aggregator.metrics.family import RowInput

KINDS = ("valid", "valid", "valid", "not json", "no key", "family rejects", "family cannot decode", "blank")


def _line(kind: str, index: int) -> str:
    if kind == "not json":
        return '{"meta": '
    if kind == "blank":
        return "   "
    key = {"family rejects": "reject", "family cannot decode": "undecodable"}.get(kind, "k")
    scorecard = row(f"{key}{index}", gold=[item("본품#품질", "맛", "positive")], final=[item("본품#품질", "맛", "negative")])
    if kind == "no key":
        del scorecard["meta"]["text_id"]
    return json.dumps(scorecard, ensure_ascii=False)


def _strict_family(inp: RowInput) -> tuple[object, ...]:
    """A family rule that finds some rows bad, as one reading a raw part of the line lazily may."""
    key = inp.record.sample_key
    if key.startswith("reject"):
        raise BadRow("rejected by a family")
    if key.startswith("undecodable"):
        raise UnicodeDecodeError("utf-8", b"\xff", 0, 1, "invalid start byte")
    return ()


class _LineByLine:
    """The evaluator as a plain transform: one record at a time."""

    def __init__(self, evaluator: SampleEvaluator) -> None:
        self.evaluator = evaluator

    def row_decoder(self) -> Any:
        return self.evaluator.row_decoder()

    def __call__(self, record: SampleRecord) -> tuple[object, ...]:
        return self.evaluator(record)


class _Batched(_LineByLine):
    """The evaluator as the reader sees it, without its packing (rows stay tuples, to compare)."""

    def batch(self, records: list[SampleRecord]) -> list[object]:
        return list(self.evaluator.batch(records))


def _read(path: Path, skip: bool, transform: Callable[[SampleRecord], Any]) -> tuple[object, ...]:
    chunk = read_range(str(path), 0, path.stat().st_size, "run", skip, transform)
    return chunk.items, chunk.ids, chunk.skipped, chunk.error, chunk.lines, chunk.rows


@settings(max_examples=60, deadline=None)
@given(kinds=st.lists(st.sampled_from(KINDS), min_size=1, max_size=12), batch=st.integers(1, 5),
       held=st.sampled_from([1, 400, 2**30]), skip=st.booleans(), families=st.sampled_from([None, ("core",)]))
def test_a_batched_read_is_the_line_by_line_read(tmp_path_factory: pytest.TempPathFactory, kinds: list[str],
                                                 batch: int, held: int, skip: bool,
                                                 families: tuple[str, ...] | None) -> None:
    """``held``: the bytes of lines a batch may hold (every line, about two lines, any number)."""
    path = tmp_path_factory.mktemp("batches") / "scorecards.jsonl"
    path.write_text("\n".join(_line(kind, i) for i, kind in enumerate(kinds)) + "\n", encoding="utf-8")
    evaluator = SampleEvaluator(families)
    plan = sample_values._plan(families)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(chunks, "BATCH_ROWS", batch)
        patch.setattr(chunks, "BATCH_BYTES", held)
        patch.setattr(sample_values, "_plan", lambda names: (*plan, _strict_family))
        expected = _read(path, skip, _LineByLine(evaluator))
        assert _read(path, skip, _Batched(evaluator)) == expected
    items, _, skipped, error, _, _ = expected
    bad = [i + 1 for i, kind in enumerate(kinds) if kind not in ("valid", "blank")]
    if skip:
        assert [line for line, _ in skipped] == bad and error is None
        assert len(items) == kinds.count("valid")  # type: ignore[arg-type]
    else:
        assert (error[0] if error else None) == (bad[0] if bad else None)
