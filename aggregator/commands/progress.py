"""A progress bar on stderr while a large input is read (rich), counted across the reader's processes.

The reader calls :func:`add_bytes` once per block it reads, in whichever process reads
it. The count lives in a :class:`multiprocessing.Value` created before the reader forks
its workers, so they inherit it; a thread in the main process moves the bar. Where
workers are spawned instead of forked, they do not see the counter and the bar jumps
to the end when reading finishes.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from multiprocessing.sharedctypes import Synchronized

MIN_BYTES = 32 << 20
REFRESH_SECONDS = 0.1

_done: Synchronized[int] | None = None


def add_bytes(count: int) -> None:
    """Count ``count`` more input bytes read (no-op when no bar is showing)."""
    done = _done
    if done is not None:
        with done.get_lock():
            done.value += count


@contextmanager
def reading(
    path: str | os.PathLike[str], *, quiet: bool, stream: TextIO | None = None
) -> Iterator[Callable[[int], None] | None]:
    """While inside, show a transient bar of the input's bytes read; yield the reader's callback or None.

    The bar shows only when ``stream`` (stderr) is a terminal, without ``quiet``, for an
    input of at least :data:`MIN_BYTES`. Rich is imported only then.
    """
    global _done
    stream = sys.stderr if stream is None else stream
    size = _size(path) if not quiet and stream.isatty() else 0
    if size < MIN_BYTES:
        yield None
        return
    from rich.console import Console
    from rich.markup import escape
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn, TransferSpeedColumn

    from aggregator.text import printable

    _done = multiprocessing.Value("q", 0)
    progress = Progress(
        TextColumn("reading {task.description}"),
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        TimeRemainingColumn(),
        console=Console(file=stream),
        transient=True,
    )
    task = progress.add_task(escape(printable(os.path.basename(path))), total=size)  # a name, never markup
    stop = threading.Event()
    done = _done

    def follow() -> None:
        while not stop.wait(REFRESH_SECONDS):
            progress.update(task, completed=done.value)

    follower = threading.Thread(target=follow, name="progress", daemon=True)
    try:
        with progress:
            follower.start()
            try:
                yield add_bytes
            finally:
                stop.set()
                follower.join()
                progress.update(task, completed=done.value)
    finally:
        _done = None


def _size(path: str | os.PathLike[str]) -> int:
    """Bytes of the scorecards file behind ``path``; 0 when it cannot be read (the reader reports why)."""
    from scorecards.errors import InputError
    from scorecards.inputs import resolve_input

    try:
        return resolve_input(path).stat().st_size
    except (InputError, OSError):
        return 0
