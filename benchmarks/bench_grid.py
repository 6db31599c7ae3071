"""Benchmark of an experiment grid: many small runs, one ``aggregate`` per run against one ``aggregate RUN...``.

A grid is N copies of the demo run (50 real rows each) in run directories of their own.
Every way writes every run's files to its ``RUN/derived/metrics``; they are timed as
separate processes, interleaved, and the per-run way is the sum of its N commands.
``aggregate RUN...`` is timed as it runs by default (the runs shared among processes, one
per core) and with ``--workers 1`` (one process for all runs).

    python benchmarks/bench_grid.py                    # 13 and 130 runs, 3 repetitions
    python benchmarks/bench_grid.py --runs 13 --repeat 5 --write
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench import PYTHON, SMOKE, measure  # noqa: E402
from generate import DEFAULT_SOURCE  # noqa: E402
from results_file import measured_by, write_section  # noqa: E402

WAYS = ("one command per run", "one command, one process (--workers 1)", "one command (default)")


def make_grid(root: Path, runs: int, source: Path = DEFAULT_SOURCE) -> list[Path]:
    """``runs`` run directories under ``root``, each holding a copy of ``source`` as scorecards.jsonl."""
    directories = []
    for index in range(runs):
        directory = root / f"run{index:04d}"
        directory.mkdir(parents=True)
        shutil.copyfile(source, directory / "scorecards.jsonl")
        directories.append(directory)
    return directories


def time_ways(directories: list[Path], repeat: int) -> dict[str, tuple[list[float], list[float]]]:
    """Wall and CPU seconds of each way, ``repeat`` times, interleaved (after one untimed warm-up of each)."""
    aggregate = [PYTHON, "-m", "aggregator"]
    results: dict[str, tuple[list[float], list[float]]] = {way: ([], []) for way in WAYS}

    def per_run() -> tuple[float, float]:
        timings = [measure([*aggregate, str(d), "--quiet"])[:2] for d in directories]
        return sum(t[0] for t in timings), sum(t[1] for t in timings)

    def together(*options: str) -> Callable[[], tuple[float, float]]:
        return lambda: measure([*aggregate, *map(str, directories), "--quiet", *options])[:2]

    ways = dict(zip(WAYS, (per_run, together("--workers", "1"), together())))
    if not SMOKE:  # one untimed warm-up of each
        for way in ways.values():
            way()
    for _ in range(repeat):
        for name, way in ways.items():
            wall, cpu = way()
            results[name][0].append(wall)
            results[name][1].append(cpu)
    return results


def table(runs: int, results: dict[str, tuple[list[float], list[float]]]) -> str:
    per_run_median = statistics.median(results[WAYS[0]][0])
    lines = [
        f"### {runs} runs of 50 rows",
        "",
        "| way | repetitions | best s | median s | median CPU s | ms per run | speed-up |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, (walls, cpus) in results.items():
        median = statistics.median(walls)
        lines.append(
            f"| {name} | {len(walls)} | {min(walls):.2f} | {median:.2f} | {statistics.median(cpus):.2f} "
            f"| {1000 * median / runs:.0f} | {per_run_median / median:.1f}× |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, nargs="+", default=[13, 130])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--write", action="store_true", help="write the grid section of benchmarks/RESULTS.md")
    args = parser.parse_args()
    sections = []
    for runs in args.runs:
        with tempfile.TemporaryDirectory() as tmp:
            results = time_ways(make_grid(Path(tmp), runs), args.repeat)
        sections.append(table(runs, results))
        print(sections[-1], flush=True)
    if args.write:
        command = f"python benchmarks/bench_grid.py --runs {' '.join(map(str, args.runs))} --repeat {args.repeat}"
        write_section("grid", "\n".join([measured_by(command), "", *sections]))


if __name__ == "__main__":
    main()
