"""Decoding one byte range of a scorecards file into a :class:`Chunk` of transformed records.

Strict by default: the first bad line stops the range (``Chunk.error``); with ``skip_bad_lines``
every bad line is listed and skipped. Line numbers are local to the range;
:mod:`scorecards.read_result` joins the ranges' chunks in file order.
"""

from __future__ import annotations

import gc
from array import array
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import msgspec

from scorecards.compressed import corrupt, open_stream
from scorecards.errors import INVALID_UTF8, NESTING_TOO_DEEP
from scorecards.lines import Line, Lines, Oversized, is_blank
from scorecards.record import BadRow, SampleRecord, to_record
from scorecards.schema import ROW_DECODER, Row

T = TypeVar("T")
Identity = tuple[str, str, str, int]
"""(run id, split, sample key, line) of a row: a sample is (run id, split, sample key)."""
PACK_ROWS = 16_384
BATCH_ROWS = 128
"""Records a batching transform is given at a time: one family's rule over many rows in a row keeps its
code and caches warm (a quarter less CPU than row by row, for all families on real-shaped rows)."""
BATCH_BYTES = 8 * 2**20
"""A batch is given sooner when its lines reach this many bytes: a decoded row holds on to its line, so
long lines (traces of megabytes) keep few rows waiting."""


def row_decoder(transform: object) -> msgspec.json.Decoder[Any]:
    """The decoder of the rows a transform reads: its ``row_decoder()`` when it has one
    (a wider typed partial schema, e.g. the metric families'), else the core :class:`Row`'s."""
    wider = getattr(transform, "row_decoder", None)
    return wider() if wider is not None else ROW_DECODER


def decode_row(raw: Line, decoder: msgspec.json.Decoder[Any] = ROW_DECODER) -> Row:
    """Decode one line into the partial :class:`Row`; raise :class:`BadRow` saying why not.

    The bytes the schema skips are not looked at: the UTF-8 rule is checked by
    :func:`~scorecards.scan.scan_file`, beside the decoders.
    """
    try:
        row: Row = decoder.decode(raw)  # a wider decoder's Struct has the fields of Row
        return row
    except msgspec.ValidationError as exc:
        text = str(exc)
        if " - at `" not in text:
            raise BadRow(f"line is not a JSON object ({text})") from None
        raise BadRow(f"wrong type: {text}") from None
    except msgspec.DecodeError as exc:
        raise BadRow(f"not valid JSON: {exc}") from None
    except RecursionError:
        raise BadRow(NESTING_TOO_DEEP) from None
    except UnicodeDecodeError:
        raise BadRow(INVALID_UTF8) from None


@dataclass
class Chunk(Generic[T]):
    """What one byte range yielded; line numbers are local to the range (1-based).

    With a packing transform the rows' identities stay in the blocks and ``row_lines`` holds
    each row's line (no Python object per row outlives its block); else ``ids`` holds them.
    """

    items: list[T] = field(default_factory=list)
    ids: list[Identity] = field(default_factory=list)
    row_lines: array[int] = field(default_factory=lambda: array("q"))
    skipped: list[tuple[int, str]] = field(default_factory=list)
    lines: int = 0
    rows: int = 0
    error: tuple[int, str] | None = None


@contextmanager
def paused_gc() -> Iterator[None]:
    """Disable the cyclic garbage collector inside the block (restored afterwards)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class _Taken(Generic[T]):
    """The rows a range keeps, in line order: packed into blocks of :data:`PACK_ROWS` by a packing
    transform (loaded here when ``load``), else kept as they are with their identities."""

    def __init__(self, chunk: Chunk[T], pack: Callable[[list[T]], Any] | None, load: Callable[[list[Any]], Any] | None) -> None:
        self.chunk, self.pack, self.load = chunk, pack, load
        self.rows: list[T] = chunk.items if pack is None else []

    def add(self, record: SampleRecord, value: T) -> None:
        self.rows.append(value)
        if self.pack is None:
            self.chunk.ids.append((record.run_id, record.split, record.sample_key, record.line))
            return
        self.chunk.row_lines.append(record.line)
        if len(self.rows) == PACK_ROWS:
            self.close()

    def close(self) -> None:
        if self.pack is not None and self.rows:
            block = self.pack(self.rows)
            self.chunk.items.append(block if self.load is None else self.load([block]))
            self.rows = []


@paused_gc()
def read_range(
    path: str,
    start: int,
    end: int | None,
    run_id: str,
    skip_bad_lines: bool,
    transform: Callable[[SampleRecord], T],
    on_bytes: Callable[[int], None] | None = None,
    here: bool = False,
) -> Chunk[T]:
    """Decode the lines of ``[start, end)`` (``end`` None: a compressed file's whole stream);
    stop at the first bad one unless skipping. A line over :data:`~scorecards.lines.MAX_LINE` is a
    bad line; so is, in a compressed stream, a line that is not UTF-8 (checked here as the stream
    passes: the stream is decompressed once; :mod:`scorecards.scan` checks plain files).

    The cyclic garbage collector is paused meanwhile: decoded rows hold no cycles, and
    its passes over the many small objects cost a fifth of the time. ``here``: this is
    the process that keeps the result, so each packed block is loaded at once. A transform with a
    ``batch`` method (records to values, in order; a bad line's value is the :class:`BadRow` or
    ``UnicodeDecodeError`` it raised) is given the records of :data:`BATCH_ROWS` lines at a time: the
    rows, the bad lines and where a strict read stops are those of calling it line by line.
    """
    chunk: Chunk[T] = Chunk()
    decoder = row_decoder(transform)
    load = getattr(transform, "load", None) if here else None
    taken = _Taken(chunk, getattr(transform, "pack", None), load)
    batch = getattr(transform, "batch", None)
    pending: list[tuple[SampleRecord, int, int]] = []  # records waiting for the batch; the counts at their line
    held = 0  # bytes of the pending records' lines (a decoded row keeps its line)

    def bad(line: int, exc: Exception) -> bool:
        """Note a bad line; False when the read stops there."""
        reason = INVALID_UTF8 if isinstance(exc, UnicodeDecodeError) else str(exc)
        if not skip_bad_lines:
            chunk.error = (line, reason)
            return False
        chunk.skipped.append((line, reason))
        return True

    def flush() -> bool:
        """Transform the pending records; False when one of them is a bad line of a strict read."""
        nonlocal held
        if not pending or batch is None:
            return True
        values = batch([record for record, _, _ in pending])
        for (record, lines_seen, rows_seen), value in zip(pending, values):
            if isinstance(value, (BadRow, UnicodeDecodeError)):
                if not bad(record.line, value):
                    chunk.lines, chunk.rows = lines_seen, rows_seen
                    return False
                continue
            taken.add(record, value)
        pending.clear()
        held = 0
        return True

    try:
        with open_stream(path, on_bytes) as (handle, compressed):
            lines = Lines(handle, start, end, None if compressed else on_bytes, utf8=compressed)
            for local, raw in lines:
                chunk.lines = lines.count
                if not isinstance(raw, Oversized) and is_blank(raw):
                    continue
                chunk.rows += 1
                try:
                    if isinstance(raw, Oversized):
                        raise BadRow(raw.reason())
                    if local in lines.invalid:
                        raise BadRow(lines.invalid[local])
                    record = to_record(decode_row(raw, decoder), local, run_id)
                    if batch is None:
                        taken.add(record, transform(record))
                        continue
                except (BadRow, UnicodeDecodeError) as exc:  # a family decodes parts of the line lazily
                    if not flush() or not bad(local, exc):
                        break
                    continue
                pending.append((record, lines.count, chunk.rows))
                held += len(raw)
                if (len(pending) == BATCH_ROWS or held >= BATCH_BYTES) and not flush():
                    break
            else:
                if flush():
                    chunk.lines = lines.count
    except Exception as exc:
        damaged = corrupt(path, exc)
        if damaged is None:
            raise
        raise damaged from None
    taken.close()
    return chunk
