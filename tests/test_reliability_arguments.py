"""Hostile arguments end in one clear line, never a traceback, a hang or a silent guess (issue #17, items 6, 7, 8).

Command line: an output directory through a symlink loop, a seed beyond 64 bits in a run id,
``--resamples`` beyond memory, a FIFO or ``/dev/stdin`` as input, an empty ``--outdir``, two
scorecards files in one folder, Ctrl-C. Python API: arguments of the wrong type or out of
range raise ``TypeError`` / ``ValueError`` naming the argument; results are read-only.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from aggregator import aggregate_run, compare_runs
from aggregator.commands.main import EXIT_INTERRUPTED
from tests.conftest import RUNS, run_cli
from tests.outcomes import ERROR_PREFIX, parse_outputs
from tests.scorecard_rows import item, row, write_rows

RUN = RUNS / "cr_n50_m1_v2__seed42"
PAIR = [RUNS / "cr_n50_m0_v2__seed42", RUNS / "cr_n50_m1_v2__seed42"]


def error_line(done: subprocess.CompletedProcess[str], *hints: str) -> str:
    assert done.returncode == 2 and "Traceback" not in done.stderr, (done.returncode, done.stderr)
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(ERROR_PREFIX), done.stderr
    for hint in hints:
        assert hint in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize("below", ["", "out"])
def test_an_outdir_through_a_symlink_loop(tmp_path: Path, below: str) -> None:
    """Was ``RuntimeError: Symlink loop`` and exit 1; an ``--outdir`` that is itself the loop was told "the path
    is a file" (issue #25). Every command that writes now names the loop, before reading anything."""
    (tmp_path / "loop").symlink_to("loop")
    outdir = tmp_path / "loop" / below if below else tmp_path / "loop"
    loop = "goes round a loop of symbolic links: choose another directory with --outdir"
    error_line(run_cli(RUN, "--outdir", outdir), loop)
    error_line(run_cli(RUN, PAIR[0], "--outdir", outdir), loop)
    error_line(run_cli("compare", *PAIR, "--outdir", outdir, "--resamples", "10"), loop)
    peer = Path(__file__).parent / "fixtures" / "peer" / "aste" / "case_1"
    error_line(run_cli("score", peer / "gold.txt", peer / "pred.txt", "--format", "aste", "--outdir", outdir), loop)
    error_line(run_cli("convert", peer / "gold.txt", peer / "pred.txt", "--format", "aste", "--out",
                       outdir / "x.jsonl"), "goes round a loop of symbolic links: choose another file with --out")


def seeded_runs(tmp_path: Path, seed: str) -> list[Path]:
    return [write_rows(tmp_path / name / "scorecards.jsonl",
                       [row("k1", gold=[item("본품#일반", "a")], final=[item("본품#일반", "a")], run_id=name)])
            for name in (f"a__seed{seed}", "b__seed1")]


def test_a_seed_beyond_64_bits_is_refused_by_name(tmp_path: Path) -> None:
    """Was a Polars ``ComputeError`` traceback and exit 1."""
    huge = str(2**63)
    error_line(run_cli("compare", *seeded_runs(tmp_path / "huge", huge), "--outdir", tmp_path / "c1", "--resamples", "10"),
               f"a__seed{huge}", "larger than 2^63 - 1", "--condition-pattern")
    largest = str(2**63 - 1)
    done = run_cli("compare", *seeded_runs(tmp_path / "largest", largest), "--outdir", tmp_path / "c2", "--resamples", "10")
    assert done.returncode == 0, done.stderr
    assert largest in (tmp_path / "c2" / "runs.csv").read_text()


def test_resamples_beyond_the_bound_are_refused_at_once() -> None:
    """``--resamples 10^11`` was reported as "out of memory while reading the input"."""
    started = time.perf_counter()
    error_line(run_cli("compare", *PAIR, "--resamples", str(10**11), "--outdir", "unused"), "--resamples", "1,000,000")
    error_line(run_cli("compare", *PAIR, "--resamples", "0", "--outdir", "unused"), "--resamples")
    assert time.perf_counter() - started < 30
    assert not Path("unused").exists()
    with pytest.raises(ValueError, match="resamples must be from 1 to 1,000,000"):
        compare_runs(PAIR, resamples=10**11)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_or_a_pipe_as_input_is_refused_at_once(tmp_path: Path) -> None:
    """Was a hang: the input is opened more than once (hash and ranges)."""
    fifo = tmp_path / "scorecards.jsonl"
    os.mkfifo(fifo)
    error_line(run_cli(fifo, "--outdir", tmp_path / "out"), "not a regular file")
    error_line(run_cli(tmp_path, "--outdir", tmp_path / "out"), "not a regular file")
    error_line(run_cli("compare", fifo, RUN, "--outdir", tmp_path / "c"), "not a regular file")
    piped = subprocess.run([sys.executable, "-m", "aggregator", "/dev/stdin", "--outdir", str(tmp_path / "out")],
                           input=(RUN / "scorecards.jsonl").read_text(), capture_output=True, text=True, timeout=60)
    error_line(piped, "/dev/stdin: not a regular file")
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("command", [[], ["compare", PAIR[0]]])
def test_an_empty_outdir_is_refused(tmp_path: Path, command: list[object]) -> None:
    """An unset ``$OUT`` wrote into the current directory."""
    done = run_cli(*command, RUN, "--outdir", "", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "--outdir" in done.stderr and "is empty" in done.stderr
    assert list(tmp_path.iterdir()) == []


def test_two_files_in_one_folder_are_told_what_to_do(tmp_path: Path) -> None:
    """Two different runs were told "give each run once"."""
    for name in ("a.jsonl", "b.jsonl"):
        shutil.copyfile(RUN / "scorecards.jsonl", tmp_path / name)
    line = error_line(run_cli(tmp_path / "a.jsonl", tmp_path / "b.jsonl", "--quiet"), "give --outdir DIR")
    assert "give each run once" not in line
    done = run_cli(tmp_path / "a.jsonl", tmp_path / "b.jsonl", "--outdir", tmp_path / "out", "--quiet")
    assert done.returncode == 0, done.stderr
    for name in ("a", "b"):
        parse_outputs(tmp_path / "out" / name)
    error_line(run_cli(tmp_path / "a.jsonl", tmp_path / "a.jsonl", "--quiet"), "give each run once")


def test_ctrl_c_exits_130_with_one_line_and_no_process_left(tmp_path: Path) -> None:
    """Was "Aborted!" and exit 1; a decoding process could be left behind, holding the terminal."""
    runs = []
    for index in range(60):
        runs.append(tmp_path / "grid" / f"r{index}")
        runs[-1].mkdir(parents=True)
        shutil.copyfile(RUN / "scorecards.jsonl", runs[-1] / "scorecards.jsonl")
    process = subprocess.Popen([sys.executable, "-m", "aggregator", *map(str, runs), "--outdir", str(tmp_path / "out"),
                                "--workers", "2", "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, start_new_session=True)
    while not (tmp_path / "out").exists() and process.poll() is None:
        time.sleep(0.005)
    os.killpg(process.pid, signal.SIGINT)  # as a terminal's Ctrl-C: the whole process group
    stdout, stderr = process.communicate(timeout=60)  # returns only once no process holds the pipes
    assert process.returncode == EXIT_INTERRUPTED, stderr
    assert stderr.splitlines()[-1] == "aggregate: interrupted" and "Traceback" not in stderr
    assert "Aborted" not in stderr and stdout == ""


def test_api_arguments_are_checked_by_name(tmp_path: Path) -> None:
    """``profile=5``, ``seed=-1``, ``workers=0/'2'/1000`` leaked library errors or passed silently."""
    cases = [
        (lambda: aggregate_run(RUN, profile=5), TypeError, "profile must be a string or None, got 5"),  # type: ignore[arg-type]
        (lambda: aggregate_run(RUN, workers=0), ValueError, "workers must be from 1 to 64, got 0"),
        (lambda: aggregate_run(RUN, workers="2"), TypeError, "workers must be a whole number, got '2'"),  # type: ignore[arg-type]
        (lambda: aggregate_run(RUN, workers=1000), ValueError, "workers must be from 1 to 64"),
        (lambda: aggregate_run(RUN, skip_bad_lines="yes"), TypeError, "skip_bad_lines must be True or False"),  # type: ignore[arg-type]
        (lambda: aggregate_run(5), TypeError, "path must be a path"),  # type: ignore[arg-type]
        (lambda: compare_runs(PAIR, seed=-1), ValueError, "seed must be from 0"),
        (lambda: compare_runs(PAIR, seed=1.5), TypeError, "seed must be a whole number"),  # type: ignore[arg-type]
        (lambda: compare_runs(PAIR, resamples=True), TypeError, "resamples must be a whole number"),
        (lambda: compare_runs(PAIR, baseline=1), TypeError, "baseline must be a string or None"),  # type: ignore[arg-type]
        (lambda: compare_runs([RUN, 3]), TypeError, r"paths\[1\] must be a path"),  # type: ignore[list-item]
        (lambda: compare_runs(7), TypeError, "paths must be a path or a list of paths"),  # type: ignore[arg-type]
    ]
    for call, error, message in cases:
        with pytest.raises(error, match=message):
            call()


def test_one_path_is_one_input_not_its_characters(tmp_path: Path) -> None:
    """``compare_runs("file")`` iterated the string's characters (a merged file of two runs here: a
    comparison needs two runs)."""
    merged = tmp_path / "merged.jsonl"
    merged.write_bytes(b"".join((run / "scorecards.jsonl").read_bytes() for run in (RUN, RUN.parent / "cr_n50_m1_v2__seed101")))
    alone = compare_runs(str(merged), resamples=20)
    assert alone.to_dict() == compare_runs([merged], resamples=20).to_dict()
    assert alone.conditions_order == ("cr_n50_m1_v2",) and alone.runs.height == 2


def test_results_are_read_only() -> None:
    """The "frozen" result's ``metrics`` dict could be changed."""
    result = aggregate_run(RUN, workers=1)
    for change in (lambda: result.metrics.__setitem__("n", 0), lambda: result.metrics.update(n=0),
                   lambda: result.metrics.pop("n"), lambda: result.counts.clear(), lambda: result.metrics.clear()):
        with pytest.raises(TypeError, match="read-only"):
            change()
    assert isinstance(result.run_ids, tuple) and isinstance(result.files, tuple)
    assert isinstance(result.skipped_lines, tuple) and isinstance(result.warnings, tuple)
    table = result.to_polars()
    table[0, "n_gold"] = 99
    assert result.to_polars()[0, "n_gold"] != 99
    comparison = compare_runs(PAIR, resamples=20)
    assert isinstance(comparison.notes, tuple) and isinstance(comparison.conditions_order, tuple)
    paired = comparison.to_polars("paired")
    paired[0, "delta"] = 99.0
    assert comparison.paired[0, "delta"] != 99.0
    assert result.metrics == dict(result.metrics) and result.model_dump()["metrics"]["n"] == result.metrics["n"]
