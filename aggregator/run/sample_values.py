"""One sample's row of the per-sample table: the core counts, then each family's values.

:class:`SampleEvaluator` is what the reader's worker processes call on each record. It is
picklable (it holds family names only) and tells the reader which typed schema to decode
(the core row merged with the fields of every family in force), so a line is decoded once.

Rows travel in blocks. Holding one Python tuple per sample until the whole input is read made
memory grow with Python objects per row (3 GB and more at 1,000,000 rows). Instead the reader
(:mod:`scorecards.reader`) hands every :data:`~scorecards.chunks.PACK_ROWS` rows of a decoding
process to :func:`pack_rows`, which turns them into columns (numbers as :class:`array.array`,
8 bytes a value, cheap to send between processes; it touches no Polars, which a decoding
process never loads), and this process makes the blocks a frame (:func:`frame_of`) as soon as
their ranges are decoded: the blocks of consecutive small ranges together (a frame costs
~25 µs a column whatever its length, 0.1 s and more for 5,000 rows of 28 KB in 35 ranges of
4 MB). Polars copies the arrays into its own memory: zero-copy numpy views kept the arrays
alive in Python's heap, which does not give them back (+236 MB at 500,000 tiny rows).
:func:`table_of` then joins the frames in sample-key order, one column at a time, so that the
per-sample table and one column are the most ever held. Polars is looked up only by the
functions that run in this process, so the command's deferred import
(:mod:`aggregator.deferred_import`) still leaves it unloaded in the decoders.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, TypeAlias

import msgspec
import polars as pl

from aggregator.metrics.families import resolve
from aggregator.metrics.family import RowInput
from aggregator.units.sample_counts import COLUMNS, Column, UnitPairs, counts_and_pairs
from scorecards.record import BadRow
from scorecards.schema import Row
from scorecards.schema_merge import merge_structs

if TYPE_CHECKING:
    from scorecards.read_result import Duplicate, Indices
    from scorecards.record import SampleRecord

Packed: TypeAlias = "array[int] | array[float] | list[object]"
"""One column of a block: an array where every value fits one, else a list."""
Block = list[Packed]
_DTYPES = {"str": "String", "label": "Categorical", "int": "Int64", "bool": "Boolean", "float": "Float64",
           "count": "UInt8"}
ORDER = ("sample_key", "split", "run_id", "line")
"""The order of the per-sample table: unique per row, so no tie is left to the input's line order."""

IDENTITY = ("run_id", "split", "sample_key")
_TYPECODES = {"int": ("q",), "float": ("d",), "bool": ("b",), "count": ("B", "q")}
"""Array type codes to try, in order: a "count" block is 1 byte a value, 8 when a value exceeds 255."""
_WIDE = {"B": "UInt8", "q": "Int64"}


def pack_rows(rows: Sequence[tuple[object, ...]], columns: Sequence[Column]) -> Block:
    """``rows`` (tuples in ``columns`` order) as one container per column: an array where every
    value fits one (no None, no value of another type), else a list. Runs where Polars may not
    be imported (a forked decoding process), so it uses none."""
    block: Block = []
    values_of = zip(*rows) if rows else (() for _ in columns)
    for column, values in zip(columns, values_of):
        for code in _TYPECODES.get(column.kind, ()):
            try:
                block.append(array(code, values))
                break
            except (TypeError, OverflowError):
                pass
        else:
            block.append(list(values))
    return block


@cache
def decoder_for(names: tuple[str, ...] | None) -> msgspec.json.Decoder[msgspec.Struct]:
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


@cache
def _plan(names: tuple[str, ...] | None) -> tuple[Callable[[RowInput], tuple[object, ...]], ...]:
    """Each family's row function, in the order they run (their values follow the core's in a row)."""
    return tuple(f.row for f in resolve(names) if f.row is not None)


class SampleEvaluator:
    """Per-sample values of the families ``names`` (None: all), core first."""

    def __init__(self, names: tuple[str, ...] | None = None) -> None:
        """Imports the families and builds the decoder here, before the reader forks its decoding
        processes: each of them would otherwise import and build them again (~35 ms of CPU each)."""
        self.names = names
        decoder_for(names), columns_for(names), _plan(names)

    def row_decoder(self) -> msgspec.json.Decoder[msgspec.Struct]:
        return decoder_for(self.names)

    def pack(self, rows: list[tuple[object, ...]]) -> Block:
        """A block of rows as columns, in the decoding process ."""
        return pack_rows(rows, columns_for(self.names))

    def load(self, blocks: list[Block]) -> pl.DataFrame:
        """Packed blocks (consecutive rows) as one frame, in this process."""
        return frame_of(blocks, columns_for(self.names))

    def duplicates(
        self, frames: list[pl.DataFrame], lines: Sequence[int], excluded: Collection[int]
    ) -> tuple[list[Duplicate], pl.Series | None]:
        """The duplicate rows among the loaded blocks (:func:`duplicates`)."""
        return duplicates(frames, lines, excluded)

    def batch(self, records: list[SampleRecord]) -> list[tuple[object, ...] | BadRow | UnicodeDecodeError]:
        """:meth:`__call__` of each record, family by family over all of them (each family's rule runs
        on many rows in a row); a record a family finds bad gives the error it raised."""
        plan = _plan(self.names)
        counted = list(map(_counted, records))
        if not plan:
            return [found if isinstance(found, Exception) else found[0] for found in counted]
        positions = _positions(self.names)
        rows: list[list[object]] = []
        inputs: list[RowInput] = []
        failed: dict[int, BadRow | UnicodeDecodeError] = {}
        for index, (record, found) in enumerate(zip(records, counted)):
            if isinstance(found, Exception):
                failed[index], found = found, ((), {})
            rows.append(list(found[0]))
            inputs.append(RowInput(record, RowValues(rows[-1], positions), *found))
        for compute in plan:
            for index, (inp, row) in enumerate(zip(inputs, rows)):
                if index not in failed:
                    try:
                        row.extend(compute(inp))
                    except (BadRow, UnicodeDecodeError) as exc:
                        failed[index] = exc
        return [failed[index] if index in failed else tuple(row) for index, row in enumerate(rows)]

    def __call__(self, record: SampleRecord) -> tuple[object, ...]:
        """One record's row (the core's values, then each family's); raises what :meth:`batch` gives."""
        value = self.batch([record])[0]
        if isinstance(value, (BadRow, UnicodeDecodeError)):
            raise value
        return value


def _counted(record: SampleRecord) -> tuple[tuple[object, ...], UnitPairs] | BadRow | UnicodeDecodeError:
    """The core's values and pairs of a record (:func:`~aggregator.units.sample_counts.counts_and_pairs`),
    or the error that makes it a bad line."""
    try:
        return counts_and_pairs(record)
    except (BadRow, UnicodeDecodeError) as exc:
        return exc


@cache
def _positions(names: tuple[str, ...] | None) -> dict[str, int]:
    """Each per-sample column's place in a row (core first, then the families in force, in order)."""
    return {column.name: i for i, column in enumerate(columns_for(names))}


class RowValues(Mapping[str, object]):
    """The values computed so far for one sample, by column name: a view of the row being built
    (no dict per sample; a family reads a few of them, ``requires`` puts them before it)."""

    __slots__ = ("_row", "_positions")

    def __init__(self, row: list[object], positions: dict[str, int]) -> None:
        self._row = row
        self._positions = positions

    def __getitem__(self, name: str) -> object:
        place = self._positions[name]
        if place >= len(self._row):
            raise KeyError(name)
        return self._row[place]

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._positions)[:len(self._row)])

    def __len__(self) -> int:
        return min(len(self._row), len(self._positions))


def dtype_of(column: Column) -> pl.DataType:
    """The Polars type of a per-sample column: a label with a closed set of values an Enum of them."""
    if column.kind == "label" and column.values:
        return pl.Enum(column.values)
    dtype: pl.DataType = getattr(pl, _DTYPES[column.kind])()
    return dtype


def frame_of(blocks: Sequence[Block], columns: Sequence[Column]) -> pl.DataFrame:
    """Packed blocks (consecutive rows) as one frame with the per-sample table's column types."""
    return pl.DataFrame([_series(c, [block[i] for block in blocks]) for i, c in enumerate(columns)])


def _series(column: Column, parts: list[Packed]) -> pl.Series:
    """One column of several blocks: arrays of one type joined, else their values in one list.

    A "bool" column reaches Polars as a NumPy array (Polars read an ``array`` of 5,000 booleans value by
    value, ~220 µs; ~7 µs from NumPy, whose booleans it packs into bits of its own memory). Numbers stay
    ``array``s: Polars would keep a NumPy array's memory instead of copying it (1,000,000 tiny rows
    peaked at 2,129 MB so, 1,475 MB as they are). A "count" column is UInt8 when every block's values
    fit a byte, else Int64 (the table's frames are joined with their common type, :func:`table_of`)."""
    arrays = [p for p in parts if isinstance(p, array)]
    values: object
    dtype = dtype_of(column)
    codes = {a.typecode for a in arrays}
    if len(arrays) == len(parts) and len(codes) == 1:
        values = arrays[0] if len(arrays) == 1 else array(arrays[0].typecode, b"".join(arrays))
        if column.kind == "bool":
            import numpy as np

            values = np.frombuffer(values, dtype=np.int8).astype(bool)
        if column.kind == "count":
            dtype = getattr(pl, _WIDE[arrays[0].typecode])()
    else:
        values = [v for p in parts for v in p]
        if column.kind == "count":
            dtype = pl.Int64()
    return pl.Series(column.name, values, dtype=dtype, strict=column.kind == "label")


def table_of(frames: list[pl.DataFrame], lines: Sequence[int], kept: Indices | None) -> pl.DataFrame:
    """The rows of ``frames`` (in file order, with their ``lines``), those of ``kept`` only
    (None: all), in :data:`ORDER`, with a ``line`` column.

    Consumes ``frames`` (the list is emptied): each column is gathered into the new order and
    its blocks freed before the next one, so memory holds the table and one column more.
    """
    counts = pl.concat(frames, how="vertical_relaxed", rechunk=False)  # a wide "count" block widens its column
    frames.clear()
    line = pl.Series("line", lines, dtype=pl.Int64)
    keys = counts.select(ORDER[:-1]).with_columns(line.rechunk()).with_row_index("row")
    if kept is not None:
        keys = keys[pl.Series(kept, dtype=pl.Int64)]
    order = keys.sort(ORDER).get_column("row")
    del keys
    gathered = [counts.drop_in_place(name).gather(order) for name in list(counts.columns)]
    return pl.DataFrame([*gathered, line.gather(order)])


def duplicates(
    frames: Sequence[pl.DataFrame], lines: Sequence[int], excluded: Collection[int]
) -> tuple[list[Duplicate], pl.Series | None]:
    """The reader's ``duplicates`` hook (:data:`scorecards.read_result.FindDuplicates`), found in Polars.

    Rows in file order; of the rows of one identity (run id, split, sample key) the first
    counts and each other one is ``(line, first line, run id, split, sample key)``; rows on
    ``excluded`` lines (not UTF-8) take no part. Returns them in line order and the indices
    of the rows that count (None: all).
    """
    if not frames:
        return [], None
    ids = pl.concat([frame.select(IDENTITY) for frame in frames], how="vertical", rechunk=False)
    ids = ids.with_columns(pl.Series("line", lines, dtype=pl.Int64).rechunk()).with_row_index("row")
    if excluded:
        ids = ids.filter(~pl.col("line").is_in(pl.Series(sorted(excluded), dtype=pl.Int64).implode()))
    ids = ids.with_columns(pl.col("line").first().over(IDENTITY, order_by="line").alias("first"))
    repeated = ids.filter(pl.col("line") != pl.col("first"))
    found = list(repeated.select("line", "first", *IDENTITY).iter_rows())
    if not found and ids.height == len(lines):
        return found, None
    return found, ids.filter(pl.col("line") == pl.col("first")).get_column("row")
