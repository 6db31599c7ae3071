"""One sample's row of the per-sample table: the core counts, then each family's values.

:class:`SampleEvaluator` is what the reader's worker processes call on each record. It is
picklable (it holds family names only) and tells the reader which typed schema to decode
(the core row merged with the fields of every family in force), so a line is decoded once.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Collection, Sequence
from functools import cache
from typing import TYPE_CHECKING

import msgspec

from aggregator.metrics.families import resolve
from aggregator.metrics.family import RowInput
from aggregator.sample_counts import COLUMNS, Column, sample_counts
from scorecards.record import SampleRecord
from scorecards.schema import Row
from scorecards.schema_merge import merge_structs

if TYPE_CHECKING:
    import polars as pl

Block = list[object]
_TYPECODES = {"int": "q", "float": "d", "bool": "b"}


def pack_rows(rows: list[tuple[object, ...]], columns: tuple[Column, ...]) -> Block:
    """``rows`` (tuples in ``columns`` order) as one container per column: an array where every
    value fits one (no None, no value of another type), else a list. Runs where Polars may not
    be imported (a forked decoding process), so it uses none."""
    block: Block = []
    values_of = zip(*rows) if rows else (() for _ in columns)
    for column, values in zip(columns, values_of):
        code = _TYPECODES.get(column.kind)
        if code is not None:
            try:
                block.append(array(code, values))
                continue
            except (TypeError, OverflowError):
                pass
        block.append(list(values))
    return block


@cache
def decoder_for(names: tuple[str, ...] | None) -> msgspec.json.Decoder:
    """The row decoder of a family selection: the core :class:`~scorecards.schema.Row` and every family's fields."""
    parts = [f.fields for f in resolve(names) if f.fields is not None]
    return msgspec.json.Decoder(merge_structs("Row", Row, *parts))


@cache
def columns_for(names: tuple[str, ...] | None) -> tuple[Column, ...]:
    """The per-sample columns of a family selection, core first, in row order."""
    columns = COLUMNS + tuple(c for f in resolve(names) for c in f.columns)
    seen: set[str] = set()
    for column in columns:
        if column.name in seen:
            raise ValueError(f"per-sample column {column.name!r} is declared twice")
        seen.add(column.name)
    return columns


CORE_NAMES: tuple[str, ...] = tuple(c.name for c in COLUMNS)


@cache
def _plan(names: tuple[str, ...] | None) -> tuple[tuple[Callable[[RowInput], tuple[object, ...]], tuple[str, ...]], ...]:
    """Each family's row function with its column names, in the order they run."""
    return tuple((f.row, tuple(c.name for c in f.columns)) for f in resolve(names) if f.row is not None)


class SampleEvaluator:
    """Per-sample values of the families ``names`` (None: all), core first."""

    def __init__(self, names: tuple[str, ...] | None = None) -> None:
        self.names = names

    def row_decoder(self) -> msgspec.json.Decoder:
        return decoder_for(self.names)

    def pack(self, rows: list[tuple[object, ...]]) -> Block:
        """A block of rows as columns, in the decoding process (:mod:`aggregator.row_blocks`)."""
        return pack_rows(rows, columns_for(self.names))

    def load(self, blocks: list[Block]) -> pl.DataFrame:
        """Packed blocks (consecutive rows) as one frame, in this process."""
        from aggregator.row_blocks import frame_of

        return frame_of(blocks, columns_for(self.names))

    def duplicates(
        self, frames: list[pl.DataFrame], lines: Sequence[int], excluded: Collection[int]
    ) -> tuple[list[tuple[int, int, str, str, str]], Sequence[int] | None]:
        """The duplicate rows among the loaded blocks (:func:`aggregator.row_blocks.duplicates`)."""
        from aggregator.row_blocks import duplicates

        return duplicates(frames, lines, excluded)

    def __call__(self, record: SampleRecord) -> tuple[object, ...]:
        core = sample_counts(record)
        plan = _plan(self.names)
        if not plan:
            return core
        values = dict(zip(CORE_NAMES, core))
        inp = RowInput(record, values)
        row = list(core)
        for compute, names in plan:
            derived = compute(inp)
            values.update(zip(names, derived))
            row.extend(derived)
        return tuple(row)
