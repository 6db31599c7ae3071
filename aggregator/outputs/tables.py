"""Per-sample tables as Parquet and CSV bytes."""

from __future__ import annotations

import io

import polars as pl


def parquet_bytes(table: pl.DataFrame) -> bytes:
    """Parquet, no statistics that vary between runs."""
    buffer = io.BytesIO()
    table.write_parquet(buffer, compression="zstd", statistics=False)
    return buffer.getvalue()


def csv_bytes(table: pl.DataFrame) -> bytes:
    """CSV with floats at full precision."""
    buffer = io.BytesIO()
    table.write_csv(buffer)
    return buffer.getvalue()
