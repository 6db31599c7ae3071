"""How text from the input (run ids, sample keys, conditions, paths) is written where it could act.

Run ids, sample keys and condition names are whatever the scorecards hold. Written raw they
could move a terminal's cursor or set its title (control characters), add columns or rows to a
Markdown table (``|``, newlines), or run as a formula when a CSV file is opened in a
spreadsheet (``=``, ``+``, ``-``, ``@``, tab, carriage return). Each place escapes them here:

- :func:`printable`: every character Python does not print (``str.isprintable``: control,
  format, separator and unassigned characters but the space) as its ``repr`` escape
  (``\\x1b``, ``\\n``, ``\\u202e``), the rule the error lines' quoted values follow;
- :func:`md_code`, :func:`md_text`: a name as a Markdown code span, prose with Markdown's
  special characters escaped;
- :func:`spreadsheet_cell`, :func:`spreadsheet_safe_columns`: ``--spreadsheet-safe``, a ``'``
  before a text cell a spreadsheet would read as a formula (OWASP's CSV injection advice);
- :func:`shown_path`: a file name that is not UTF-8 (its bytes as lone surrogates) with each such byte as ``\\xNN``.
"""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl

FORMULA_STARTS = "=+-@\t\r＝＋－＠"
"""First characters that make a spreadsheet read a cell as a formula (also their full-width forms)."""
FORMULA_PREFIX = "'"
_FORMULA_START = r"^[=+\-@\t\r＝＋－＠]"
_MARKDOWN_INLINE = re.compile(r"([\\`*\[\]<>|~&]|(?<![^\W_])_|_(?![^\W_]))")
_MARKDOWN_BLOCK_START = re.compile(r"^(\s*\d*)([#>+=.)-])")
_BACKTICKS = re.compile(r"`+")


def printable(text: str) -> str:
    """``text`` with every non-printable character as its escape (``\\x1b``, ``\\n``, ``\\u200b``)."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in text)


def md_code(text: str, *, in_table: bool = False) -> str:
    """``text`` as one Markdown code span: nothing in it is markup, and it stays on one line
    (:func:`printable`); ``|`` escaped inside a table; a fence longer than any backtick run in it."""
    text = printable(text)
    if in_table:
        text = text.replace("|", "\\|")
    if not text:
        return '""'
    fence = "`" * (max((len(run) for run in _BACKTICKS.findall(text)), default=0) + 1)
    pad = " " if text[0] in "` " or text[-1] in "` " else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def md_text(text: str) -> str:
    """Prose that holds names from the input, for Markdown: one line, nothing in it is markup.

    Markdown's inline characters are backslash-escaped (``_`` only where it could open or close
    emphasis: not between two letters or digits), and a block marker at the start of the line.
    """
    escaped = _MARKDOWN_INLINE.sub(r"\\\1", printable(text))
    return _MARKDOWN_BLOCK_START.sub(lambda m: f"{m[1]}\\{m[2]}", escaped)


def spreadsheet_cell(text: str) -> str:
    """``'`` + ``text`` when a spreadsheet would read ``text`` as a formula, else ``text``."""
    return FORMULA_PREFIX + text if text[:1] and text[0] in FORMULA_STARTS else text


def is_number(text: str) -> bool:
    """Whether a CSV cell is a number (those stay as they are)."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def spreadsheet_safe_csv(data: bytes) -> bytes:
    """A small CSV file with :func:`spreadsheet_cell` applied to every cell that is not a number
    (``-0.25`` stays a number); the same layout otherwise."""
    rows = csv.reader(io.StringIO(data.decode("utf-8"), newline=""))
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerows([cell if is_number(cell) else spreadsheet_cell(cell) for cell in row] for row in rows)
    return buffer.getvalue().encode("utf-8")


def is_text(dtype: pl.DataType) -> bool:
    """A text column's type: String, or a label's Categorical or Enum (:class:`~aggregator.units.sample_counts.Column`)."""
    import polars as pl

    return dtype == pl.String or dtype == pl.Categorical or isinstance(dtype, pl.Enum)


def spreadsheet_safe_columns(table: pl.DataFrame) -> pl.DataFrame:
    """``table`` with :func:`spreadsheet_cell` applied to every text cell and column name."""
    import polars as pl

    text = [name for name, dtype in table.schema.items() if is_text(dtype)]
    guarded = table.with_columns(
        pl.when(pl.col(name).cast(pl.String).str.contains(_FORMULA_START))
        .then(pl.lit(FORMULA_PREFIX) + pl.col(name).cast(pl.String))
        .otherwise(pl.col(name).cast(pl.String))
        .alias(name)
        for name in text
    )
    return guarded.rename({name: spreadsheet_cell(name) for name in table.columns if spreadsheet_cell(name) != name})


def shown_path(path: Path | str) -> str:
    """``path`` as text that encodes to UTF-8: each byte of the name that is not UTF-8 as ``\\xNN``."""
    text = str(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    return text
