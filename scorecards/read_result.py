"""The ranges' chunks joined in file order into a :class:`ReadResult`, bad lines and duplicates found.

The scan's lines that are not UTF-8 are bad whatever the decoder made of them; of rows with one
identity (run id, split, sample key) the first counts, the others are duplicates. A strict read
fails at its first bad line (:class:`~scorecards.errors.BadLineError`).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from scorecards.errors import BadLine, BadLineError, InputError, quoted

if TYPE_CHECKING:
    from pathlib import Path

    from scorecards.chunks import Chunk, Identity
    from scorecards.scan import FileScan

T = TypeVar("T")


class Indices(Protocol):
    """Row indices, in order: a list, or what a packing transform's ``duplicates`` gives (e.g. a Polars Series)."""

    def __len__(self) -> int: ...

    def __iter__(self) -> Iterator[int]: ...


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
    blake3: str
    kept: Indices | None = None
    lines: array[int] = field(default_factory=lambda: array("q"))


Duplicate = tuple[int, int, str, str, str]
"""(line, line of the first row of that identity, run id, split, sample key) of a duplicate row."""
FindDuplicates = Callable[[list[T], "array[int]", Collection[int]], tuple[list[Duplicate], Indices | None]]
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


def merge_chunks(
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
    kept: Indices | None
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
    return ReadResult(path, items, ids, rows, skipped, workers, scan.sha256, scan.blake3, None if find_duplicates is None else kept, lines)
