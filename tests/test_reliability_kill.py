"""A run killed with SIGKILL at any moment leaves every output whole: the previous file, or the new one.

Two levels: :func:`write_outputs` killed at each step of staging and renaming (forked child,
deterministic), and the real CLI killed at random moments while it aggregates a 28 MB input.
A killed writer may leave dot-files ``.NAME.*.tmp`` (it cannot clean up after SIGKILL); they are
never taken for outputs, and the next write of NAME removes them.
"""

from __future__ import annotations

import itertools
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from aggregator.outputs.atomic import write_outputs
from aggregator.outputs.run_files import METADATA_JSON, run_files
from aggregator.run.pipeline import evaluate_run
from benchmarks.generate import generate
from tests.conftest import RUNS
from tests.outcomes import OUTPUT_NAMES, CutShort, parse_file, parse_outputs, snapshot

Files = dict[str, bytes]
TEMP = re.compile(r"\.(?P<name>.+)\.[^.]+\.tmp")
OLD_RUN, NEW_RUN = RUNS / "cr_n50_m0_v2__seed42", RUNS / "cr_n50_m2_v2__seed42"


@pytest.fixture(scope="module")
def versions() -> tuple[Files, Files]:
    """The outputs of two different runs: what a directory held before, and what a new run writes."""
    return run_files(evaluate_run(OLD_RUN, workers=1)), run_files(evaluate_run(NEW_RUN, workers=1))


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def arm(step: str, index: int) -> None:
    """In a child process: die at the ``index``-th call of ``step`` (before it happens; ``write``: halfway)."""
    module: Any = tempfile if step == "mkstemp" else os
    attr = "fdopen" if step == "write" else step
    real: Callable[..., Any] = getattr(module, attr)
    calls = itertools.count()

    def instead(*args: Any, **kwargs: Any) -> Any:
        if next(calls) != index:
            return real(*args, **kwargs)
        if step == "write":
            return CutShort(real(*args, **kwargs), die)
        die()

    setattr(module, attr, instead)


def killed_write(directory: Path, files: Files, step: str, index: int) -> None:
    pid = os.fork()
    if pid == 0:
        try:
            arm(step, index)
            write_outputs(directory, files)
        finally:
            os._exit(0)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, f"{step}#{index} was not reached"


def assert_old_or_new(found: Files, old: Files, new: Files) -> int:
    """Every output found is the whole old file or the whole new file; no old output is gone.

    Anything else must be a temp file of an output (never mistaken for one). Returns how many.
    """
    temps = 0
    for name, data in found.items():
        if name in OUTPUT_NAMES:
            assert data in (old.get(name), new[name]), f"{name} is neither the old nor the new file"
            parse_file(name, data)
            continue
        match = TEMP.fullmatch(name)
        assert match and match["name"] in OUTPUT_NAMES, f"stray file {name}"
        temps += 1
    assert set(old) <= set(found), "a previous output disappeared"
    return temps


def kill_points(count: int) -> Iterator[tuple[str, int]]:
    """Every step of writing ``count`` files: create, half-write and fsync each temp, each rename, dir fsync."""
    for index in range(count):
        yield from (("mkstemp", index), ("write", index), ("fsync", index), ("replace", index))
    yield ("fsync", count)


@pytest.mark.parametrize("previous", [True, False], ids=["over previous outputs", "into an empty directory"])
@pytest.mark.parametrize(("step", "index"), list(kill_points(len(OUTPUT_NAMES))))
def test_a_writer_killed_at_any_step_leaves_whole_files(
    tmp_path: Path, versions: tuple[Files, Files], previous: bool, step: str, index: int
) -> None:
    old, new = versions
    before = old if previous else {}
    if previous:
        write_outputs(tmp_path, old)
    killed_write(tmp_path, new, step, index)
    assert_old_or_new(snapshot(tmp_path), before, new)
    write_outputs(tmp_path, new)
    assert snapshot(tmp_path) == new, "the next complete write leaves exactly its files (stale temps removed)"


def test_only_stale_temps_of_our_own_outputs_are_removed(tmp_path: Path, versions: tuple[Files, Files]) -> None:
    _, new = versions
    stale = tmp_path / ".structural_metrics.csv.k1l2m3n4.tmp"
    fresh = tmp_path / ".per_sample.csv.a1b2c3d4.tmp"
    others = [tmp_path / ".other.csv.a1b2c3d4.tmp", tmp_path / "notes.tmp", tmp_path / ".structural_metrics.csv.keep"]
    for path in [stale, fresh, *others]:
        path.write_bytes(b"partial")
    hour_ago = time.time() - 3600
    for path in [stale, *others]:
        os.utime(path, (hour_ago, hour_ago))
    future = time.time() + 3600
    os.utime(fresh, (future, future))
    write_outputs(tmp_path, new)
    assert not stale.exists()
    assert fresh.exists(), "a temp file newer than the run may belong to a live writer"
    assert all(path.exists() for path in others)


def cli(run: Path, outdir: Path) -> list[str]:
    return [sys.executable, "-m", "aggregator", str(run), "--outdir", str(outdir), "--quiet"]


def comparable(files: Files) -> Files:
    """Outputs with run_metadata.json's timing removed (its only field that differs between runs)."""
    out = dict(files)
    if METADATA_JSON in out:
        metadata = parse_file(METADATA_JSON, out[METADATA_JSON])
        metadata.pop("seconds")
        out[METADATA_JSON] = json.dumps(metadata, sort_keys=True).encode()
    return out


def listing(directory: Path) -> list[tuple[str, int, int]] | None:
    """Names, sizes and mtimes in ``directory`` (None when it is missing or changed while listed)."""
    try:
        return sorted((e.name, e.stat().st_size, e.stat().st_mtime_ns) for e in os.scandir(directory))
    except FileNotFoundError:
        return None


def wait_for_writes(process: subprocess.Popen[bytes], directory: Path) -> None:
    """Return as soon as anything in ``directory`` changes (or the process ends)."""
    before = listing(directory)
    while process.poll() is None and listing(directory) == before:
        time.sleep(0.0005)


def kill_cli_at_random_moments(tmp_path: Path, kills: int, previous_states: tuple[bool, ...]) -> None:
    """Aggregate a 28 MB input and SIGKILL it: a third of the kills at any moment, the rest within
    5 ms of its first write to the output directory (where a non-atomic writer tears files).

    After each kill every output must be whole (old or new, or absent where there was none);
    a complete run then leaves exactly the new set.
    """
    old_input = generate(OLD_RUN / "scorecards.jsonl", 1000, tmp_path / "old" / "scorecards.jsonl")
    new_input = generate(NEW_RUN / "scorecards.jsonl", 1000, tmp_path / "new" / "scorecards.jsonl")
    assert new_input.stat().st_size > 20 << 20
    reference = tmp_path / "reference"
    started = time.perf_counter()
    assert subprocess.run(cli(new_input, reference), capture_output=True, timeout=300).returncode == 0
    duration = time.perf_counter() - started
    new = comparable(snapshot(reference))
    for previous in previous_states:
        outdir = tmp_path / f"out-{previous}"
        old: Files = {}
        if previous:
            assert subprocess.run(cli(old_input, outdir), capture_output=True, timeout=300).returncode == 0
            old = comparable(snapshot(outdir))
        landed: list[tuple[str, float, int]] = []
        for attempt in range(kills):
            rng = random.Random(f"{attempt}-{previous}")
            writing = attempt % 3 != 0
            process = subprocess.Popen(cli(new_input, outdir), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if writing:
                wait_for_writes(process, outdir)
            delay = rng.uniform(0, 0.005) if writing else rng.uniform(0.25, 1.0) * duration
            time.sleep(delay)
            process.kill()
            process.wait(timeout=60)
            temps = assert_old_or_new(comparable(snapshot(outdir)), old, new)
            landed.append(("writing" if writing else "anytime", round(delay, 3), temps))
        done = subprocess.run(cli(new_input, outdir), capture_output=True, timeout=300)
        assert done.returncode == 0, done.stderr
        parse_outputs(outdir)
        assert comparable(snapshot(outdir)) == new, landed


def test_the_cli_killed_at_random_moments_leaves_whole_files(tmp_path: Path) -> None:
    kill_cli_at_random_moments(tmp_path, kills=3, previous_states=(True,))


@pytest.mark.slow
def test_the_cli_killed_at_many_random_moments_leaves_whole_files(tmp_path: Path) -> None:
    kill_cli_at_random_moments(tmp_path, kills=20, previous_states=(True, False))


def children(pid: int) -> list[int]:
    """The processes ``pid`` forked (Linux ``/proc``)."""
    found: list[int] = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            found += [int(c) for c in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
        except OSError:
            continue
    return found


def running(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] not in "ZX"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_a_killed_command_leaves_no_decoding_process_behind(tmp_path: Path) -> None:
    """Its forked decoders waited forever for work from the dead parent (found while testing issue #17)."""
    source = generate(NEW_RUN / "scorecards.jsonl", 700, tmp_path / "run" / "scorecards.jsonl")
    process = subprocess.Popen(cli(source, tmp_path / "out") + ["--workers", "2"], stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    forked: list[int] = []
    while not forked and process.poll() is None and time.monotonic() < deadline:
        forked = children(process.pid)
        time.sleep(0.002)
    assert forked, "the command forked no decoder"
    process.kill()
    process.wait(timeout=60)
    deadline = time.monotonic() + 10
    while any(map(running, forked)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(map(running, forked))
