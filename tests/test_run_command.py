"""``aggregate RUN...``: several runs in one process, each exactly as if aggregated alone."""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CASES, CONFORMANCE, RUNS, run_cli, write_lines
from tests.outcomes import ERROR_PREFIX, but_metadata, but_warnings, parse_outputs, snapshot

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"
SOURCES = ("cr_n50_m0_v2__seed42", "cr_n50_m1_v2__seed101", "cr_n50_m2_v2__seed789")


@pytest.fixture
def grid(tmp_path: Path) -> list[Path]:
    """Three real runs, copied so that their outputs land under tmp_path."""
    runs = []
    for name in SOURCES:
        target = tmp_path / "grid" / name
        target.mkdir(parents=True)
        shutil.copyfile(RUNS / name / "scorecards.jsonl", target / "scorecards.jsonl")
        runs.append(target)
    return runs


def outputs(run: Path) -> Path:
    return run / "derived" / "metrics"


def test_each_run_gets_the_files_it_gets_alone(grid: list[Path], tmp_path: Path) -> None:
    done = run_cli(*grid, "--quiet", "--allow", "ref_unmeasurable")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and done.stderr == ""
    for run in grid:
        parse_outputs(outputs(run))
        alone = tmp_path / "alone" / run.name
        assert run_cli(run, "--outdir", alone, "--quiet", "--allow", "ref_unmeasurable").returncode == 0
        assert but_metadata(snapshot(outputs(run))) == but_metadata(snapshot(alone))


def test_outdir_holds_one_directory_per_run_named_after_it(grid: list[Path], tmp_path: Path) -> None:
    files = [run / "scorecards.jsonl" for run in grid]
    done = run_cli(files[0], grid[1], files[2], "--outdir", tmp_path / "out", "--quiet")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(SOURCES)
    for name in SOURCES:
        parse_outputs(tmp_path / "out" / name)
    assert not any(outputs(run).exists() for run in grid)


def test_a_failing_run_is_named_and_the_others_are_written(grid: list[Path], tmp_path: Path) -> None:
    (tmp_path / "bad").mkdir()
    bad = write_lines(tmp_path / "bad" / "scorecards.jsonl", ['{"meta": {"text_id": "a"}}', "not json"])
    done = run_cli(grid[0], bad.parent, grid[1], "--quiet")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr and done.stdout == ""
    lines = but_warnings(done.stderr)
    assert len(lines) == 2 and all(line.startswith(ERROR_PREFIX) for line in lines), lines
    assert lines[0].startswith(f"{ERROR_PREFIX}{bad}:2: not valid JSON")
    assert lines[1] == f"{ERROR_PREFIX}1 of 3 runs failed (each named above)"
    assert not (bad.parent / "derived").exists()
    for run in grid[:2]:
        parse_outputs(outputs(run))


def test_one_failing_run_alone_is_one_line() -> None:
    done = run_cli("no/such/run", "--quiet")
    assert done.returncode == 2
    assert done.stderr.splitlines() == [f"{ERROR_PREFIX}no/such/run: no such file or run directory (check the path)"]


@pytest.mark.parametrize("same_place", ["run twice", "directory and its file", "one name under --outdir"])
def test_two_runs_into_one_directory_are_refused_before_reading(
    grid: list[Path], tmp_path: Path, same_place: str
) -> None:
    if same_place == "run twice":
        args: list[object] = [grid[0], grid[1], grid[0]]
    elif same_place == "directory and its file":
        args = [grid[0], grid[0] / "scorecards.jsonl"]
    else:
        other = tmp_path / "elsewhere" / grid[0].name
        other.mkdir(parents=True)
        shutil.copyfile(grid[0] / "scorecards.jsonl", other / "scorecards.jsonl")
        args = [grid[0], other, "--outdir", tmp_path / "out"]
    done = run_cli(*args, "--quiet")
    assert done.returncode == 2
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(ERROR_PREFIX) and "would both write to" in lines[0], lines
    assert not any(outputs(run).exists() for run in grid) and not (tmp_path / "out").exists()


def test_json_is_one_shape_for_one_run_and_several_with_failed_runs_in_it(grid: list[Path], tmp_path: Path) -> None:
    [one] = json.loads(run_cli(grid[0], "--json").stdout)["runs"]
    missing = tmp_path / "no_such_run"
    done = run_cli(*grid, missing, "--json")
    assert done.returncode == 2
    several = json.loads(done.stdout)["runs"]
    assert several[0] == one
    assert [entry["input"] for entry in several[:3]] == [str(run / "scorecards.jsonl") for run in grid]
    assert [entry["run"] for entry in several] == [str(run) for run in [*grid, missing]]
    assert several[3] == {"run": str(missing), "error": f"{missing}: no such file or run directory (check the path)"}


def wrote_lines(stdout: str) -> list[str]:
    return [line for line in stdout.splitlines() if line.startswith("wrote ")]


def test_small_runs_shared_among_processes_give_what_one_process_gives(grid: list[Path], tmp_path: Path) -> None:
    """Files, summaries and skipped-line reports alike and in the order given."""
    skipping = tmp_path / "grid" / "with_bad_lines"
    skipping.mkdir()
    good = (grid[0] / "scorecards.jsonl").read_bytes().splitlines()
    write_lines(skipping / "scorecards.jsonl", [b"not json", *good[:10], b"[]"])
    given = [grid[2], skipping, grid[1], grid[0]]
    shared = run_cli(*given, "--workers", "2", "--outdir", tmp_path / "shared", "--skip-bad-lines")
    alone = run_cli(*given, "--workers", "1", "--outdir", tmp_path / "alone", "--skip-bad-lines")
    assert shared.returncode == alone.returncode == 0, shared.stderr + alone.stderr
    assert shared.stdout.replace(str(tmp_path / "shared"), str(tmp_path / "alone")) == alone.stdout
    assert shared.stderr == alone.stderr and "skipped 2 bad line(s)" in shared.stderr
    assert wrote_lines(shared.stdout) == [f"wrote 6 files to {tmp_path / 'shared' / run.name}" for run in given]
    for run in given:
        assert but_metadata(snapshot(tmp_path / "shared" / run.name)) == but_metadata(snapshot(tmp_path / "alone" / run.name))


def test_a_large_run_between_small_ones_is_decoded_by_the_worker_pool(grid: list[Path], tmp_path: Path) -> None:
    """The small runs are shared among processes, the large one is split across them after
    those are done (and after Polars was loaded here): every file as when aggregated alone,
    the summaries in the order given."""
    big = tmp_path / "big"
    big.mkdir()
    generated = subprocess.run(
        [sys.executable, str(BENCHMARKS / "generate.py"), "--rows", "650", "--out", str(big / "scorecards.jsonl")],
        capture_output=True, text=True, timeout=120,
    )
    assert generated.returncode == 0, generated.stderr
    assert (big / "scorecards.jsonl").stat().st_size > 16 << 20  # two ranges of at least 8 MiB
    given = [grid[0], big, grid[1], grid[2]]
    done = run_cli(*given, "--workers", "2", "--outdir", tmp_path / "all")
    assert done.returncode == 0, done.stderr
    assert wrote_lines(done.stdout) == [f"wrote 6 files to {tmp_path / 'all' / run.name}" for run in given]
    assert json.loads((tmp_path / "all" / "big" / "run_metadata.json").read_text())["workers"] == 2
    for run in given:
        alone = tmp_path / "alone" / run.name
        assert run_cli(run, "--workers", "1", "--outdir", alone, "--quiet").returncode == 0
        assert but_metadata(snapshot(tmp_path / "all" / run.name)) == but_metadata(snapshot(alone))


def test_a_run_whose_process_died_is_named() -> None:
    from concurrent.futures import Future
    from concurrent.futures.process import BrokenProcessPool

    from aggregator.commands.run_outcomes import _collected

    future: Future[object] = Future()
    future.set_exception(BrokenProcessPool("killed"))
    outcome = _collected(future, Path("runs/a"), Path("out/a"))  # type: ignore[arg-type]
    assert outcome.error == "runs/a: the process aggregating it died (out of memory?); retry with --workers 1"


def test_a_closed_stdout_does_not_stop_the_runs(tmp_path: Path) -> None:
    """``aggregate results/*/ | head -1``: the reader is gone before the first line; every run
    is still aggregated and written, nothing is reported as an input error, exit 0."""
    runs = sorted(p for p in RUNS.iterdir() if p.is_dir())
    process = subprocess.Popen(
        [sys.executable, "-m", "aggregator", *map(str, runs), "--outdir", str(tmp_path / "out"),
         "--allow", "ref_unmeasurable"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    stderr = process.stderr.read().decode()
    assert process.wait(timeout=300) == 0, stderr
    assert stderr == ""
    for run in runs:
        parse_outputs(tmp_path / "out" / run.name)


@pytest.mark.parametrize(("args", "message"), [
    (["--bogus", "x"], "aggregate: error: No such option '--bogus' (see 'aggregate --help')"),
    (["run", "--bogus", "x"], "aggregate: error: No such option '--bogus' (see 'aggregate run --help')"),
    (["compare"], "aggregate: error: Missing argument 'RUNS...' (see 'aggregate compare --help')"),
    (["score", "g", "p"], "aggregate: error: Missing option '--format'. Choose from: nikluge, aste, asqp, acos, "
                          "semeval14, semeval16 (see 'aggregate score --help')"),
    (["samples", "x", "--unit", "nope"], "aggregate: error: Invalid value for '--unit': 'nope' is not one of "
                                         "'ref', 'surface', 'attr', 'refpol', 'otepol', 'attrpol' (see 'aggregate samples --help')"),
])
def test_a_usage_error_is_one_line_in_the_error_style(args: list[str], message: str) -> None:
    done = run_cli(*args)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [message]


def test_the_help_a_usage_error_points_to_lists_the_options_of_aggregate_run() -> None:
    done = run_cli("--help")
    assert done.returncode == 0
    options = done.stdout.split("Options of aggregate RUN...:")[1]
    assert "--fail-on-warning" in options and "--profile" in options and "--help" not in options


def test_each_summary_rate_shows_its_count_over_its_denominator(tmp_path: Path) -> None:
    """``fix R (a/b)``: b counts the samples with gold whose transition is fix or still (break: break or
    keep), read here from per_sample.csv; a is the numerator, and R = a / b as printed (N/A when b = 0).
    Every conformance case in one command: each run's summary lines end with the folder it wrote."""
    pattern = re.compile(r"^  (Ref|Surface|Attr)-F1 .*  fix (\S+) \((\d+)/(\d+)\)  break (\S+) \((\d+)/(\d+)\)")
    units = {"Ref": "refpol", "Surface": "otepol", "Attr": "attrpol"}
    done = run_cli(*(CONFORMANCE / case for case in CASES), "--outdir", tmp_path, "--allow", "ref_unmeasurable")
    assert done.returncode == 0, done.stderr
    blocks = re.findall(r"((?:^.*\n)*?)^wrote \d+ files to (.*)$", done.stdout, flags=re.MULTILINE)
    assert sorted(Path(folder).name for _, folder in blocks) == sorted(CASES)
    for text, folder in blocks:
        with (Path(folder) / "per_sample.csv").open(encoding="utf-8") as handle:
            rows = [r for r in csv.DictReader(handle) if r["has_gold"] == "true"]
        lines = [m for m in map(pattern.match, text.splitlines()) if m]
        assert len(lines) == 3, text
        for found in lines:
            transitions = [r[f"{units[found[1]]}_transition"] for r in rows]
            for rate, a, b, good, bad in ((found[2], found[3], found[4], "fix", "still"),
                                          (found[5], found[6], found[7], "break", "keep")):
                assert int(a) == transitions.count(good) and int(b) == transitions.count(good) + transitions.count(bad)
                assert rate == ("N/A" if int(b) == 0 else f"{int(a) / int(b):.4f}"), (folder, found[0])
