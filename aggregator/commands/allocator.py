"""How soon the allocators (Polars' jemalloc, glibc's malloc) give freed memory back to the system.

jemalloc reads :data:`SETTING` once, when Polars is loaded, and the command loads Polars only
after its decoders fork (:mod:`aggregator.deferred_import`), so the command chooses first:

- by default (:func:`default`, every command) freed memory goes back at once instead of after
  jemalloc's 10 s: building a large per-sample table frees its blocks while it fills the table. At
  1,000,000 tiny rows the peak is 1,491 MB with it, 1,555 MB with 100 ms (limit 1,536; measured
  2026-11-28, benchmarks/RESULTS.md);
- ``aggregate RUN...`` whose inputs are all estimated under :data:`LARGE_ROWS` rows
  (:func:`for_runs`) keeps freed pages :data:`SMALL_DECAY_MS` for reuse: fewer page faults, about
  0.1 CPU-s and 0.1 s of wall less at 5,000 real-shaped rows (143 MB), and 380 against 331 MB at
  50,000 rows (measured the same day);
- ``aggregate compare RUN...``, which holds every run at once, does so when its inputs *together* are
  estimated under :data:`LARGE_ROWS` rows (``for_runs(runs, together=True)``). Comparing the 13 vendored
  runs, freeing at once sometimes cost 550,000 page faults and 4.4–4.7 s against 160,000 and 3.1 s with
  the pages kept (a slow run made 64,694 ``madvise`` calls, a fast one 5,438: jemalloc's purges depend
  on timing); at other times both took 2.6–2.9 s. 1,000 tiny runs with ``--each-run``: 88 against 84 s,
  peak 1,771 against 1,786 MB (measured 2026-11-28).

With the pages kept, ``aggregate RUN...`` also has glibc's ``malloc`` (the decoders' read blocks,
NumPy's arrays, Python's large objects) keep its freed blocks (:func:`keep_glibc_blocks`): blocks up to
:data:`GLIBC_MMAP_THRESHOLD` come from the heap, which keeps up to :data:`GLIBC_TRIM_THRESHOLD` free at its
top, instead of a fresh mapping for every block over 32 MiB or over the last freed size. A core run of
5,000 real-shaped rows: 7,700 fewer page faults, about 0.025 CPU-s and 0.02 s less (12 interleaved
runs with and without); 50,000 rows peak at 383 against 371 MB. Not for a comparison: ``compare
--each-run`` of 1,000 tiny runs peaked at 1,926 MB with it, 1,775 without (measured 2026-11-28).

A value the user set in the environment wins over all of them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

SETTING = "_RJEM_MALLOC_CONF"
RETURN_FREED_MEMORY = "dirty_decay_ms:0,muzzy_decay_ms:0"
SMALL_DECAY_MS = 100
KEEP_FREED_PAGES = f"dirty_decay_ms:{SMALL_DECAY_MS},muzzy_decay_ms:{SMALL_DECAY_MS}"
LARGE_ROWS = 200_000
GLIBC_MMAP_THRESHOLD = 64 << 20
GLIBC_TRIM_THRESHOLD = 256 << 20
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
"""``mallopt`` parameters (glibc's ``malloc.h``)."""
_GLIBC_VARIABLES = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")
_GLIBC_TUNABLES = ("glibc.malloc.mmap_threshold", "glibc.malloc.trim_threshold")
SAMPLE_BYTES = 1 << 20
"""The start of an input read to estimate its rows: its size times the newlines in the sample over the sample's length."""
_chosen_here: list[bool] = [False]


def default() -> None:
    """Freed memory back at once, unless the user set :data:`SETTING`."""
    if SETTING not in os.environ:
        os.environ[SETTING] = RETURN_FREED_MEMORY
        _chosen_here[0] = True


def for_runs(runs: Iterable[Path], *, together: bool = False) -> None:
    """Keep freed pages briefly when every run's input is estimated under :data:`LARGE_ROWS` rows (``together``:
    all of them added up, for a command that holds them at once); an input that cannot be estimated
    (compressed, unreadable: its error comes later) counts as large."""
    if not _chosen_here[0]:
        return
    counted = 0.0
    for run in runs:  # stops at the first input that makes the runs large: the others are not read
        rows = estimated_rows(run)
        counted = counted + rows if together else max(counted, rows)
        if counted >= LARGE_ROWS:
            return
    os.environ[SETTING] = KEEP_FREED_PAGES
    if not together:
        keep_glibc_blocks()


def keep_glibc_blocks() -> bool:
    """Set glibc's ``malloc`` to keep freed blocks (module doc) in this process and the ones it forks;
    False where the C library is not glibc, or where the user set either threshold
    (``MALLOC_MMAP_THRESHOLD_``, ``MALLOC_TRIM_THRESHOLD_`` or in ``GLIBC_TUNABLES``)."""
    tunables = os.environ.get("GLIBC_TUNABLES", "")
    if any(name in os.environ for name in _GLIBC_VARIABLES) or any(name in tunables for name in _GLIBC_TUNABLES):
        return False
    try:
        libc = os.confstr("CS_GNU_LIBC_VERSION") or ""
    except (ValueError, OSError, AttributeError):
        return False
    if not libc.startswith("glibc"):
        return False
    import ctypes

    mallopt = ctypes.CDLL(None).mallopt
    return bool(mallopt(_M_MMAP_THRESHOLD, GLIBC_MMAP_THRESHOLD) and mallopt(_M_TRIM_THRESHOLD, GLIBC_TRIM_THRESHOLD))


def estimated_rows(run: Path) -> float:
    """The rows of a run's plain JSON Lines input, estimated from its first :data:`SAMPLE_BYTES`; infinite
    when it is compressed or cannot be read."""
    from scorecards.compressed import compression_of
    from scorecards.errors import InputError
    from scorecards.inputs import resolve_input

    try:
        path = resolve_input(run)
        if compression_of(str(path)) is not None:
            return float("inf")
        size = path.stat().st_size
        with path.open("rb") as handle:
            sample = handle.read(SAMPLE_BYTES)
    except (OSError, InputError):
        return float("inf")
    if not sample:
        return 0.0
    return max(1, sample.count(b"\n")) * size / len(sample)
