"""The output set is all or nothing, and never an input: hostile output directories (issue #17, items 1, 2, 8).

A failure at any rename (a directory in an output's place, a locked file) puts every previous
output back byte-identical and leaves no new file and no temporary file, for ``aggregate RUN``
and for ``aggregate compare``. An input whose path is an output's (also through a symbolic or a
hard link) is refused before anything is written. The stale-temp clean-up removes only the
names it makes itself.
"""

from __future__ import annotations

import errno
import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

import aggregator.outputs.atomic as atomic
from aggregator import aggregate_run
from aggregator.outputs.atomic import OutputError, write_outputs
from tests.conftest import RUNS, run_cli
from tests.outcomes import ERROR_PREFIX, OUTPUT_NAMES, snapshot

OLD_RUN, NEW_RUN = RUNS / "cr_n50_m0_v2__seed42", RUNS / "cr_n50_m2_v2__seed42"
COMPARED = [RUNS / "cr_n50_m0_v2__seed42", RUNS / "cr_n50_m1_v2__seed42"]


def tree(directory: Path) -> dict[str, bytes | None]:
    """Every entry of ``directory``: a file's bytes, None for a directory."""
    return {p.name: None if p.is_dir() else p.read_bytes() for p in directory.iterdir()}


@pytest.fixture
def previous(tmp_path: Path) -> Path:
    """An output directory holding a complete earlier aggregation."""
    outdir = tmp_path / "out"
    assert run_cli(OLD_RUN, "--outdir", outdir, "--quiet").returncode == 0
    return outdir


def one_error_line(done: Any) -> str:
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(ERROR_PREFIX), done.stderr
    return lines[0]


@pytest.mark.parametrize("blocked", sorted(OUTPUT_NAMES))
def test_a_directory_in_an_outputs_place_changes_no_output(previous: Path, blocked: str) -> None:
    """Before the fix the outputs renamed before the blocked one were already replaced."""
    (previous / blocked).unlink()
    (previous / blocked).mkdir()
    before = tree(previous)
    line = one_error_line(run_cli(NEW_RUN, "--outdir", previous, "--quiet"))
    assert f"{blocked} is a directory" in line and "move it away" in line
    assert tree(previous) == before


def test_a_directory_in_place_of_the_comparison_report_changes_no_output(tmp_path: Path) -> None:
    outdir = tmp_path / "comparison"
    assert run_cli("compare", *COMPARED, "--outdir", outdir, "--resamples", "20", "-q").returncode == 0
    (outdir / "comparison_report.html").unlink()
    (outdir / "comparison_report.html").mkdir()
    before = tree(outdir)
    one_error_line(run_cli("compare", *COMPARED, "--outdir", outdir, "--resamples", "30", "--seed", "1", "-q"))
    assert tree(outdir) == before


def fail_rename(monkeypatch: pytest.MonkeyPatch, at: int) -> None:
    """The ``at``-th rename of a staged file into place fails, as for a file held open on Windows."""
    real = os.replace
    calls: list[object] = []

    def replace(src: Any, dst: Any) -> None:
        if Path(src).name.endswith(".tmp") and not Path(dst).name.endswith(".tmp"):
            calls.append(dst)
            if len(calls) == at + 1:
                raise PermissionError(errno.EACCES, "The process cannot access the file", str(dst))
        real(src, dst)

    monkeypatch.setattr(atomic.os, "replace", replace)


@pytest.mark.parametrize("at", range(len(OUTPUT_NAMES)))
@pytest.mark.parametrize("earlier", [True, False], ids=["over previous outputs", "into an empty directory"])
def test_a_failing_rename_puts_every_previous_output_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, at: int, earlier: bool
) -> None:
    outdir = tmp_path / "out"
    outdir.mkdir()
    if earlier:
        aggregate_run(OLD_RUN, outdir=outdir, workers=1)
    before = snapshot(outdir)
    fail_rename(monkeypatch, at)
    with pytest.raises(OutputError, match="cannot write outputs"):
        aggregate_run(NEW_RUN, outdir=outdir, workers=1)
    assert snapshot(outdir) == before  # byte-identical, no new file, no temporary file


def test_a_failure_while_putting_back_keeps_the_previous_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """If a previous output cannot be put back either, it stays under its temporary name, not lost."""
    outdir = tmp_path / "out"
    aggregate_run(OLD_RUN, outdir=outdir, workers=1)
    before = snapshot(outdir)
    real = os.replace
    done: list[object] = []
    refused: list[object] = []

    def replace(src: Any, dst: Any) -> None:
        if refused or len(done) == 3:  # the fourth rename fails, and so does every one after it
            refused.append(dst)
            raise PermissionError(errno.EACCES, "locked", str(dst))
        done.append(dst)
        real(src, dst)

    monkeypatch.setattr(atomic.os, "replace", replace)
    with pytest.raises(OutputError):
        write_outputs(outdir, {name: b"new" for name in before})
    assert set(before.values()) <= set(snapshot(outdir).values())


def scorecards_copy(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(OLD_RUN / "scorecards.jsonl", path)
    return path


@pytest.mark.parametrize("link", ["same path", "symbolic link", "hard link"])
def test_an_output_that_is_the_input_is_refused(tmp_path: Path, link: str) -> None:
    """``aggregate d/per_sample.csv --outdir d`` replaced its own input before the fix."""
    outdir = tmp_path / "d"
    real = scorecards_copy(outdir / "per_sample.csv")
    given = real
    if link == "symbolic link":
        given = tmp_path / "given.jsonl"
        given.symlink_to(real)
    elif link == "hard link":
        given = tmp_path / "given.jsonl"
        os.link(real, given)
    data = real.read_bytes()
    line = one_error_line(run_cli(given, "--outdir", outdir, "--quiet"))
    assert f"{outdir / 'per_sample.csv'}: is the input" in line and "choose another directory" in line
    assert real.read_bytes() == data and sorted(p.name for p in outdir.iterdir()) == ["per_sample.csv"]
    with pytest.raises(OutputError, match="is the input"):
        aggregate_run(given, outdir=outdir)
    assert real.read_bytes() == data


def test_an_output_of_one_run_that_is_the_input_of_another_is_refused_before_reading(tmp_path: Path) -> None:
    first = scorecards_copy(tmp_path / "a" / "scorecards.jsonl")
    second = scorecards_copy(tmp_path / "out" / "a" / "report.html")
    line = one_error_line(run_cli(first, second, "--outdir", tmp_path / "out", "--quiet"))
    assert "is the input" in line
    assert not (tmp_path / "a" / "derived").exists()
    assert sorted(p.name for p in (tmp_path / "out" / "a").iterdir()) == ["report.html"]


def test_a_comparison_output_that_is_an_input_is_refused(tmp_path: Path) -> None:
    outdir = tmp_path / "comparison"
    merged = scorecards_copy(outdir / "runs.csv")
    data = merged.read_bytes()
    line = one_error_line(run_cli("compare", merged, COMPARED[1], "--outdir", outdir, "--resamples", "20"))
    assert f"{merged}: is the input" in line
    assert merged.read_bytes() == data and [p.name for p in outdir.iterdir()] == ["runs.csv"]


def test_stale_temps_are_only_names_the_writer_makes(tmp_path: Path) -> None:
    """The glob ``.NAME.*.tmp`` also matched a user's ``.report.html.my-backup.tmp``."""
    own = tmp_path / ".report.html.k1l2m3n_.tmp"
    users = [tmp_path / ".report.html.my-backup.tmp", tmp_path / ".report.html.a.b.c.d.tmp",
             tmp_path / ".report.html.ABCDEFGH.tmp", tmp_path / ".report.html.abcdefghi.tmp"]
    hour_ago = time.time() - 3600
    for path in [own, *users]:
        path.write_bytes(b"kept by the user")
        os.utime(path, (hour_ago, hour_ago))
    write_outputs(tmp_path, {"report.html": b"new"})
    assert not own.exists()
    assert all(path.read_bytes() == b"kept by the user" for path in users)


def test_a_previous_output_that_is_a_symbolic_link_is_put_back_as_the_link(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "elsewhere.csv"
    target.write_bytes(b"user data")
    outdir = tmp_path / "out"
    outdir.mkdir()
    (outdir / "a.csv").symlink_to(target)
    fail_rename(monkeypatch, 1)
    with pytest.raises(OutputError):
        write_outputs(outdir, {"a.csv": b"new", "b.csv": b"new"})
    assert (outdir / "a.csv").is_symlink() and target.read_bytes() == b"user data"
    assert sorted(p.name for p in outdir.iterdir()) == ["a.csv"]
