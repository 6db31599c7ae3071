"""Concurrent runs and the parallel reader: no lost, mixed or different result.

- Two runs writing one output directory at once both succeed and leave whole files of one of them.
- The forked parallel reader (byte ranges of a file > 8 MB per worker) gives exactly the serial result:
  rows, line numbers, the first bad line of a strict run, the skipped lines of a skipping run.
"""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from hypothesis import strategies as st

import scorecards.inputs
from aggregator.outputs.atomic import write_outputs
from aggregator.outputs.run_files import METADATA_JSON, run_files
from aggregator.run.pipeline import evaluate_run
from benchmarks.generate import generate
from scorecards.errors import BadLineError, InputError
from scorecards.inputs import MIN_PART_BYTES
from scorecards.reader import read_scorecards
from tests.conftest import RUNS
from tests.outcomes import OUTPUT_NAMES, but_metadata, parse_outputs, snapshot
from tests.strategies import blank_lines, damaged_row, fuzz_budgets, jsonl, line_bytes, to_line, valid_row

Files = dict[str, bytes]
SOURCES = [RUNS / "cr_n50_m0_v2__seed42", RUNS / "cr_n50_m1_v2__seed42", RUNS / "cr_n50_m2_v2__seed42"]


def one_version(found: Files, versions: list[Files], ignore: frozenset[str] = frozenset()) -> int:
    """Index of the version every output in ``found`` comes from; fails on a mixed or stray set."""
    names = set(found) - ignore
    assert names == OUTPUT_NAMES - ignore, sorted(found)
    matches = [i for i, version in enumerate(versions) if all(found[n] == version[n] for n in names)]
    assert matches, "the outputs mix files of different runs"
    return matches[0]


def test_concurrent_writers_leave_the_whole_set_of_one(tmp_path: Path) -> None:
    """Threads rewrite one directory with different versions while a reader watches every file."""
    versions = [run_files(evaluate_run(source, workers=1)) for source in SOURCES]
    stop = threading.Event()
    seen: list[Files] = []

    def watch() -> None:
        while not stop.is_set():
            found = {}
            for name in OUTPUT_NAMES:
                try:
                    found[name] = (tmp_path / name).read_bytes()
                except FileNotFoundError:
                    pass
            seen.append(found)

    def write(index: int) -> None:
        for _ in range(15):
            write_outputs(tmp_path, versions[index])

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        with ThreadPoolExecutor(len(versions)) as pool:
            for done in [pool.submit(write, i) for i in range(len(versions))]:
                done.result()
    finally:
        stop.set()
        watcher.join()
    one_version(snapshot(tmp_path), versions)
    for found in seen:
        for name, data in found.items():
            assert any(data == version[name] for version in versions), f"{name} torn while watched"


def test_a_writer_waits_for_the_directory_lock(tmp_path: Path) -> None:
    """While another writer holds the directory, nothing is staged or renamed; then all of it is."""
    new = run_files(evaluate_run(SOURCES[0], workers=1))
    holder = os.open(tmp_path, os.O_RDONLY | os.O_DIRECTORY)
    fcntl.flock(holder, fcntl.LOCK_EX)
    with ThreadPoolExecutor(1) as pool:
        try:
            writing = pool.submit(write_outputs, tmp_path, new)
            time.sleep(0.3)
            assert not writing.done() and snapshot(tmp_path) == {}
        finally:
            os.close(holder)
        writing.result(timeout=60)
    assert snapshot(tmp_path) == new


def cli(run: Path, outdir: Path) -> list[str]:
    return [sys.executable, "-m", "aggregator", str(run), "--outdir", str(outdir), "--quiet"]


def run_two_at_once(tmp_path: Path, rounds: int) -> None:
    inputs = [generate(s / "scorecards.jsonl", 300, tmp_path / s.name / "scorecards.jsonl") for s in SOURCES[:2]]
    references = []
    for index, run in enumerate(inputs):
        done = subprocess.run(cli(run, tmp_path / f"reference{index}"), capture_output=True, timeout=300)
        assert done.returncode == 0, done.stderr
        references.append(snapshot(tmp_path / f"reference{index}"))
    outdir = tmp_path / "shared"
    winners = []
    for _ in range(rounds):
        processes = [subprocess.Popen(cli(run, outdir), stderr=subprocess.PIPE) for run in inputs]
        for process in processes:
            _, stderr = process.communicate(timeout=300)
            assert process.returncode == 0, stderr
        parse_outputs(outdir)
        winners.append(one_version(snapshot(outdir), references, ignore=frozenset({METADATA_JSON})))
    assert set(winners) <= {0, 1}


def test_two_cli_runs_into_one_directory_both_succeed(tmp_path: Path) -> None:
    run_two_at_once(tmp_path, rounds=2)


@pytest.mark.slow
def test_many_pairs_of_cli_runs_into_one_directory(tmp_path: Path) -> None:
    run_two_at_once(tmp_path, rounds=25)


@pytest.fixture(scope="module")
def big_input(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real-shaped input of more than 2 x MIN_PART_BYTES, so two workers each get a range."""
    path = generate(SOURCES[1] / "scorecards.jsonl", 700, tmp_path_factory.mktemp("big") / "run" / "scorecards.jsonl")
    assert path.stat().st_size > 2 * MIN_PART_BYTES
    return path


def with_line(path: Path, tmp: Path, at: float, line: bytes) -> Path:
    """A copy of ``path`` with ``line`` inserted at the fraction ``at`` of its lines."""
    lines = path.read_bytes().split(b"\n")
    lines.insert(int(len(lines) * at), line)
    out = tmp / "run" / "scorecards.jsonl"
    out.parent.mkdir(parents=True)
    out.write_bytes(b"\n".join(lines))
    return out


def test_two_workers_equal_one_on_a_large_input(big_input: Path) -> None:
    serial, parallel = evaluate_run(big_input, workers=1), evaluate_run(big_input, workers=2)
    assert (serial.workers, parallel.workers) == (1, 2)
    assert serial.table.equals(parallel.table) and serial.metrics == parallel.metrics
    by_one, by_two = run_files(serial), run_files(parallel)
    assert but_metadata(by_one) == but_metadata(by_two)


@pytest.mark.parametrize("at", [0.3, 0.8])
def test_a_bad_line_is_named_alike_by_one_and_two_workers(big_input: Path, tmp_path: Path, at: float) -> None:
    path = with_line(big_input, tmp_path, at, b'{"meta": {"text_id": "x"}, "gold_tuples": 5}')
    errors = []
    for workers in (1, 2):
        with pytest.raises(BadLineError) as caught:
            evaluate_run(path, workers=workers)
        errors.append(str(caught.value))
    assert errors[0] == errors[1]
    skipping = [evaluate_run(path, workers=workers, skip_bad_lines=True) for workers in (1, 2)]
    assert skipping[0].skipped == skipping[1].skipped and len(skipping[0].skipped) == 1
    assert skipping[0].table.equals(skipping[1].table)


def test_a_duplicate_across_ranges_is_named_alike(big_input: Path, tmp_path: Path) -> None:
    first_row = big_input.read_bytes().split(b"\n", 1)[0]
    path = with_line(big_input, tmp_path, 0.9, first_row)
    errors = []
    for workers in (1, 2):
        with pytest.raises(BadLineError) as caught:
            read_scorecards(path, workers=workers)
        errors.append(str(caught.value))
    assert errors[0] == errors[1] and "duplicate sample key" in errors[0]


any_line = st.one_of(valid_row().map(to_line), damaged_row().map(to_line), line_bytes, blank_lines)


def check_ranges_equal_serial(lines: list[bytes], parts: int, skip: bool, bom: bool, crlf: bool) -> None:
    """With tiny ranges, any file reads the same with ``parts`` workers as with one."""
    saved, scorecards.inputs.MIN_PART_BYTES = scorecards.inputs.MIN_PART_BYTES, 16
    outcomes: list[object] = []
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "scorecards.jsonl"
            path.write_bytes(jsonl(lines, bom=bom, crlf=crlf))
            for workers in (1, parts):
                try:
                    read = read_scorecards(path, skip_bad_lines=skip, workers=workers)
                    outcomes.append((read.ids, read.items, read.skipped, read.rows_read))
                except InputError as exc:
                    outcomes.append(str(exc))
    finally:
        scorecards.inputs.MIN_PART_BYTES = saved
    assert outcomes[0] == outcomes[1]


test_small_ranges_equal_serial, test_small_ranges_equal_serial_slow = fuzz_budgets(
    12, 300, lines=st.lists(any_line, min_size=1, max_size=12), parts=st.integers(2, 5), skip=st.booleans(),
    bom=st.booleans(), crlf=st.booleans(),
)(check_ranges_equal_serial)


def test_parallel_path_is_taken_with_small_ranges(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(scorecards.inputs, "MIN_PART_BYTES", 64)
    path = tmp_path / "scorecards.jsonl"
    path.write_bytes(jsonl([to_line({"meta": {"text_id": f"k{i}"}}) for i in range(40)]))
    assert read_scorecards(path, workers=3).workers == 3
