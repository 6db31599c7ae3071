"""Hostile inputs at scale (issue #25): CPU seconds and peak RSS of the process tree of each command,
its exit status and the first line of its stderr, against the issue's limits.

- a zstd bomb: ``--bomb-mb`` MB of real rows (the demo run replicated with fresh sample keys,
  ``benchmarks/generate.py``) in a small ``.zst``, and the same rows as ``.gz``: at most 1 GB;
- one line of ``--line-mb`` MB in a plain file (no newline) and of twice that in a small ``.gz``:
  one error line within 60 s and 1.5 GB;
- ``--blank-lines`` (100 M) blank lines and one row in a small ``.gz``;
- ``aggregate score`` of one sentence of 50,000 ASTE triplets (every scorer) and of 20,000 NIKLuge
  annotations: at most 2 s;
- ``aggregate compare --each-run`` of ``--runs`` tiny runs: comparison_report.html and comparison.md at
  most 25 MB.

The machine is shared with other work, so CPU seconds (user + system of the command and the
processes it waited for) are the numbers to compare; wall seconds are given too.

    python benchmarks/bench_hostile.py                   # all of it (generates about 3 GB in --data-dir)
    python benchmarks/bench_hostile.py --only score compare --write
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench import PYTHON, _tree_rss_kb, mib  # noqa: E402
from generate import DEFAULT_SOURCE, replicated  # noqa: E402
from results_file import measured_by, write_section  # noqa: E402

ROW_BYTES = 28_000
LIMITS = {"bomb": (None, 1000), "line": (60.0, 1500), "blank": (None, None), "score": (2.0, None),
          "compare": (None, None)}


def run(argv: list[str]) -> dict[str, object]:
    """Run ``argv``; wall and CPU seconds, peak RSS of its process tree (sampled every 10 ms), exit status, stderr."""
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        peak = max(peak, _tree_rss_kb(process.pid))
        time.sleep(0.01)
    stderr = process.stderr.read().decode() if process.stderr else ""
    return {"wall": time.perf_counter() - started, "cpu": usage.ru_utime + usage.ru_stime, "mb": peak / 1024,
            "exit": os.waitstatus_to_exitcode(status), "stderr": stderr.strip().splitlines()[:1]}


def _write(path: Path, chunks: Iterator[bytes], compress: str | None = None) -> Path:
    if path.exists():
        return path
    partial = path.with_name(path.name + ".partial")
    if compress == "gz":
        with gzip.open(partial, "wb", compresslevel=1) as handle:
            handle.writelines(chunks)
    elif compress == "zst":
        import zstandard

        params = zstandard.ZstdCompressionParameters.from_level(3, window_log=24, enable_ldm=True)
        with open(partial, "wb") as raw, zstandard.ZstdCompressor(compression_params=params).stream_writer(raw) as out:
            for chunk in chunks:
                out.write(chunk)
    else:
        with open(partial, "wb") as handle:
            handle.writelines(chunks)
    partial.replace(path)
    return path


def _one_line(megabytes: int) -> Iterator[bytes]:
    block = b"0," * (1 << 19)
    yield b"["
    for _ in range(megabytes):
        yield block
    yield b"0]"


def _blank(lines: int) -> Iterator[bytes]:
    for start in range(0, lines, 1_000_000):
        yield b"\n" * min(1_000_000, lines - start)
    yield next(replicated(DEFAULT_SOURCE, 1))


def inputs(data: Path, bomb_mb: int, line_mb: int, blank: int) -> dict[str, list[str]]:
    """The aggregate commands of the reading cases, their inputs made when missing."""
    rows = bomb_mb * 1_000_000 // ROW_BYTES
    made = {
        f"zstd bomb: {bomb_mb:,} MB of rows": _write(data / f"bomb{bomb_mb}.jsonl.zst", replicated(DEFAULT_SOURCE, rows), "zst"),
        "the same rows as .gz": _write(data / f"bomb{bomb_mb}.jsonl.gz", replicated(DEFAULT_SOURCE, rows), "gz"),
        f"one line of {line_mb:,} MB, plain": _write(data / f"line{line_mb}.jsonl", _one_line(line_mb)),
        f"one line of {2 * line_mb:,} MB in a .gz": _write(data / f"line{2 * line_mb}.jsonl.gz", _one_line(2 * line_mb), "gz"),
        f"{blank:,} blank lines and a row, .gz": _write(data / f"blank{blank}.jsonl.gz", _blank(blank), "gz"),
    }
    return {label: [PYTHON, "-m", "aggregator", str(path), "--outdir", str(data / "out"), "--quiet"]
            for label, path in made.items()}


def score_inputs(data: Path) -> dict[str, list[str]]:
    """``aggregate score`` of 50,000 triplets in one ASTE sentence (each scorer) and 20,000 NIKLuge annotations."""
    rng = random.Random(1)
    tokens = " ".join(f"w{i}" for i in range(60))

    def triplet() -> tuple[list[int], list[int], str]:
        start = rng.randrange(58)
        return [start, start + 1], [rng.randrange(58)], rng.choice(("POS", "NEG", "NEU"))

    gold = [triplet() for _ in range(50_000)]
    aste = (_write(data / "aste50k_gold.txt", iter([f"{tokens}####{gold!r}\n".encode()])),
            _write(data / "aste50k_pred.txt", iter([f"{tokens}####{gold[:25_000] + [triplet() for _ in range(25_000)]!r}\n".encode()])))
    categories = ("본품#품질", "제품 전체#일반", "패키지/구성품#디자인", "브랜드#인지도", "본품#일반")
    notes = [[rng.choice(categories), [None, 0, 0], rng.choice(("positive", "negative", "neutral"))] for _ in range(20_000)]
    predicted = [[c, p] for c, _, p in notes[:10_000]] + [[rng.choice(categories), "positive"] for _ in range(10_000)]
    nikluge = tuple(_write(data / f"nikluge20k_{name}.jsonl", iter([json.dumps(
        {"id": "s1", "sentence_form": "문장", "annotation": annotations}, ensure_ascii=False).encode() + b"\n"]))
        for name, annotations in (("gold", notes), ("pred", predicted)))
    commands = {f"50,000 ASTE triplets, --compat {compat}": [PYTHON, "-m", "aggregator", "score", *map(str, aste),
                                                             "--format", "aste", "--compat", compat, "-q"]
                for compat in ("official", "aste-gts", "aste-gas", "aste-gas-fixed")}
    commands["20,000 NIKLuge annotations"] = [PYTHON, "-m", "aggregator", "score", *map(str, nikluge), "--format",
                                              "nikluge", "-q"]
    return commands


def compare_input(data: Path, runs: int, samples: int = 20) -> Path:
    """One file holding ``runs`` tiny runs of ``samples`` samples (a run id each)."""
    rng = random.Random(0)
    refs = ("본품#품질", "제품 전체#일반", "패키지/구성품#디자인")

    def rows() -> Iterator[bytes]:
        for r in range(runs):
            for j in range(samples):
                gold = [{"aspect_ref": refs[j % 3], "aspect_term": f"t{j}", "polarity": "positive"}]
                final = gold if rng.random() < 0.6 else [{**gold[0], "aspect_ref": refs[(j + 1) % 3]}]
                yield json.dumps({"run_id": f"cond{r:04d}__seed{r}", "meta": {"text_id": f"k{j}"}, "gold_tuples": gold,
                                  "runtime": {"parsed_output": {"final_result": {"final_tuples": final}}}}).encode() + b"\n"

    return _write(data / f"runs{runs}.jsonl", rows())


def line(label: str, result: dict[str, object], limit: tuple[float | None, float | None], extra: str = "",
         hide: Path | None = None) -> str:
    """A table row; ``hide``: the data directory, left out of the error line (no path of this machine in RESULTS.md)."""
    seconds, megabytes = limit
    most = mib(megabytes) if megabytes else None
    verdicts = [f"{'met' if result['cpu'] <= seconds else 'NOT met'} (≤ {seconds:g} s)" if seconds else "",  # type: ignore[operator]
                f"{'met' if result['mb'] <= most else 'NOT met'} (≤ {megabytes:,} MB = {most:,.0f} MiB)"  # type: ignore[operator]
                if most is not None else ""]
    said = f" `{result['stderr'][0][:150]}`" if result["stderr"] else ""  # type: ignore[index]
    said = said.replace(f"{hide}/", "") if hide is not None else said
    return (f"| {label} | {result['cpu']:.2f} | {result['wall']:.2f} | {result['mb']:,.0f} | {result['exit']}{said} | "
            f"{' '.join(v for v in verdicts if v) or extra} |")


def section(title: str, rows: list[str]) -> list[str]:
    return [f"### {title}", "", "| case | CPU s | wall s | peak RSS MiB | exit, first stderr line | limit |",
            "|---|---:|---:|---:|---|---|", *rows, ""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bomb-mb", type=int, default=2000)
    parser.add_argument("--line-mb", type=int, default=1000)
    parser.add_argument("--blank-lines", type=int, default=100_000_000)
    parser.add_argument("--runs", type=int, default=1000)
    parser.add_argument("--only", nargs="*", choices=("read", "score", "compare"), default=("read", "score", "compare"))
    parser.add_argument("--data-dir", type=Path, default=HERE / "data")
    parser.add_argument("--write", action="store_true", help="write the hostile section of benchmarks/RESULTS.md")
    args = parser.parse_args()
    args.data_dir.mkdir(parents=True, exist_ok=True)
    text: list[str] = []

    def report(lines: list[str]) -> None:
        text.extend(lines)
        print("\n".join(lines), flush=True)

    if "read" in args.only:
        limits = [LIMITS["bomb"], LIMITS["bomb"], LIMITS["line"], LIMITS["line"], LIMITS["blank"]]
        commands = inputs(args.data_dir, args.bomb_mb, args.line_mb, args.blank_lines)
        report(section("Reading", [line(label, run(argv), limit, hide=args.data_dir)
                                   for (label, argv), limit in zip(commands.items(), limits)]))
    if "score" in args.only:
        report(section("Scoring one long sentence", [line(label, run(argv), LIMITS["score"])
                                                     for label, argv in score_inputs(args.data_dir).items()]))
    if "compare" in args.only:
        merged = compare_input(args.data_dir, args.runs)
        with tempfile.TemporaryDirectory() as tmp:
            result = run([PYTHON, "-m", "aggregator", "compare", str(merged), "--each-run", "--resamples", "200",
                          "--outdir", tmp, "-q"])
            sizes = {name: (Path(tmp) / name).stat().st_size / 1e6 for name in ("comparison_report.html", "comparison.md")
                     if (Path(tmp) / name).exists()}
        shown = ", ".join(f"{name} {size:,.1f} MB" for name, size in sizes.items())
        verdict = "met" if sizes and max(sizes.values()) <= 25 else "NOT met"
        report(section(f"compare --each-run of {args.runs:,} runs", [line(shown, result, LIMITS["compare"],
                                                                          f"{verdict} (≤ 25 MB)")]))
    if args.write:
        command = f"python benchmarks/bench_hostile.py --bomb-mb {args.bomb_mb} --line-mb {args.line_mb} --runs {args.runs}"
        write_section("hostile", "\n".join([measured_by(command), "", *text]))


if __name__ == "__main__":
    main()
