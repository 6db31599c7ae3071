"""The byte ranges a file is cut into for the decoders: each cut is just after the first newline at or after
its target, whatever the reads that look for it (small first reads that double, lines longer than them)."""

from __future__ import annotations

from itertools import accumulate, pairwise
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scorecards import lines
from scorecards.lines import most_ranges, split_ranges


def expected_ranges(data: bytes, parts: int, min_part: int) -> list[tuple[int, int]]:
    """The rule, on the whole file in memory: each cut is just after the first newline at or after both its
    target and the cut before it; cuts that reach the end of the file are no cuts."""
    size = len(data)
    count = most_ranges(size, parts, min_part)

    def after_newline(start: int) -> int:
        return data.find(b"\n", start) + 1 or size

    cuts = accumulate((size * i // count for i in range(1, count)),
                      lambda cut, target: after_newline(max(cut, target)), initial=0)
    edges = [0, *sorted({cut for cut in cuts if 0 < cut < size}), size]
    return list(pairwise(edges)) if size else [(0, 0)]


line_lengths = st.lists(st.integers(0, 300), min_size=0, max_size=40)


@given(lengths=line_lengths, last_newline=st.booleans(), parts=st.integers(1, 12), min_part=st.integers(1, 200),
       probe=st.sampled_from([1, 2, 7, 64]), block=st.sampled_from([64, 128, 1 << 22]))
def test_cuts_follow_the_first_newline_after_each_target(
    tmp_path_factory: pytest.TempPathFactory, lengths: list[int], last_newline: bool,
    parts: int, min_part: int, probe: int, block: int,
) -> None:
    data = b"\n".join(b"x" * n for n in lengths) + (b"\n" if last_newline and lengths else b"")
    path = tmp_path_factory.mktemp("ranges") / "scorecards.jsonl"
    path.write_bytes(data)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(lines, "PROBE", probe)
        patch.setattr(lines, "BLOCK", max(block, probe))
        got = split_ranges(str(path), parts, min_part)
    assert got == expected_ranges(data, parts, min_part)
    assert got[0][0] == 0 and got[-1][1] == len(data)
    assert all(a < b or len(data) == 0 for a, b in got)
    assert all(b == c for (_, b), (c, _) in zip(got, got[1:]))
    assert all(data[b - 1:b] == b"\n" for _, b in got[:-1])


def test_a_line_longer_than_every_read_is_found_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = b"a\n" + b"y" * 5000 + b"\nb\n" + b"z" * 5000 + b"\n"
    path = tmp_path / "long.jsonl"
    path.write_bytes(data)
    monkeypatch.setattr(lines, "PROBE", 16)
    monkeypatch.setattr(lines, "BLOCK", 256)
    got = split_ranges(str(path), 4, 10)
    assert got == expected_ranges(data, 4, 10)
    assert [data[a:b].count(b"\n") for a, b in got] == [2, 1, 1]
