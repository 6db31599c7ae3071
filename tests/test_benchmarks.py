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


def test_distinct_copies_have_their_own_sentences_and_the_metrics_of_plain_copies(tmp_path: Path) -> None:
    """``generate.py --distinct``: every copy's sentence is its own, most tuple sets too, and each structural
    metric equals that of the verbatim copies (the renaming keeps every match and substring relation)."""
    import polars as pl

    from aggregator.run.pipeline import evaluate_run

    sys.path.insert(0, str(BENCHMARKS))
    try:
        from generate import DEFAULT_SOURCE, generate, mark
    finally:
        sys.path.remove(str(BENCHMARKS))
    assert [mark(n) for n in (0, 1, 9, 10, 123)] == ["가", "나", "차", "나가", "나다라"]
    plain = evaluate_run(generate(DEFAULT_SOURCE, 400, tmp_path / "plain.jsonl"))
    renamed = evaluate_run(generate(DEFAULT_SOURCE, 400, tmp_path / "distinct.jsonl", distinct_copies=True))
    assert renamed.table.get_column("input_text").n_unique() == 400
    assert plain.table.get_column("input_text").n_unique() == 50
    tuple_sets = ["gold_tuples", "stage1_tuples", "final_tuples"]
    assert renamed.table.select(tuple_sets).n_unique() > 4 * plain.table.select(tuple_sets).n_unique()
    assert renamed.metrics.keys() == plain.metrics.keys()
    for name, value in plain.metrics.items():
        same = value == renamed.metrics[name] or (value != value and renamed.metrics[name] != renamed.metrics[name])
        assert same, (name, value, renamed.metrics[name])
    counts = [c for c in plain.table.columns if plain.table.schema[c] != pl.String and c not in ("sample_key", "line")]
    assert renamed.table.select(counts).equals(plain.table.select(counts))


def test_bench_times_distinct_copies_in_their_own_file(tmp_path: Path) -> None:
    done = run("bench.py", "--rows", "60", "--repeat", "1", "--data-dir", str(tmp_path), "--distinct")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "rows60_distinct.jsonl").read_bytes().count(b"\n") == 60
