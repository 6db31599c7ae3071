"""The command's frame-stack room: the function runs, its result and errors come through, and calls under it
that cross CPython's 16 KiB frame chunks no longer map and unmap memory."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from aggregator.commands.stack_room import ROOM, with_room


def test_result_and_errors_come_through() -> None:
    assert with_room(lambda: 42) == 42
    empty: dict[str, int] = {}
    with pytest.raises(KeyError, match="boom"):
        with_room(lambda: empty["boom"])


def test_deep_recursion_under_it_still_works() -> None:
    def depth(n: int) -> int:
        return 0 if n == 0 else 1 + depth(n - 1)

    assert with_room(lambda: depth(800)) == 800
    assert ROOM >= 1 << 20


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the process's page faults from getrusage")
def test_calls_across_a_chunk_end_fault_no_pages() -> None:
    """A call at every depth from 1 to 200 frames, 300 times over: somewhere it crosses a chunk's end.
    Without the room each crossing maps a fresh chunk and faults its first page in."""
    script = textwrap.dedent("""
        import resource, sys
        from aggregator.commands.stack_room import with_room

        def leaf():
            return None

        def down(n):
            if n:
                return down(n - 1)
            for _ in range(300):
                leaf()

        def sweep():
            for depth in range(1, 200):
                down(depth)

        sweep()  # first pass: every page that will ever be needed is mapped and touched once
        before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        (with_room if sys.argv[1] == "room" else (lambda f: f()))(sweep)
        print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    """)
    faults = {mode: int(subprocess.run([sys.executable, "-c", script, mode], check=True, capture_output=True,
                                      text=True).stdout) for mode in ("plain", "room")}
    assert faults["plain"] >= 200, faults  # the thrashing is there to be removed (CPython 3.11+)
    assert faults["room"] < 50, faults
