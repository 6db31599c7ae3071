"""One pass over the whole input beside the decoders: its SHA-256 and BLAKE3 digests and its lines that are not UTF-8.

The decoders skip most of each line without looking at its bytes, so the UTF-8 rule of
the contract (the whole line, also the parts no metric reads) is checked here, on the
blocks the hash reads anyway, with the SIMD UTF-8 validator of Polars (~15 GB/s,
against ~1.7 GB/s for decoding each line into a ``str``). A newline is ASCII and never
part of a multi-byte character, so the file is UTF-8 exactly when every line is. Only
when it is not are the lines decoded one by one, to name each bad line as the contract
wants: ``invalid UTF-8 at byte N``, N counted from the start of the line (after a
byte-order mark on line 1). A compressed file is only hashed here (its compressed bytes): its
decoder checks the UTF-8 rule as the decompressed stream passes (:class:`~scorecards.lines.Lines`),
so it is decompressed once.

Two digests of the same bytes: SHA-256 is the input's provenance in ``run_metadata.json`` (what
``sha256sum`` prints); BLAKE3 (about 3.5× less CPU a byte here: 19.6 against 68.6 ms for 143 MB) is
what ``aggregate compare`` computes again to prove a run's saved table was made from these bytes
(:mod:`aggregator.compare.reuse`), where hashing every run's input is most of reading it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field

from scorecards.compressed import compression_of
from scorecards.lines import BLOCK, Lines, Oversized
from scorecards.utf8 import is_utf8 as is_utf8  # the checks live in scorecards.utf8 (shared with the line reader)
from scorecards.utf8 import utf8_error as utf8_error


@dataclass
class FileScan:
    """SHA-256 and BLAKE3 of the file's bytes and its invalid lines, ``{line number: reason}`` (1-based)."""

    sha256: str
    blake3: str
    invalid: dict[int, str] = field(default_factory=dict)


def whole_chars(block: bytes) -> int:
    """Length of the longest prefix of ``block`` that ends at a character boundary.

    Only a multi-byte character cut by the block's end is left out (at most 3 bytes);
    stray continuation bytes stay in, for the validator to reject.
    """
    end = len(block)
    for start in range(end - 1, max(end - 4, -1), -1):
        byte = block[start]
        if byte < 0x80:
            return end
        if byte >= 0xC0:
            needed = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return start if end - start < needed else end
    return end


def invalid_lines(path: str, *, first_only: bool) -> dict[int, str]:
    """Every line of the plain file ``path`` that is not UTF-8 (or the first), read line by line (a line
    over :data:`~scorecards.lines.MAX_LINE` is bad anyway, and not read)."""
    invalid: dict[int, str] = {}
    with open(path, "rb") as handle:
        for number, line in Lines(handle, 0, None):
            if isinstance(line, Oversized):
                continue
            reason = utf8_error(line)
            if reason is not None:
                invalid[number] = reason
                if first_only:
                    break
    return invalid


def char_blocks(fd: int, size: int) -> Iterator[bytes]:
    """The first ``size`` bytes of ``fd`` in blocks of about :data:`BLOCK` bytes, each cut
    before a multi-byte character that would straddle its end (read as is, no copying).

    Every cut is a character boundary of UTF-8 data, and UTF-8 pieces concatenate to UTF-8:
    the file is UTF-8 exactly when every block is.
    """
    step = max(BLOCK, 4)
    offset = 0
    while offset < size:
        end = min(offset + step, size)
        if end < size:
            window = os.pread(fd, 4, end - 4)
            end -= len(window) - whole_chars(window)
        block = os.pread(fd, end - offset, offset)
        if not block:
            return
        yield block
        offset += len(block)


def scan_file(path: str, *, first_only: bool = False) -> FileScan:
    """Hash ``path`` and find its lines that are not UTF-8 (only the first with ``first_only``).

    A compressed file is hashed as it is on disk; its decoder checks its lines (module doc).
    """
    import hashlib  # here, in the reader's thread: not on the path to forking the decoders

    from blake3 import blake3

    digest, fast = hashlib.sha256(), blake3(max_threads=1)
    compressed = compression_of(path) is not None
    valid = True
    with open(path, "rb") as handle:
        fd = handle.fileno()
        blocks = iter(lambda: handle.read(BLOCK), b"") if compressed else char_blocks(fd, os.fstat(fd).st_size)
        for block in blocks:
            digest.update(block)
            fast.update(block)
            valid = valid and (compressed or is_utf8(block))
    invalid = {} if valid else invalid_lines(path, first_only=first_only)
    return FileScan(digest.hexdigest(), fast.hexdigest(), invalid)
