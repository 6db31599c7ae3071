"""Where a run's scorecards file is, and how it is cut into byte ranges for the decoders.

A run directory holds ``scorecards.jsonl`` (or ``.jsonl.gz``, ``.jsonl.zst``); a large plain file is
cut at line boundaries into ranges decoded by a pool of processes (:mod:`scorecards.reader`), a
compressed one is decoded whole by one process.
"""

from __future__ import annotations

import os
from pathlib import Path

from scorecards.compressed import compression_of
from scorecards.errors import InputError
from scorecards.lines import most_ranges, split_ranges

SCORECARDS_NAME = "scorecards.jsonl"
SCORECARDS_NAMES = (SCORECARDS_NAME, f"{SCORECARDS_NAME}.gz", f"{SCORECARDS_NAME}.zst")
"""What a run directory's scorecards file may be called, in order of preference."""
MIN_PART_BYTES = 8 << 20
MAX_PART_BYTES = 4 << 20
MAX_DEFAULT_WORKERS = 4


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
