"""Per-sample "count" columns: one byte a row, widened exactly (never wrapped or nulled) when a value needs more."""

from __future__ import annotations

from pathlib import Path

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from aggregator.run.sample_values import frame_of, pack_rows, table_of
from aggregator.units.sample_counts import Column
from tests.scorecard_rows import evaluate_rows, item, row

COLUMNS = (Column("sample_key", "str", ""), Column("split", "str", ""), Column("run_id", "str", ""),
           Column("n", "count", ""))


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.integers(0, 2**40), min_size=1, max_size=12), cut=st.integers(1, 5))
def test_counts_load_as_their_values_whatever_blocks_they_come_in(values: list[int], cut: int) -> None:
    rows = [(f"k{i:03}", "", "r", v) for i, v in enumerate(values)]
    blocks = [pack_rows(rows[start:start + cut], COLUMNS) for start in range(0, len(rows), cut)]
    frames = [frame_of([block], COLUMNS) for block in blocks]
    column = table_of(frames, list(range(1, len(rows) + 1)), None).get_column("n")
    assert column.to_list() == values
    assert column.dtype == (pl.UInt8 if max(values) <= 255 else pl.Int64)


def test_a_sample_with_hundreds_of_missed_pairs_is_counted_exactly(tmp_path: Path) -> None:
    gold = [item(f"본품#품질{i}", f"term{i}", "positive") for i in range(300)]
    rows = [row("a", gold=gold, final=[]), row("b", gold=[item("본품#품질", "향")], final=[item("본품#품질", "향")])]
    evaluation = evaluate_rows(tmp_path / "run", rows)
    table = evaluation.table
    assert table.get_column("err_refpol_s2_missed").to_list() == [300, 0]
    assert table.get_column("err_refpol_s2_missed").dtype == pl.Int64
    assert evaluation.metrics["errors_missed_s2_refpol"] == 300
    assert evaluation.metrics["errors_missed_s2_refpol_per_gold"] == 300 / 301
