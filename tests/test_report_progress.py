"""Progress reporting while reading: off unless stderr is a terminal, counted across forked readers."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from aggregator.commands import progress
from aggregator.run.pipeline import evaluate_run
from scorecards import inputs
from scorecards.lines import iter_lines
from tests.conftest import RUNS, run_cli

RUN = RUNS / "cr_n50_m1_v2__seed42" / "scorecards.jsonl"


class Terminal(io.StringIO):
    """A text stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_block_callback_sees_every_byte(tmp_path: Path) -> None:
    path = tmp_path / "lines.jsonl"
    path.write_bytes(b"".join(b"x" * (i % 97) + b"\n" for i in range(5000)))
    seen: list[int] = []
    with open(path, "rb") as handle:
        lines = list(iter_lines(handle, 0, path.stat().st_size, seen.append))
    assert len(lines) == 5000
    assert sum(seen) == path.stat().st_size


@pytest.mark.parametrize(
    ("stream", "quiet"),
    [(io.StringIO(), False), (Terminal(), True)],
    ids=["not-a-terminal", "quiet"],
)
def test_no_bar_unless_an_interactive_terminal(stream: io.StringIO, quiet: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "MIN_BYTES", 1)
    with progress.reading(RUN, quiet=quiet, stream=stream) as on_bytes:
        assert on_bytes is None
    assert stream.getvalue() == ""


def test_no_bar_for_a_small_input() -> None:
    stream = Terminal()
    with progress.reading(RUN, quiet=False, stream=stream) as on_bytes:
        assert on_bytes is None
    assert stream.getvalue() == ""


def test_forked_readers_move_one_bar_to_the_full_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(progress, "MIN_BYTES", 1)
    monkeypatch.setattr(inputs, "MIN_PART_BYTES", 64 << 10)
    size = RUN.stat().st_size
    stream = Terminal()
    with progress.reading(RUN, quiet=False, stream=stream) as on_bytes:
        assert on_bytes is progress.add_bytes
        evaluation = evaluate_run(RUN, workers=2, on_bytes=on_bytes)
        assert evaluation.workers == 2
        assert progress._done is not None and progress._done.value == size
    assert progress._done is None
    assert "reading scorecards.jsonl" in stream.getvalue()


def test_add_bytes_without_a_bar_does_nothing() -> None:
    progress.add_bytes(10)
    assert progress._done is None


def test_cli_without_a_terminal_prints_no_bar(tmp_path: Path) -> None:
    done = run_cli(RUN, "--outdir", tmp_path, "--allow", "ref_unmeasurable")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
