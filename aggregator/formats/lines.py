"""Strict reading of the formats' files: every line numbered, a bad one is ``file:line: reason``."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from scorecards.errors import BadLine, BadLineError, InputError, quoted

if TYPE_CHECKING:
    from aggregator.formats.model import Label

BOM = b"\xef\xbb\xbf"
WORD_LABELS: dict[str, Label] = {"positive": "positive", "negative": "negative", "neutral": "neutral"}
"""Sentiments written as words (NIKLuge, ASQP), after strip and lower-case."""


def shown(value: object) -> str:
    """A value in a message: its ``repr``, nesting and lengths cut (:mod:`reprlib`: no recursion, however deep)."""
    import reprlib

    return quoted(reprlib.repr(value))


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


def literal(text: str, path: Path, line: int) -> object:
    """A Python literal (lists, tuples, strings, numbers), the value the formats' own readers ``eval``
    (:func:`~aggregator.formats.literal.read_literal`: without ``eval``, in memory linear in the text)."""
    from aggregator.formats.literal import NotRead, read_literal

    try:
        return read_literal(text)
    except NotRead as exc:
        raise bad(path, line, f"{exc}: {quoted(text.strip())}") from None


def label(value: object, labels: dict[str, Label], path: Path, line: int) -> Label:
    """``labels[value]``; any other value is a bad line naming the allowed ones."""
    if isinstance(value, str) and value in labels:
        return labels[value]
    allowed = ", ".join(map(repr, labels))
    raise bad(path, line, f"unknown sentiment {quoted(str(value))} (expected one of {allowed})")
