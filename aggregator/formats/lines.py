"""Strict reading of the formats' files: every line numbered, a bad one is ``file:line: reason``."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import TYPE_CHECKING

from scorecards.errors import BadLine, BadLineError, InputError, quoted

if TYPE_CHECKING:
    from aggregator.formats.model import Label

BOM = b"\xef\xbb\xbf"
WORD_LABELS: dict[str, Label] = {"positive": "positive", "negative": "negative", "neutral": "neutral"}
"""Sentiments written as words (NIKLuge, ASQP), after strip and lower-case."""
_QUOTED = re.compile(r"('[^']*')")
_BRACKETS = str.maketrans("()", "[]")


def bad(path: Path, line: int, reason: str) -> BadLineError:
    """The error of one bad line (raise it)."""
    return BadLineError(BadLine(str(path), line, reason))


def read_lines(path: Path) -> list[tuple[int, str]]:
    """The lines of a UTF-8 file with their 1-based numbers, without ``\\n`` or ``\\r\\n``.

    A byte-order mark is dropped. Bytes that are not UTF-8 and blank lines are bad lines
    (formats pair sentences by position, so a blank line is never skipped silently); a
    file without lines is an :class:`~scorecards.errors.InputError`.
    """
    data = path.read_bytes()
    data = data[len(BOM):] if data.startswith(BOM) else data
    try:
        text = data.decode()
    except UnicodeDecodeError as exc:
        raise bad(path, data.count(b"\n", 0, exc.start) + 1, f"invalid UTF-8 (byte {data[exc.start]:#04x})") from None
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    numbered = [(number, line[:-1] if line.endswith("\r") else line) for number, line in enumerate(lines, 1)]
    for number, line in numbered:
        if not line.strip():
            raise bad(path, number, "blank line (sentences are paired by line; remove it)")
    if not numbered:
        raise InputError(f"{path}: empty file (no sentence)")
    return numbered


def _as_json(text: str) -> str | None:
    """The literal as JSON when that is exact: no double quote or backslash anywhere, so each
    single-quoted string holds neither; brackets outside the strings become JSON arrays."""
    if '"' in text or "\\" in text:
        return None
    parts = _QUOTED.split(text)
    parts[::2] = [part.translate(_BRACKETS) for part in parts[::2]]
    parts[1::2] = ['"' + part[1:-1] + '"' for part in parts[1::2]]
    return "".join(parts)


def literal(text: str, path: Path, line: int) -> object:
    """A Python literal (lists, tuples, strings, numbers), as the formats' own readers ``eval`` it.

    Decoded as JSON when :func:`_as_json` applies and gives valid JSON (tuples become lists),
    else by :func:`ast.literal_eval`: the value is the same, ~10× faster.
    """
    import msgspec

    fast = _as_json(text)
    if fast is not None:
        try:
            return msgspec.json.decode(fast)
        except msgspec.DecodeError:
            pass
    try:
        return ast.literal_eval(text.strip())
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise bad(path, line, f"labels are not a Python literal: {quoted(text.strip())}") from None


def label(value: object, labels: dict[str, Label], path: Path, line: int) -> Label:
    """``labels[value]``; any other value is a bad line naming the allowed ones."""
    if isinstance(value, str) and value in labels:
        return labels[value]
    allowed = ", ".join(map(repr, labels))
    raise bad(path, line, f"unknown sentiment {quoted(str(value))} (expected one of {allowed})")
