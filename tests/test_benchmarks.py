"""The benchmark commands run (on tiny inputs): their numbers are for benchmarks/RESULTS.md, not for tests."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


def run(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    """The script, without the untimed warm-up runs (``BENCH_SMOKE``): its numbers are not kept."""
    return subprocess.run([sys.executable, str(BENCHMARKS / script), *args], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "BENCH_SMOKE": "1"})


def test_bench_runs_on_a_small_generated_input(tmp_path: Path) -> None:
    done = run("bench.py", "--rows", "120", "--repeat", "1", "--data-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "| aggregate | 1 |" in done.stdout
    assert "floor: typed partial decode (1 core)" in done.stdout
    assert (tmp_path / "rows120.jsonl").read_bytes().count(b"\n") == 120


def test_bench_compare_runs_on_a_small_synthetic_grid() -> None:
    done = run("bench_compare.py", "--conditions", "2", "--seeds", "2", "--samples", "60", "--resamples", "50",
               "--repeat", "1")
    assert done.returncode == 0, done.stderr
    assert "total" in done.stdout


def test_bench_grid_runs_on_a_small_grid() -> None:
    done = run("bench_grid.py", "--runs", "2", "--repeat", "1")
    assert done.returncode == 0, done.stderr
    for way in ("one command per run", "one command, one process (--workers 1)", "one command (default)"):
        assert f"| {way} | 1 |" in done.stdout, done.stdout


def test_scanners_runs_on_a_small_generated_input(tmp_path: Path) -> None:
    done = run("scanners.py", "--rows", "60", "--repeat", "1", "--data-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "| msgspec Row + UTF-8 blocks (reader) |" in done.stdout and "| json loads |" in done.stdout


def test_each_script_rewrites_only_its_section_of_results(tmp_path: Path) -> None:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        from results_file import write_section
    finally:
        sys.path.remove(str(BENCHMARKS))
    results = tmp_path / "RESULTS.md"
    results.write_text("# Results\n\nanalysis written by hand\n")
    write_section("bench", "first table", results)
    write_section("scanners", "scanner table", results)
    write_section("bench", "second table", results)
    text = results.read_text()
    assert text.startswith("# Results\n\nanalysis written by hand\n")
    assert "first table" not in text and text.count("second table") == 1 and "scanner table" in text
    assert text.index("second table") < text.index("scanner table")


def test_bench_score_runs_on_small_inputs() -> None:
    done = run("bench_score.py", "--sentences", "40", "--repeat", "1")
    assert done.returncode == 0, done.stderr
    for row in ("| acos | official | --outdir | 1 |", "| aste | aste-gas-fixed | --json | 1 |", "| semeval14 |"):
        assert row in done.stdout, done.stdout


def test_bench_families_runs_on_a_small_generated_input(tmp_path: Path) -> None:
    done = run("bench_families.py", "--rows", "60", "--repeat", "1", "--data-dir", str(tmp_path),
               "--families", "conflict")
    assert done.returncode == 0, done.stderr
    assert "| core only | 1 |" in done.stdout and "| all families | 1 |" in done.stdout
    assert "| core + conflict | 1 |" in done.stdout and "Decode floor of every field read" in done.stdout
    assert "| core + errors |" not in done.stdout


def test_bench_families_share_measures_one_family_against_all_but_it(tmp_path: Path) -> None:
    done = run("bench_families.py", "--rows", "60", "--repeat", "1", "--data-dir", str(tmp_path), "--share", "errors")
    assert done.returncode == 0, done.stderr
    assert "| all families | 1 |" in done.stdout and "| all but errors | 1 |" in done.stdout
    assert re.search(r"Share of the run's CPU: \(\d+\.\d{3} − \d+\.\d{3}\) / \d+\.\d{3} = -?\d+\.\d%", done.stdout)
    wrong = run("bench_families.py", "--rows", "60", "--data-dir", str(tmp_path), "--share", "nosuch")
    assert wrong.returncode == 2 and "nosuch: not a metric family" in wrong.stderr


def test_bench_scale_runs_on_small_inputs(tmp_path: Path) -> None:
    done = run("bench_scale.py", "--rows", "300", "--term-mb", "1", "--repeat", "1", "--data-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "### 300 tiny rows" in done.stdout and "### one aspect term of 1 MB" in done.stdout
    assert "report.html" in done.stdout and "peak RSS of the process tree" in done.stdout


def test_bench_hostile_runs_on_small_inputs(tmp_path: Path) -> None:
    done = run("bench_hostile.py", "--bomb-mb", "1", "--line-mb", "1", "--blank-lines", "1000", "--runs", "14",
               "--only", "read", "compare", "--data-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "| zstd bomb: 1 MB of rows |" in done.stdout and "longer than the limit" not in done.stdout
    assert "| 1,000 blank lines and a row, .gz |" in done.stdout and "compare --each-run of 14 runs" in done.stdout
    assert str(tmp_path) not in done.stdout


def test_bench_legacy_runs_on_a_small_generated_input(tmp_path: Path) -> None:
    done = run("bench_legacy.py", "--rows", "60", "--repeat", "1", "--data-dir", str(tmp_path))
    assert done.returncode == 0, done.stderr
    assert "| aggregate RUN | 1 |" in done.stdout and "| aggregate legacy (full) | 1 |" in done.stdout
