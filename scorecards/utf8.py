"""Whether bytes are UTF-8: a fast check of a block, and the reason a line is not (its first bad byte).

Used by the file scan (:mod:`scorecards.scan`) and by the line reader of compressed streams
(:class:`~scorecards.lines.Lines`).
"""

from __future__ import annotations


def utf8_error(line: bytes | memoryview) -> str | None:
    """``invalid UTF-8 at byte N`` for a line that is not UTF-8, else None."""
    try:
        str(line, "utf-8")
    except UnicodeDecodeError as exc:
        return f"invalid UTF-8 at byte {exc.start}"
    return None


def is_utf8(data: bytes) -> bool:
    """``data`` is UTF-8 (checked in Polars, without building a ``str``).

    Any failure of the cast counts as "not UTF-8": the lines are then checked one by one
    with Python's decoder, which has the last word.
    """
    if data.isascii():
        return True
    import polars as pl

    try:
        pl.Series([data], dtype=pl.Binary).cast(pl.String)
    except pl.exceptions.PolarsError:
        return False
    return True
