"""Line-level access to a JSONL file: byte ranges split at line boundaries, streamed in blocks."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from io import BufferedIOBase

BLOCK = 1 << 22
BOM = b"\xef\xbb\xbf"
_ASCII_SPACE = frozenset(b" \t\n\r\x0b\x0c")

Line = bytes | memoryview


def most_ranges(size: int, parts: int, min_part: int) -> int:
    """How many ranges :func:`split_ranges` may cut ``size`` bytes into: at most ``parts``,
    each of at least ``min_part`` bytes (at least one)."""
    return max(1, min(parts, size // max(min_part, 1)))


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
            handle.seek(target)
            handle.readline()
            cut = handle.tell()
            if cut >= size:
                break
            if cut > bounds[-1]:
                bounds.append(cut)
    bounds.append(size)
    return [(a, b) for a, b in zip(bounds, bounds[1:]) if b > a] or [(0, size)]


def iter_lines(
    handle: BufferedIOBase, start: int, end: int | None, on_bytes: Callable[[int], None] | None = None
) -> Iterator[Line]:
    """Yield every line in ``[start, end)`` without its ``\\n``, reading in blocks.

    Lines inside a block are zero-copy memoryviews of it, valid until the next line is
    asked for; a line that spans blocks is joined into bytes. The byte-order mark at
    offset 0 is removed. Memory holds one block plus the longest line. ``on_bytes``
    (e.g. a progress bar) is called with each block's size. ``end`` None: to the end of
    the stream (which need not be seekable then, e.g. decompressed data).
    """
    if start:
        handle.seek(start)
    remaining = end - start if end is not None else -1
    tail = b""
    first = start == 0
    while remaining:
        block = handle.read(min(BLOCK, remaining) if remaining > 0 else BLOCK)
        if not block:
            break
        remaining = max(remaining - len(block), 0) if remaining > 0 else -1
        if on_bytes is not None:
            on_bytes(len(block))
        if first and block.startswith(BOM):
            block = block[len(BOM):]
        first = False
        cut = block.find(b"\n")
        if cut < 0:
            tail += block
            continue
        view = memoryview(block)
        yield tail + block[:cut] if tail else view[:cut]
        pos = cut + 1
        while (cut := block.find(b"\n", pos)) >= 0:
            yield view[pos:cut]
            pos = cut + 1
        tail = block[pos:]
    if tail:
        yield tail


def is_blank(line: Line) -> bool:
    """The line holds only ASCII whitespace (or nothing)."""
    return not line or (line[0] in _ASCII_SPACE and bytes(line).isspace())
