"""Per-sample "bool" columns load as the values the families gave, whatever blocks they come in
(aggregator/run/sample_values.py: a block of flags reaches Polars as a NumPy array, one with a None as a list)."""

from __future__ import annotations

import polars as pl
from hypothesis import given, settings
from hypothesis import strategies as st

from aggregator.run.sample_values import frame_of, pack_rows
from aggregator.units.sample_counts import Column

COLUMNS = (Column("sample_key", "str", ""), Column("flag", "bool", ""))


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.booleans() | st.none(), min_size=1, max_size=12), cut=st.integers(1, 5))
def test_flags_load_as_their_values_whatever_blocks_they_come_in(values: list[bool | None], cut: int) -> None:
    rows = [(f"k{i:03}", v) for i, v in enumerate(values)]
    blocks = [pack_rows(rows[start:start + cut], COLUMNS) for start in range(0, len(rows), cut)]
    for frames in ([frame_of(blocks, COLUMNS)], [frame_of([block], COLUMNS) for block in blocks]):
        column = pl.concat(frames).get_column("flag")
        assert column.dtype == pl.Boolean
        assert column.to_list() == values
