"""Per-sample tables as Parquet and CSV: written straight into an open file, or as bytes."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, BinaryIO

from aggregator.text import spreadsheet_safe_columns

if TYPE_CHECKING:
    import polars as pl


def write_parquet(table: pl.DataFrame, handle: BinaryIO) -> None:
    """Parquet, no statistics that vary between runs."""
    table.write_parquet(handle, compression="zstd", statistics=False)


def write_csv(table: pl.DataFrame, handle: BinaryIO, *, spreadsheet_safe: bool = False) -> None:
    """CSV with floats at full precision; ``spreadsheet_safe``: formula-like text cells and
    column names prefixed with ``'`` (:func:`~aggregator.text.spreadsheet_safe_columns`).
    Polars writes it in blocks of about 700 KB: the text of the whole table is never in memory."""
    (spreadsheet_safe_columns(table) if spreadsheet_safe else table).write_csv(handle)


def parquet_bytes(table: pl.DataFrame) -> bytes:
    """:func:`write_parquet` into bytes."""
    buffer = io.BytesIO()
    write_parquet(table, buffer)
    return buffer.getvalue()


def csv_bytes(table: pl.DataFrame, *, spreadsheet_safe: bool = False) -> bytes:
    """:func:`write_csv` into bytes."""
    buffer = io.BytesIO()
    write_csv(table, buffer, spreadsheet_safe=spreadsheet_safe)
    return buffer.getvalue()
