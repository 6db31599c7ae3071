"""Per-sample rows in blocks: packed as columns where they are decoded, a Polars frame here.

Holding one Python tuple per sample until the whole input is read made memory grow with
Python objects per row (3 GB and more at 1,000,000 rows). Instead the reader
(:mod:`scorecards.reader`) hands every :data:`~scorecards.reader.PACK_ROWS` rows of a
decoding process to :func:`~aggregator.sample_values.pack_rows`, which turns them into
columns (numbers as :class:`array.array`, 8 bytes a value, cheap to send between processes;
it lives beside the evaluator because a decoding process must not import Polars), and this
process makes the blocks a frame (:func:`frame_of`) as soon as their ranges are decoded: the
blocks of consecutive small ranges together (a frame costs ~25 µs a column whatever its
length, 0.1 s and more for 5,000 rows of 28 KB in 35 ranges of 4 MB). Polars copies the
arrays into its own memory: zero-copy numpy views kept the arrays alive in Python's heap,
which does not give them back (+236 MB at 500,000 tiny rows).
:func:`table_of` then joins the frames in sample-key order, one column at a time, so that
the per-sample table and one column are the most ever held.
"""

from __future__ import annotations

from array import array
from collections.abc import Collection, Sequence

import polars as pl

from aggregator.sample_counts import Column
from aggregator.sample_values import Block, pack_rows

DTYPES = {"str": pl.String, "label": pl.Categorical, "int": pl.Int64, "bool": pl.Boolean, "float": pl.Float64}
ORDER = ("sample_key", "split", "run_id", "line")
"""The order of the per-sample table: unique per row, so no tie is left to the input's line order."""

IDENTITY = ("run_id", "split", "sample_key")
__all__ = ["DTYPES", "IDENTITY", "ORDER", "Block", "dtype_of", "duplicates", "frame_of", "pack_rows", "table_of"]


def dtype_of(column: Column) -> pl.DataType:
    """The Polars type of a per-sample column: a label with a closed set of values an Enum of them."""
    if column.kind == "label" and column.values:
        return pl.Enum(column.values)
    return DTYPES[column.kind]()


def frame_of(blocks: Sequence[Block], columns: Sequence[Column]) -> pl.DataFrame:
    """Packed blocks (consecutive rows) as one frame with the per-sample table's column types."""
    return pl.DataFrame([_series(c, [block[i] for block in blocks]) for i, c in enumerate(columns)])


def _series(column: Column, parts: list[array[int] | array[float] | list[object]]) -> pl.Series:
    """One column of several blocks: arrays of one type joined, else their values in one list."""
    arrays = [p for p in parts if isinstance(p, array)]
    values: object
    if len(arrays) == len(parts) and len({a.typecode for a in arrays}) == 1:
        values = arrays[0] if len(arrays) == 1 else array(arrays[0].typecode, b"".join(arrays))
    else:
        values = [v for p in parts for v in p]
    return pl.Series(column.name, values, dtype=dtype_of(column), strict=column.kind == "label")


def table_of(frames: list[pl.DataFrame], lines: Sequence[int], kept: Sequence[int] | None) -> pl.DataFrame:
    """The rows of ``frames`` (in file order, with their ``lines``), those of ``kept`` only
    (None: all), in :data:`ORDER`, with a ``line`` column.

    Consumes ``frames`` (the list is emptied): each column is gathered into the new order and
    its blocks freed before the next one, so memory holds the table and one column more.
    """
    counts = pl.concat(frames, how="vertical", rechunk=False)
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
) -> tuple[list[tuple[int, int, str, str, str]], pl.Series | None]:
    """The reader's ``duplicates`` hook (:data:`scorecards.reader.FindDuplicates`), found in Polars.

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
