"""Line-level access to a JSONL file: byte ranges split at line boundaries, streamed in blocks."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from io import BufferedIOBase
from typing import NamedTuple

from scorecards.utf8 import is_utf8, utf8_error

BLOCK = 1 << 20
"""Bytes read at a time. A decoded row's raw fields point into the block its line came from, so a batch of rows
holds a few blocks; freed blocks are reused, and only the first ones are fresh memory. A core run of 5,000
rows of 28 KB: 32,500 page faults in 1 MiB blocks against 36,300 in 4 MiB ones, 0.867 against 0.883 CPU-s
(medians of 10 interleaved runs; benchmarks/RESULTS.md)."""
PROBE = 1 << 16
"""The first read looking for a line's end after a cut (reading :data:`BLOCK` at each of 35 cuts of a 143 MB
file read it whole once more: 0.024 CPU-s before the decoders could start)."""
BOM = b"\xef\xbb\xbf"
_ASCII_SPACE = frozenset(b" \t\n\r\x0b\x0c")

Line = bytes | memoryview


def most_ranges(size: int, parts: int, min_part: int) -> int:
    """How many ranges :func:`split_ranges` may cut ``size`` bytes into: at most ``parts``,
    each of at least ``min_part`` bytes (at least one)."""
    return max(1, min(parts, size // max(min_part, 1)))


def _after_newline(handle: BufferedIOBase, offset: int, size: int) -> int:
    """The offset just after the first newline at or after ``offset`` (``size`` when none), found by
    reading blocks of :data:`PROBE` bytes doubling up to :data:`BLOCK`: a cut usually lands in a line of
    a few KiB, and a line of a gigabyte is never held whole."""
    handle.seek(offset)
    step = PROBE
    while block := handle.read(step):
        found = block.find(b"\n")
        if found >= 0:
            return offset + found + 1
        offset += len(block)
        step = min(2 * step, BLOCK)
    return size


def split_ranges(path: str, parts: int, min_part: int) -> list[tuple[int, int]]:
    """Cut the file into at most ``parts`` byte ranges, each ending just after a newline.

    Ranges are at least ``min_part`` bytes (except the last); a small file is one range.
    """
    size = os.path.getsize(path)
    parts = most_ranges(size, parts, min_part)
    bounds = [0]
    with open(path, "rb") as handle:
        for i in range(1, parts):
            target = max(size * i // parts, bounds[-1])
            cut = _after_newline(handle, target, size)
            if cut >= size:
                break
            if cut > bounds[-1]:
                bounds.append(cut)
    bounds.append(size)
    return [(a, b) for a, b in zip(bounds, bounds[1:]) if b > a] or [(0, size)]


MAX_LINE = 256 << 20
"""The longest line read (256 MiB): a longer one is a bad line, held in memory only up to this size."""
_NEWLINES = re.compile(b"\n+")


class Oversized(NamedTuple):
    """A line longer than :data:`MAX_LINE`: its size; its bytes are not kept."""

    size: int

    def reason(self, limit: int | None = None) -> str:
        limit = MAX_LINE if limit is None else limit
        shown = f" ({limit / (1 << 20):g} MiB)" if limit >= 1 << 20 else ""
        return f"line of {self.size:,} bytes is longer than the limit of {limit:,} bytes{shown} per line"


class Lines:
    """The numbered lines of ``[start, end)`` of a stream, read in blocks; iterate for
    ``(number, line)`` of every line that is not empty (empty lines are counted, not yielded).

    Lines inside a block are zero-copy memoryviews of it, valid until the next line is asked for; a
    line that spans blocks is joined once, from its pieces (linear time); one longer than ``limit``
    (default :data:`MAX_LINE`) is :class:`Oversized` (its pieces dropped as they come). The byte-order mark at offset 0 is
    removed. Memory holds one block plus the longest line. ``on_bytes`` (a progress bar) is called
    with each block's size. ``end`` None: to the end of the stream (which need not be seekable then,
    e.g. decompressed data). ``utf8``: lines that are not UTF-8 are found as they pass (one check
    per block, line by line only in a block that fails) and named in :attr:`invalid`, before they
    are yielded. :attr:`count` is the number of lines read so far, empty ones included.
    """

    def __init__(self, handle: BufferedIOBase, start: int, end: int | None, on_bytes: Callable[[int], None] | None = None,
                 *, limit: int | None = None, utf8: bool = False) -> None:
        self._handle, self._start, self._end, self._on_bytes = handle, start, end, on_bytes
        self._limit, self._utf8 = MAX_LINE if limit is None else limit, utf8
        self.count = 0
        self.invalid: dict[int, str] = {}

    def _blocks(self) -> Iterator[bytes]:
        if self._start:
            self._handle.seek(self._start)
        remaining = self._end - self._start if self._end is not None else -1
        first = self._start == 0
        while remaining:
            block = self._handle.read(min(BLOCK, remaining) if remaining > 0 else BLOCK)
            if not block:
                return
            remaining = max(remaining - len(block), 0) if remaining > 0 else -1
            if self._on_bytes is not None:
                self._on_bytes(len(block))
            if first and block.startswith(BOM):
                block = block[len(BOM):]
            first = False
            yield block

    def _joined(self, parts: list[bytes], size: int) -> Line | Oversized:
        if size > self._limit:
            return Oversized(size)
        line = b"".join(parts)
        if self._utf8:
            self._check(line)
        return line

    def _check(self, line: Line) -> None:
        if not is_utf8(bytes(line)):
            self.invalid[self.count] = utf8_error(line) or "invalid UTF-8"

    def __iter__(self) -> Iterator[tuple[int, Line | Oversized]]:
        parts: list[bytes] = []
        size = 0
        for block in self._blocks():
            cut = block.find(b"\n")
            if cut < 0:
                size += len(block)
                if size > self._limit:
                    parts.clear()
                else:
                    parts.append(block)
                continue
            size += cut
            self.count += 1
            if parts or size > self._limit:
                yield self.count, self._joined([*parts, block[:cut]], size)
            elif cut:
                if self._utf8:
                    self._check(block[:cut])
                yield self.count, memoryview(block)[:cut]
            last = block.rfind(b"\n")
            checked = not self._utf8 or is_utf8(block[cut + 1: last])
            view, pos = memoryview(block), cut + 1
            while pos <= last:
                if block[pos] == 10:  # a run of empty lines
                    run = _NEWLINES.match(block, pos)
                    self.count += run.end() - pos  # type: ignore[union-attr]
                    pos = run.end()  # type: ignore[union-attr]
                    continue
                cut = block.find(b"\n", pos)
                self.count += 1
                if cut - pos > self._limit:
                    yield self.count, Oversized(cut - pos)
                else:
                    if not checked:
                        self._check(view[pos:cut])
                    yield self.count, view[pos:cut]
                pos = cut + 1
            parts, size = ([block[pos:]], len(block) - pos) if pos < len(block) else ([], 0)
        if parts or size:
            self.count += 1
            yield self.count, self._joined(parts, size)


def iter_lines(handle: BufferedIOBase, start: int, end: int | None,
               on_bytes: Callable[[int], None] | None = None) -> Iterator[Line | Oversized]:
    """Every line of ``[start, end)`` without its ``\\n``, empty ones included (:class:`Lines`)."""
    number = 0
    lines = Lines(handle, start, end, on_bytes)
    for found, line in lines:
        yield from (b"" for _ in range(found - number - 1))
        number = found
        yield line
    yield from (b"" for _ in range(lines.count - number))


def is_blank(line: Line) -> bool:
    """The line holds only ASCII whitespace (or nothing)."""
    return not line or (line[0] in _ASCII_SPACE and bytes(line).isspace())
