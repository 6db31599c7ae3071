"""Benchmark of ``aggregate compare`` on synthetic per-sample tables: 100 runs x 5,000 samples, every column.

Synthetic runs stand in for read scorecards, with every per-sample column of the core and of
every metric family, so that every registry metric is summarised, resampled and contrasted:

- ``--shape real`` (default): sample j stands for one of the 50 samples of the 13 vendored real
  runs (tests/fixtures/runs), the same for every run, and each run takes that sample's row from
  one of the 13 real runs at random: gold is shared by the runs as in a real comparison, the
  predictions and review labels vary, and the columns vary or stay constant as in real runs;
- ``--shape random`` (worst case): the core's counts as before (random but consistent counts, final
  tuple sets from a per-sample pool so seeds partly agree) and every family column random
  (integers 0–2, flags, shares), so that no column is constant.

Each table goes through the core's ``derive`` (random shape) and ``STRUCTURAL.compute`` like a
real run. The timed part is what ``aggregate compare`` does after reading: ``compare_loaded``
(every metric per condition with its interval, contrasts, agreement, flips, self-consistency,
merged table), ``comparison_files`` (CSV, Parquet, Markdown, HTML) and ``write_outputs``.
Reading scorecards is the core's job and benchmarked by ``bench.py``.

    python benchmarks/bench_compare.py                      # 100 runs (20 conditions x 5 seeds), 5,000 samples
    python benchmarks/bench_compare.py --shape random --conditions 10 --seeds 10 --repeat 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from results_file import measured_by, write_section

from aggregator.compare.api import compare_loaded
from aggregator.compare.files import comparison_files
from aggregator.compare.runs import Run, load_runs
from aggregator.metrics.registry import RunContext
from aggregator.metrics.structural import STRUCTURAL
from aggregator.outputs.atomic import write_outputs
from aggregator.run.per_sample import derive
from aggregator.run.sample_values import columns_for, dtype_of

POOL = 4
POLARITIES = ("positive", "negative", "neutral")
FIXTURE_RUNS = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "runs"


def tuple_texts(samples: int) -> list[list[str]]:
    """Per sample, the canonical text of each of the 2**POOL subsets of its tuple pool."""
    texts = []
    for j in range(samples):
        pool = sorted(f'["제품 전체#품질","term{j}-{k}","{POLARITIES[k % 3]}"]' for k in range(POOL))
        texts.append(["[" + ",".join(t for b, t in enumerate(pool) if mask >> b & 1) + "]" for mask in range(1 << POOL)])
    return texts


def synthetic_table(run_id: str, skill: float, texts: list[list[str]], rng: np.random.Generator) -> pl.DataFrame:
    """A per-sample table with every column of every family; ``skill`` is the chance a gold pair is found."""
    n = len(texts)
    gold = rng.integers(1, 4, n)
    values: dict[str, object] = {
        "run_id": [run_id] * n,
        "sample_key": [f"sample-{j:06d}" for j in range(n)],
        "profile": ["paper_main"] * n,
        "has_gold": np.ones(n, dtype=bool),
        "n_gold": gold, "n_gold_explicit": gold, "n_gold_implicit": np.zeros(n, dtype=np.int64),
        "split": ["valid"] * n,
        "stage1_source": ["stage1_tuples"] * n, "final_source": ["final_tuples"] * n,
        "implicit_eligible": np.zeros(n, dtype=bool),
    }
    masks = rng.integers(0, 1 << POOL, n)
    values["final_tuples"] = [texts[j][m] for j, m in enumerate(masks)]
    values["gold_tuples"] = values["stage1_tuples"] = [texts[j][-1] for j in range(n)]
    values["n_s2"] = np.array([bin(m).count("1") for m in masks])
    values["changed"] = rng.random(n) < 0.3
    columns = columns_for(None)
    for column in columns:
        if column.name in values:
            continue
        if column.kind == "int" and column.name.endswith("_tp"):
            values[column.name] = rng.binomial(gold, skill)
        elif column.kind == "int" and column.name.endswith("_fn"):
            values[column.name] = gold - values[column.name[:-3] + "_tp"]
        elif column.kind == "int":
            values[column.name] = rng.integers(0, 3, n)
        elif column.kind == "bool":
            values[column.name] = rng.random(n) < 0.2
        elif column.kind == "float":
            values[column.name] = rng.random(n)
        elif column.kind == "label":  # an Enum's own values, else a few made-up labels
            values[column.name] = rng.choice(column.values or ("label_a", "label_b", "label_c"), n).tolist()
        else:
            values[column.name] = [None] * n
    schema = {c.name: dtype_of(c) for c in columns}
    return derive(pl.DataFrame(values, schema=schema))


def real_shaped_table(run_id: str, pool: pl.DataFrame, keys: np.ndarray, rng: np.random.Generator) -> pl.DataFrame:
    """Sample j is real sample ``keys[j]`` (0 … 49), its row taken from a random one of the 13 real runs."""
    per_key = pool.height // 50
    rows = pool[keys * per_key + rng.integers(0, per_key, len(keys))]
    return rows.with_columns(pl.Series("sample_key", [f"sample-{j:06d}" for j in range(len(keys))]),
                             pl.lit(run_id).alias("run_id")).rechunk()


def synthetic_runs(conditions: int, seeds: int, samples: int, shape: str = "real") -> list[Run]:
    rng = np.random.default_rng(12345)
    texts = tuple_texts(samples) if shape == "random" else []
    pool = pl.concat([r.table for r in load_runs(sorted(FIXTURE_RUNS.iterdir()))]).sort("sample_key", "run_id") \
        if shape == "real" else None
    keys = rng.integers(0, 50, samples)
    runs = []
    for c in range(conditions):
        for s in range(seeds):
            run_id = f"bench_m{c:02d}__seed{s}_proposed"
            if pool is not None:
                table = real_shaped_table(run_id, pool, keys, rng)
            else:
                table = synthetic_table(run_id, 0.4 + 0.2 * c / max(conditions - 1, 1), texts, rng)
            metrics = STRUCTURAL.compute(table, RunContext(all_rows=table))
            runs.append(Run(run_id, f"bench_m{c:02d}", s, Path("synthetic"), table, metrics))
    return runs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--conditions", type=int, default=20)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--samples", type=int, default=5000)
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--shape", choices=("real", "random"), default="real")
    parser.add_argument("--write", action="store_true", help="replace this grid's section of benchmarks/RESULTS.md")
    args = parser.parse_args()
    started = time.perf_counter()
    runs = synthetic_runs(args.conditions, args.seeds, args.samples, args.shape)
    print(f"setup: {len(runs)} synthetic runs ({args.shape} shape, {runs[0].table.width} per-sample columns, "
          f"{len(STRUCTURAL)} metrics) x {args.samples} samples in {time.perf_counter() - started:.1f} s")
    timings: dict[str, list[tuple[float, float]]] = {"compare": [], "files": [], "write": [], "total": []}
    clock = Clock()
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory() as outdir:
            marks = [clock.now()]
            result = compare_loaded(runs, resamples=args.resamples, seed=0)
            marks.append(clock.now())
            files = comparison_files(result)
            marks.append(clock.now())
            write_outputs(outdir, files)
            marks.append(clock.now())
        spans = [Clock.span(a, b) for a, b in zip(marks, marks[1:])] + [Clock.span(marks[0], marks[-1])]
        for key, span in zip(timings, spans):
            timings[key].append(span)
    command = (f"python benchmarks/bench_compare.py --shape {args.shape} --conditions {args.conditions} "
               f"--seeds {args.seeds}")
    out = [
        measured_by(command),
        "",
        f"{len(runs)} runs ({args.conditions} conditions × {args.seeds} seeds, {args.shape} shape) × "
        f"{args.samples:,} samples, every column ({len(STRUCTURAL)} metrics), {args.resamples:,} resamples, "
        f"{args.repeat} repetitions; CPU counts all threads:",
        "",
        "| step | best wall s | median wall s | CPU s |",
        "|---|---:|---:|---:|",
    ]
    for key, values in timings.items():
        wall, cpu = min(v[0] for v in values), min(v[1] for v in values)
        out.append(f"| {key} | {wall:.2f} | {statistics.median(v[0] for v in values):.2f} | {cpu:.2f} |")
    print("\n".join(out))
    if args.write:
        write_section(f"compare {args.shape} {args.conditions}x{args.seeds}", "\n".join(out))


class Clock:
    """Wall and process CPU time together: CPU time shows the work when other processes load the machine."""

    @staticmethod
    def now() -> tuple[float, float]:
        return time.perf_counter(), time.process_time()

    @staticmethod
    def span(start: tuple[float, float], stop: tuple[float, float]) -> tuple[float, float]:
        return stop[0] - start[0], stop[1] - start[1]


if __name__ == "__main__":
    main()
