"""``aggregate compare`` a second time: runs read from what ``aggregate RUN`` wrote (issue 27).

Writes ``--conditions`` × ``--seeds`` real-shaped runs of ``--rows`` rows on disk (sample j of every
run is one of the 50 samples of the 13 vendored runs, its row taken from a random one of them, as in
``bench_compare.py --shape real``; each row keeps its ~28 KB of traces, its key made unique and its
run id renamed), aggregates them once (``aggregate DIR/*/``; skipped with ``--keep`` data every run of
which this code can already reuse), then times as separate processes:

- ``aggregate compare RUNS --outdir OUT --quiet`` (every run reused), end to end, CPU of the process tree;
- with ``--no-cache-too``, the same with ``--no-cache`` (every run decoded again; slow at full size);

and, in this process, :func:`~aggregator.compare.runs.load_runs` alone (the time spent reading the
runs: hashing each input, reading its Parquet table and metrics) and the SHA-256 of every input alone.

    python benchmarks/bench_compare_reuse.py --conditions 20 --seeds 5 --rows 5000 --write
    python benchmarks/bench_compare_reuse.py --conditions 4 --seeds 5 --rows 500 --repeat 1
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

import msgspec  # noqa: E402
from bench import PYTHON, measure  # noqa: E402
from generate import _Row  # noqa: E402
from results_file import measured_by, write_section  # noqa: E402

FIXTURE_RUNS = ROOT / "tests" / "fixtures" / "runs"


def source_rows() -> dict[str, list[tuple[bytes, str, str]]]:
    """Per sample key of the vendored runs, its rows: (line, key, run id stem)."""
    rows: dict[str, list[tuple[bytes, str, str]]] = {}
    for run in sorted(FIXTURE_RUNS.iterdir()):
        stem = run.name  # e.g. cr_n50_m1_v2__seed42; the run ids are this plus _proposed
        for line in (run / "scorecards.jsonl").read_bytes().splitlines():
            if line.strip():
                key = msgspec.json.decode(line, type=_Row).meta.text_id
                rows.setdefault(key, []).append((line, key, stem))
    return rows


def write_runs(root: Path, conditions: int, seeds: int, rows: int) -> list[Path]:
    """The runs' directories (written unless present with the same shape)."""
    pool = source_rows()
    keys = sorted(pool)
    rng = np.random.default_rng(12345)
    picks = rng.integers(0, len(keys), rows)
    runs = []
    for c in range(conditions):
        for s in range(seeds):
            run = root / f"bench_m{c:03d}__seed{s}"
            runs.append(run)
            target = run / "scorecards.jsonl"
            if target.exists():
                continue
            run.mkdir(parents=True, exist_ok=True)
            part = target.with_suffix(".part")
            with open(part, "wb") as handle:
                for j, k in enumerate(picks):
                    line, key, stem = pool[keys[k]][rng.integers(0, len(pool[keys[k]]))]
                    line = line.replace(f'"{key}"'.encode(), f'"{key}-s{j}"'.encode())
                    handle.write(line.replace(stem.encode(), run.name.encode()) + b"\n")
            part.replace(target)
    return runs


def timed(label: str, fn, repeat: int) -> tuple[str, list[float], list[float]]:  # type: ignore[no-untyped-def]
    walls, cpus = [], []
    for _ in range(repeat):
        started, cpu = time.perf_counter(), time.process_time()
        fn()
        walls.append(time.perf_counter() - started)
        cpus.append(time.process_time() - cpu)
    return label, walls, cpus


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conditions", type=int, default=20)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-cache-too", action="store_true", help="also time a comparison that decodes every run")
    parser.add_argument("--data-dir", type=Path, default=HERE / "data" / "reuse")
    parser.add_argument("--keep", action="store_true", help="keep the generated runs for the next call")
    parser.add_argument("--reaggregate", action="store_true", help="aggregate the runs even when all are reusable")
    parser.add_argument("--write", action="store_true", help="write the compare reuse section of RESULTS.md")
    args = parser.parse_args()

    from aggregator.compare.reuse import file_blake3
    from aggregator.compare.runs import load_runs

    root = args.data_dir / f"{args.conditions}x{args.seeds}x{args.rows}"
    started = time.perf_counter()
    runs = write_runs(root, args.conditions, args.seeds, args.rows)
    size = sum((r / "scorecards.jsonl").stat().st_size for r in runs) / 1e9
    print(f"{len(runs)} runs x {args.rows} rows, {size:.1f} GB, written in {time.perf_counter() - started:.0f} s",
          flush=True)
    from aggregator.compare.reuse import reused_runs

    if args.reaggregate or not all(reused_runs(runs)):
        aggregate = [PYTHON, "-m", "aggregator", *map(str, runs), "--quiet"]
        setup_wall, setup_cpu, _, _ = measure(aggregate)
        print(f"aggregate (once, every run): {setup_wall:.1f} s, {setup_cpu:.1f} CPU-s", flush=True)
    else:
        setup_wall = setup_cpu = float("nan")
        print("every run already aggregated by this code: not aggregated again", flush=True)

    rows: list[tuple[str, list[float], list[float]]] = []
    with tempfile.TemporaryDirectory() as out:
        compare = [PYTHON, "-m", "aggregator", "compare", *map(str, runs), "--outdir", out, "--quiet",
                   "--resamples", str(args.resamples)]
        commands = {"aggregate compare (runs reused)": compare}
        if args.no_cache_too:
            commands["aggregate compare --no-cache (runs decoded)"] = [*compare, "--no-cache"]
        for label, argv in commands.items():
            walls, cpus = [], []
            for _ in range(args.repeat if "reused" in label else 1):
                wall, cpu, _, _ = measure(argv)
                walls.append(wall)
                cpus.append(cpu)
            rows.append((label, walls, cpus))
            print(label, f"{statistics.median(walls):.2f} s", flush=True)
    loaded: list[object] = []
    rows.append(timed("reading the runs (load_runs, every run reused)",
                      lambda: loaded.append(sum(r.reused for r in load_runs(runs))), args.repeat))
    rows.append(timed("of which: BLAKE3 of every input (one thread)",
                      lambda: [file_blake3(r / "scorecards.jsonl") for r in runs], args.repeat))
    if loaded and loaded[-1] != len(runs):
        raise SystemExit(f"only {loaded[-1]} of {len(runs)} runs were reused")

    command = (f"python benchmarks/bench_compare_reuse.py --conditions {args.conditions} --seeds {args.seeds} "
               f"--rows {args.rows} --repeat {args.repeat}" + (" --no-cache-too" if args.no_cache_too else ""))
    lines = [
        measured_by(command),
        "",
        f"{len(runs)} runs ({args.conditions} conditions × {args.seeds} seeds, real shape) × {args.rows:,} rows "
        f"({size:.1f} GB of scorecards), every run aggregated once before "
        f"({'by an earlier call' if setup_wall != setup_wall else f'{setup_wall:.0f} s, {setup_cpu:.0f} CPU-s'}), "
        f"{args.resamples:,} resamples; CPU counts the process tree (the reading rows: this process):",
        "",
        "| what | runs | best wall s | median wall s | median CPU s |",
        "|---|---:|---:|---:|---:|",
    ]
    for label, walls, cpus in rows:
        lines.append(f"| {label} | {len(walls)} | {min(walls):.2f} | {statistics.median(walls):.2f} "
                     f"| {statistics.median(cpus):.2f} |")
    text = "\n".join(lines)
    print(text)
    if args.write:
        write_section(f"compare reuse {args.conditions}x{args.seeds}x{args.rows}", text)
    if not args.keep:
        shutil.rmtree(root)


if __name__ == "__main__":
    main()
