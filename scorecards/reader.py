"""Read a scorecards file into typed records, streaming, optionally on several cores.

Strict by default: the first bad line raises :class:`~scorecards.errors.BadLineError`
(``file:line: reason``). With ``skip_bad_lines`` every bad line is skipped and listed. Large files
are cut at line boundaries into byte ranges (:mod:`scorecards.inputs`) decoded by a pool of forked
processes (:mod:`scorecards.chunks`); the result is identical to the serial read
(:mod:`scorecards.read_result`). Meanwhile a thread hashes the file and finds its lines that are
not UTF-8 (:mod:`scorecards.scan`).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Collection
from concurrent.futures import Future, ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, overload

from scorecards.chunks import PACK_ROWS, Chunk, read_range
from scorecards.inputs import default_run_id, input_ranges, process_limit, resolve_input
from scorecards.read_result import ReadResult, merge_chunks
from scorecards.scan import scan_file

if TYPE_CHECKING:
    from array import array

    from scorecards.read_result import Duplicate, Indices
    from scorecards.record import SampleRecord

T = TypeVar("T")
B = TypeVar("B")


class Packing(Protocol[B]):
    """A transform whose rows travel in blocks (e.g. :class:`aggregator.run.sample_values.SampleEvaluator`):
    ``pack`` turns a decoding process's rows into a block, ``load`` turns blocks into one in the
    reading process, and ``duplicates`` finds the duplicate rows among the loaded blocks
    (:data:`~scorecards.read_result.FindDuplicates`). The read's ``items`` are the loaded blocks."""

    def __call__(self, record: SampleRecord, /) -> Any: ...

    def pack(self, rows: list[Any], /) -> Any: ...

    def load(self, blocks: list[Any], /) -> B: ...

    def duplicates(self, blocks: list[B], lines: array[int], excluded: Collection[int], /) -> tuple[list[Duplicate], Indices | None]: ...


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
        return merge_chunks(self.path, chunks, scan, self._skip, self._processes, find_duplicates)


@overload
def start_read(
    path: str | os.PathLike[str], transform: Packing[B], *, skip_bad_lines: bool = ..., workers: int | None = ...,
    on_bytes: Callable[[int], None] | None = ...,
) -> PendingRead[B]: ...


@overload
def start_read(
    path: str | os.PathLike[str], transform: Callable[[SampleRecord], T], *, skip_bad_lines: bool = ...,
    workers: int | None = ..., on_bytes: Callable[[int], None] | None = ...,
) -> PendingRead[T]: ...


def start_read(
    path: str | os.PathLike[str],
    transform: Callable[[SampleRecord], Any],
    *,
    skip_bad_lines: bool = False,
    workers: int | None = None,
    on_bytes: Callable[[int], None] | None = None,
) -> PendingRead[Any]:
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
