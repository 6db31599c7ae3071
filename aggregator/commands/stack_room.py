"""Room on the interpreter's frame stack for a whole command, so that its calls never map memory.

CPython (3.11 on) keeps a thread's Python frames in chunks of 16 KiB. A call that does not fit in
the current chunk maps a new one (``mmap``), and the chunk is unmapped (``munmap``) as soon as that
call returns; a loop whose calls cross a chunk's end maps, faults in and unmaps a chunk at every call.
``aggregate RUN --families core`` on 5,000 rows did so 3,600 times in its main thread (counted with
``strace``): 3,500 of its 36,500 page faults, about 0.02 CPU-s (medians of 12 interleaved runs, 2026-11-28).

:func:`with_room` calls a function from a frame made :data:`ROOM` bytes large. That frame needs a
chunk of its own, twice its size (chunks are powers of two); the frames called under it fill the
other half, and the chunk stays mapped until the call returns. Its memory is only reserved: pages are
touched as calls reach them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

ROOM = 1 << 20
"""Bytes of the big frame, and so about the frame stack left to the calls under it: thousands of
ordinary frames, beyond the recursion limit."""
_WORD = 8


def _call(function: Callable[[], T]) -> T:
    return function()


_call.__code__ = _call.__code__.replace(co_stacksize=ROOM // _WORD)


def with_room(function: Callable[[], T]) -> T:
    """``function()``, called under a frame that reserves :data:`ROOM` bytes of frame stack (module doc)."""
    return _call(function)
