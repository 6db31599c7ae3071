"""Read a scorecards file into typed records, streaming, optionally on several cores.

Strict by default: the first bad line raises :class:`BadLineError` (``file:line: reason``).
With ``skip_bad_lines`` every bad line is skipped and listed. Large files are cut at
line boundaries into byte ranges decoded by a pool of forked processes; the result
is identical to the serial read. Meanwhile a thread hashes the file and finds its
lines that are not UTF-8 (:mod:`scorecards.scan`).
"""

from __future__ import annotations

import gc
import multiprocessing
import os
from array import array
from collections.abc import Callable, Collection, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Generic, TypeVar

import msgspec

from scorecards.compressed import compression_of, corrupt, open_stream
from scorecards.errors import INVALID_UTF8, NESTING_TOO_DEEP, BadLine, BadLineError, InputError, quoted
from scorecards.lines import Line, is_blank, iter_lines, most_ranges, split_ranges
from scorecards.record import BadRow, SampleRecord, to_record
from scorecards.scan import FileScan, scan_file
from scorecards.schema import ROW_DECODER, Row

T = TypeVar("T")
Identity = tuple[str, str, str, int]
"""(run id, split, sample key, line) of a row: a sample is (run id, split, sample key)."""

SCORECARDS_NAME = "scorecards.jsonl"
SCORECARDS_NAMES = (SCORECARDS_NAME, f"{SCORECARDS_NAME}.gz", f"{SCORECARDS_NAME}.zst")
"""What a run directory's scorecards file may be called, in order of preference."""
MIN_PART_BYTES = 8 << 20
MAX_PART_BYTES = 4 << 20
MAX_DEFAULT_WORKERS = 4
PACK_ROWS = 16_384


def process_limit(workers: int | None) -> int:
    """How many processes to use: ``workers`` if given, else the core count, at most
    :data:`MAX_DEFAULT_WORKERS`."""
    return max(1, workers if workers is not None else min(os.cpu_count() or 1, MAX_DEFAULT_WORKERS))


def range_count(size: int, processes: int) -> int:
    """How many ranges a file of ``size`` bytes is cut into for ``processes`` processes: none
    (one range) when two would be under :data:`MIN_PART_BYTES`, else at least one per process
    and as many as keep each under about :data:`MAX_PART_BYTES`."""
    parts = most_ranges(size, processes, MIN_PART_BYTES)
    return parts if parts == 1 else max(parts, -(-size // MAX_PART_BYTES))


def decoded_serially(path: Path) -> bool:
    """An input too small for two ranges of :data:`MIN_PART_BYTES`, or compressed, is decoded by one process."""
    return most_ranges(path.stat().st_size, 2, MIN_PART_BYTES) == 1 or compression_of(str(path)) is not None


def input_ranges(path: Path, workers: int | None) -> list[tuple[int, int | None]]:
    """The byte ranges the decoders take: a plain file cut at line boundaries, a compressed one
    whole (``(0, None)``: to the end of its decompressed stream)."""
    if compression_of(str(path)) is not None:
        return [(0, None)]
    parts = range_count(path.stat().st_size, process_limit(workers))
    return list(split_ranges(str(path), parts, min(MIN_PART_BYTES, MAX_PART_BYTES // 2)))


def resolve_input(path: str | os.PathLike[str]) -> Path:
    """A run directory -> its ``scorecards.jsonl`` (or ``.jsonl.gz``, ``.jsonl.zst``); a file -> itself.
    Raises :class:`InputError`."""
    given = Path(path)
    if given.is_dir():
        candidate = next((given / name for name in SCORECARDS_NAMES if (given / name).exists()), None)
        if candidate is None:
            hint = "give the file's path if named otherwise"
            raise InputError(f"{given}: run directory has no {SCORECARDS_NAME} ({hint})")
        given = candidate
    if not given.exists():
        raise InputError(f"{given}: no such file or run directory (check the path)")
    if given.is_dir():
        raise InputError(f"{given}: is a directory, expected a scorecards .jsonl file")
    if not given.is_file():  # read more than once (hash, ranges): a pipe would hang
        raise InputError(f"{given}: not a regular file (a pipe or device); save the scorecards to a file first")
    if not os.access(given, os.R_OK):
        raise InputError(f"{given}: file is not readable (check its permissions)")
    return given


def default_run_id(scorecards: Path) -> str:
    """The run id of rows that carry none: the name of the run directory."""
    return scorecards.resolve().parent.name


def row_decoder(transform: object) -> msgspec.json.Decoder:
    """The decoder of the rows a transform reads: its ``row_decoder()`` when it has one
    (a wider typed partial schema, e.g. the metric families'), else the core :class:`Row`'s."""
    wider = getattr(transform, "row_decoder", None)
    return wider() if wider is not None else ROW_DECODER


def decode_row(raw: Line, decoder: msgspec.json.Decoder = ROW_DECODER) -> Row:
    """Decode one line into the partial :class:`Row`; raise :class:`BadRow` saying why not.

    The bytes the schema skips are not looked at: the UTF-8 rule is checked by
    :func:`~scorecards.scan.scan_file`, beside the decoders.
    """
    try:
        return decoder.decode(raw)  # type: ignore[no-any-return]
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
    stop at the first bad one unless skipping.

    The cyclic garbage collector is paused meanwhile: decoded rows hold no cycles, and
    its passes over the many small objects cost a fifth of the time. ``here``: this is
    the process that keeps the result, so each packed block is loaded at once.
    """
    chunk: Chunk[T] = Chunk()
    decoder = row_decoder(transform)
    pack = getattr(transform, "pack", None)
    load = getattr(transform, "load", None) if here else None
    rows: list[object] = chunk.items if pack is None else []  # type: ignore[assignment]
    try:
        with open_stream(path, on_bytes) as (handle, compressed):
            lines = iter_lines(handle, start, end, None if compressed else on_bytes)
            for local, raw in enumerate(lines, 1):
                chunk.lines = local
                if is_blank(raw):
                    continue
                chunk.rows += 1
                try:
                    record = to_record(decode_row(raw, decoder), local, run_id)
                except BadRow as exc:
                    if not skip_bad_lines:
                        chunk.error = (local, str(exc))
                        break
                    chunk.skipped.append((local, str(exc)))
                    continue
                rows.append(transform(record))
                if pack is None:
                    chunk.ids.append((record.run_id, record.split, record.sample_key, local))
                else:
                    chunk.row_lines.append(local)
                if pack is not None and len(rows) == PACK_ROWS:
                    chunk.items.append(pack(rows) if load is None else load([pack(rows)]))
                    rows = []
    except Exception as exc:
        damaged = corrupt(path, exc)
        if damaged is None:
            raise
        raise damaged from None
    if pack is not None and rows:
        chunk.items.append(pack(rows) if load is None else load([pack(rows)]))
    return chunk


@dataclass
class ReadResult(Generic[T]):
    """Records (as transformed) in file order, with their identity and global line number.

    With a packing transform, ``items`` are the loaded blocks of every decoded row, ``ids`` is
    empty and ``lines`` holds the line of each of those rows; ``kept`` then lists the indices
    of the rows that count (not a duplicate, not a line that is not UTF-8), None when all do.
    Otherwise ``items`` and ``ids`` hold only the rows that count.
    """

    path: Path
    items: list[T]
    ids: list[Identity]
    rows_read: int
    skipped: list[BadLine]
    workers: int
    sha256: str
    kept: Sequence[int] | None = None
    lines: array[int] = field(default_factory=lambda: array("q"))


Duplicate = tuple[int, int, str, str, str]
"""(line, line of the first row of that identity, run id, split, sample key) of a duplicate row."""
FindDuplicates = Callable[[list[T], "array[int]", Collection[int]], tuple[list[Duplicate], Sequence[int] | None]]
"""A packing transform's ``duplicates(blocks, lines, excluded)``: the duplicate rows of the loaded
blocks (rows on ``excluded`` lines left out), in line order, and the indices of the rows that
count (None: all)."""


def _duplicates(ids: list[Identity], excluded: Collection[int]) -> tuple[list[Duplicate], list[int] | None]:
    """:data:`FindDuplicates` of identities in file order."""
    seen: dict[tuple[str, str], dict[str, int]] = {}  # by (run, split), then key: no tuple per row
    found: list[Duplicate] = []
    keep: list[int] = []
    for index, (run, split, key, line) in enumerate(ids):
        if line in excluded:
            continue
        first = seen.setdefault((run, split), {}).setdefault(key, line)
        if first == line:
            keep.append(index)
        else:
            found.append((line, first, run, split, key))
    return found, None if len(keep) == len(ids) else keep


def _duplicate(path: Path, line: int, first: int, run: str, split: str, key: str) -> BadLine:
    where = f" in split {quoted(split)}" if split else ""
    return BadLine(str(path), line, f"duplicate sample key {quoted(key)}{where} of run {quoted(run)} (first at line {first})")


def _merge(
    path: Path,
    chunks: list[Chunk[T]],
    scan: FileScan,
    skip_bad_lines: bool,
    workers: int,
    find_duplicates: FindDuplicates[T] | None = None,
) -> ReadResult[T]:
    """Join the ranges' results in file order; the scan's non-UTF-8 lines are bad whatever
    the decoder made of them (the UTF-8 rule comes first). Of rows with one identity the
    first counts, the others are duplicates (found by the packing transform's
    ``find_duplicates`` in its blocks, else here). A strict run fails at its first bad line.
    """
    items: list[T] = []
    ids: list[Identity] = []
    lines = array("q")
    skipped: list[BadLine] = [BadLine(str(path), line, reason) for line, reason in scan.invalid.items()]
    errors: list[BadLine] = []
    if scan.invalid and not skip_bad_lines:
        first_invalid = min(scan.invalid)
        errors.append(BadLine(str(path), first_invalid, scan.invalid[first_invalid]))  # first: wins a tie
    offset = rows = 0
    for chunk in chunks:
        items.extend(chunk.items)
        skipped.extend(
            BadLine(str(path), offset + line, reason) for line, reason in chunk.skipped if offset + line not in scan.invalid
        )
        if chunk.error is not None:
            errors.append(BadLine(str(path), offset + chunk.error[0], chunk.error[1]))
        ids.extend((run, split, key, offset + line) for run, split, key, line in chunk.ids)
        lines.extend(offset + line for line in chunk.row_lines)
        chunk.items, chunk.ids, chunk.row_lines = [], [], array("q")
        offset += chunk.lines
        rows += chunk.rows
    if find_duplicates is None:
        found, kept = _duplicates(ids, scan.invalid)
    else:
        found, kept = find_duplicates(items, lines, scan.invalid)
    duplicates = [_duplicate(path, *duplicate) for duplicate in found]
    (skipped if skip_bad_lines else errors).extend(duplicates)
    if errors:
        raise BadLineError(min(errors, key=lambda bad: bad.line))
    if kept is not None and find_duplicates is None:
        items = [items[i] for i in kept]
        ids = [ids[i] for i in kept]
    skipped.sort(key=lambda bad: bad.line)
    if (len(kept) if kept is not None else len(ids) + len(lines)) == 0:
        detail = f" ({len(skipped)} bad lines skipped)" if skipped else ""
        raise InputError(f"{path}: no rows to aggregate{detail}")
    return ReadResult(path, items, ids, rows, skipped, workers, scan.sha256, None if find_duplicates is None else kept, lines)


class PendingRead(Generic[T]):
    """A read in progress: ``result()`` waits for it. Work done in between overlaps the decode."""

    def __init__(
        self,
        path: Path,
        transform: Callable[[SampleRecord], T],
        skip_bad_lines: bool,
        workers: int | None,
        on_bytes: Callable[[int], None] | None = None,
    ) -> None:
        self.path = path
        self._skip = skip_bad_lines
        self._transform = transform
        self._on_bytes = on_bytes
        self._run_id = default_run_id(path)
        self._ranges = input_ranges(path, workers)
        self._processes = min(process_limit(workers), len(self._ranges))
        self._pool: ProcessPoolExecutor | None = None
        self._futures: list[Future[Chunk[T]]] = []
        if len(self._ranges) > 1:
            context = multiprocessing.get_context("fork") if hasattr(os, "fork") else None
            self._pool = ProcessPoolExecutor(self._processes, mp_context=context)
            self._futures = [
                self._pool.submit(read_range, str(path), a, b, self._run_id, skip_bad_lines, transform, on_bytes)
                for a, b in self._ranges
            ]
        self._scanner = ThreadPoolExecutor(1)  # after the forks: no thread may run while forking
        self._scan = self._scanner.submit(scan_file, str(path), first_only=not skip_bad_lines)

    def _loaded(self, futures: list[Future[Chunk[T]]]) -> list[Chunk[T]]:
        """The ranges' chunks in file order (``futures`` is emptied), their packed blocks loaded as
        they come: those of consecutive ranges together, until they hold :data:`PACK_ROWS` rows (a
        frame of a few rows costs as much as a long one), each group freed once loaded."""
        load = getattr(self._transform, "load", None)
        chunks: list[Chunk[T]] = []
        waiting: list[Any] = []
        rows = 0
        while futures:
            chunk = futures.pop(0).result()  # a done future would keep its chunk
            chunks.append(chunk)
            if load is None:
                continue
            waiting.extend(chunk.items)
            rows += len(chunk.row_lines)
            chunk.items = []
            if waiting and (rows >= PACK_ROWS or not futures):
                chunk.items = [load(waiting)]
                waiting, rows = [], 0
        return chunks

    def result(self) -> ReadResult[T]:
        try:
            if self._pool is None:
                (start, end), = self._ranges
                chunks = [read_range(
                    str(self.path), start, end, self._run_id, self._skip, self._transform, self._on_bytes, here=True
                )]
            else:
                try:
                    futures, self._futures = self._futures, []
                    chunks = self._loaded(futures)
                finally:
                    self._pool.shutdown(cancel_futures=True)
            scan = self._scan.result()
        finally:
            self._scanner.shutdown(cancel_futures=True)
        find_duplicates = getattr(self._transform, "duplicates", None)
        return _merge(self.path, chunks, scan, self._skip, self._processes, find_duplicates)


def start_read(
    path: str | os.PathLike[str],
    transform: Callable[[SampleRecord], T],
    *,
    skip_bad_lines: bool = False,
    workers: int | None = None,
    on_bytes: Callable[[int], None] | None = None,
) -> PendingRead[T]:
    """Begin reading ``path`` (a run directory or a scorecards file); see :class:`PendingRead`.

    ``on_bytes`` is called with the size of each block read, in whichever process reads
    it, so it must be picklable (e.g. a module-level function).
    """
    return PendingRead(resolve_input(path), transform, skip_bad_lines, workers, on_bytes)


def _identity(record: SampleRecord) -> SampleRecord:
    return replace(record, row=None)


def read_scorecards(
    path: str | os.PathLike[str],
    *,
    skip_bad_lines: bool = False,
    workers: int | None = None,
) -> ReadResult[SampleRecord]:
    """Read every row of ``path`` into :class:`SampleRecord` objects, in file order.

    Each record's ``line`` is its line in the file (a worker only knows its line within its range).
    """
    read = start_read(path, _identity, skip_bad_lines=skip_bad_lines, workers=workers).result()
    read.items = [r if r.line == line else replace(r, line=line) for r, (_, _, _, line) in zip(read.items, read.ids)]
    return read
