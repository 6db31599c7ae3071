"""How the research script turns values into text (LEGACY.md section 1: S(x), V, F4, W-csv, JSON-line).

Every legacy file is written through these few functions, so a rule of the script's text
output is stated once.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Sequence
from typing import Any


def python_text(value: Any) -> str:
    """S(x): what Python's ``str()`` gives for a parsed JSON value (a string as is, null ``None``,
    true ``True``, a float its ``repr``, a list or object Python's ``repr`` of it)."""
    return value if isinstance(value, str) else str(value)


def f4(value: float) -> str:
    """F4: exactly 4 decimals, the binary value rounded half-to-even (``-0.0000`` kept)."""
    return format(value, ".4f")


def delimited(header: Sequence[str], rows: Iterable[Sequence[Any]], delimiter: str = ",") -> bytes:
    """W-csv: Python's ``csv`` excel dialect, CRLF after every record, minimal quoting, cells V
    (the ``csv`` module's own text of a value is V: None empty, anything else ``str()``)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=delimiter, lineterminator="\r\n")
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8")


def json_line(value: Any) -> str:
    """JSON-line: compact with ``, `` and ``: ``, keys in the given order, non-ASCII as is."""
    return json.dumps(value, ensure_ascii=False)


def lf_text(lines: Iterable[str]) -> bytes:
    """LF-text without a final newline."""
    return "\n".join(lines).encode("utf-8")
