"""Per-sample tables as Parquet and CSV bytes."""

from __future__ import annotations

import io

import polars as pl

from aggregator.text import spreadsheet_safe_columns


def parquet_bytes(table: pl.DataFrame) -> bytes:
    """Parquet, no statistics that vary between runs."""
    buffer = io.BytesIO()
    table.write_parquet(buffer, compression="zstd", statistics=False)
    return buffer.getvalue()


def csv_bytes(table: pl.DataFrame, *, spreadsheet_safe: bool = False) -> bytes:
    """CSV with floats at full precision; ``spreadsheet_safe``: formula-like text cells and
    column names prefixed with ``'`` (:func:`~aggregator.text.spreadsheet_safe_columns`)."""
    buffer = io.BytesIO()
    (spreadsheet_safe_columns(table) if spreadsheet_safe else table).write_csv(buffer)
    return buffer.getvalue()
