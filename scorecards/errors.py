"""Errors a user can cause with their input: each renders as one line."""

from __future__ import annotations

from dataclasses import dataclass


def quoted(value: str, limit: int = 60) -> str:
    """``repr(value)`` of at most ``limit`` characters of ``value`` (``…`` marks a cut): keeps messages short."""
    return repr(value[:limit]) + ("…" if len(value) > limit else "")


NESTING_TOO_DEEP = "not valid JSON: nesting too deep to parse"
INVALID_UTF8 = "invalid UTF-8"
"""What a decoder says of a string that is not UTF-8; the file scan then reports the line, naming the byte."""


class InputError(Exception):
    """The input cannot be read at all (no file, empty input, ...): one line, exit 2."""


@dataclass(frozen=True, slots=True)
class BadLine:
    """One bad line: where and why."""

    path: str
    line: int
    reason: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.reason}"


class BadLineError(InputError):
    """The first bad line of a strict run."""

    def __init__(self, bad: BadLine) -> None:
        super().__init__(str(bad))
        self.bad = bad
