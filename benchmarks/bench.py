"""End-to-end benchmark of ``aggregate`` against its floors, side by side in one session.

For each input size it generates a real-shaped file (see ``generate.py``), then times,
as separate processes and interleaved so machine load hits all alike:

- ``aggregate FILE`` end to end, every metric family (interpreter start, imports, decode,
  metrics, writing); the same with ``--families core`` (the core columns only) and with
  ``--workers 1`` (the serial path);
- floors: interpreter start, ``import polars``, reading the bytes, a bare msgspec typed
  partial decode of the fields the core reads, and the typed decode of every field read by
  the core and all families (the project's merged decoder); each on one core;
- optionally a reference command (``--reference 'python3 path/to/script.py --input {input} --outdir {outdir}'``).

Peak memory is the largest resident set of the process tree, sampled every 5 ms from /proc
in an untimed warm-up run (``tree``; the reference is sampled in its timed run), next to the
kernel's ru_maxrss of the largest single process (``single``), both in MiB (2**20 bytes; file
sizes and MB/s are in MB, 10**6 bytes). Timed runs do not sample.
Results are printed and, with ``--write``, replace the ``bench`` section of ``benchmarks/RESULTS.md``.

    python benchmarks/bench.py --rows 5000 --repeat 5
    python benchmarks/bench.py --rows 5000 50000 --repeat 3 --reference '...' --write
    python benchmarks/bench.py --rows 5000 --distinct   # copies with their own sentences and terms (generate.py)
"""

from __future__ import annotations

import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from generate import DEFAULT_SOURCE, generate  # noqa: E402
from results_file import measured_by, write_section  # noqa: E402

PYTHON = sys.executable

DECODE_FLOOR = r"""
import sys, msgspec
from typing import Any
class Item(msgspec.Struct):
    aspect_ref: Any = None; term: Any = None; aspect_term: Any = None; opinion_term: Any = None
    polarity: Any = None; label: Any = None; is_implicit: Any = None
class FR(msgspec.Struct):
    stage1_tuples: list[Item] | None = None; final_tuples: list[Item] | None = None
    final_aspects: list[Item] | None = None
class PO(msgspec.Struct):
    final_result: FR | None = None
class RT(msgspec.Struct):
    uid: Any = None; parsed_output: PO | None = None
class IN(msgspec.Struct):
    gold_tuples: list[Item] | None = None; aspect_sentiments: list[Item] | None = None
class ME(msgspec.Struct):
    text_id: Any = None; run_id: Any = None; profile: Any = None
class Row(msgspec.Struct):
    run_id: Any = None; meta: ME | None = None; inputs: IN | None = None; runtime: RT | None = None
dec = msgspec.json.Decoder(Row)
n = 0
with open(sys.argv[1], "rb") as f:
    for line in f:
        if line.strip():
            dec.decode(line); n += 1
"""
ALL_FIELDS_FLOOR = r"""
import sys
from aggregator.deferred_import import defer
defer("polars")  # the decoder needs none of it
from aggregator.run.sample_values import decoder_for
decode = decoder_for(None).decode
if sys.argv[2:] != ["imports"]:  # "imports": the same process without the loop
    with open(sys.argv[1], "rb") as f:
        for line in f:
            if line.strip():
                decode(line)
"""
READ_FLOOR = "import sys\nwith open(sys.argv[1], 'rb') as f:\n    while f.read(1 << 22): pass\n"


@dataclass
class Timing:
    """Wall seconds and peak memory (MiB, 2**20 bytes) of repeated runs of one command."""

    name: str
    seconds: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    tree_mb: list[float] = field(default_factory=list)
    single_mb: list[float] = field(default_factory=list)

    @property
    def best(self) -> float:
        return min(self.seconds)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)


def mib(megabytes: float) -> float:
    """``megabytes`` MB (10**6 bytes) in MiB (2**20 bytes), the unit every peak RSS here is in."""
    return megabytes * 1e6 / 2**20


def _tree_rss_kb(root: int) -> int:
    """Sum of VmRSS over ``root`` and its descendants (0 when it is gone)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/statm") as handle:
                pages = int(handle.read().split()[1])
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
        rss[int(entry)] = pages * os.sysconf("SC_PAGE_SIZE") // 1024
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack.extend(children.get(pid, []))
    return total


SMOKE = bool(os.environ.get("BENCH_SMOKE"))
"""Set by the test suite's smoke runs of the scripts (tests/test_benchmarks.py): no untimed warm-up
runs, memory sampled in the timed ones; numbers from such a run are never written down."""
BASELINE = "(baseline) "
"""Prefix of the commands run with ``--baseline DIR``'s code."""


def measure(argv: list[str], sample_memory: bool = False) -> tuple[float, float, float, float]:
    """Run ``argv`` once; return (wall seconds, CPU seconds, peak tree RSS MiB, ru_maxrss MiB).

    CPU is user + system time of the process and the children it waited for (the decoders).

    Sampling /proc costs CPU that the measured command would miss on 2 cores, so timed
    runs only wait (tree RSS 0); ``sample_memory`` runs sample every 5 ms. An ``argv`` that
    starts with ``PYTHONPATH=DIR`` runs with that code (``--baseline``), from DIR's parent.
    """
    env, cwd = None, None
    if argv[0].startswith("PYTHONPATH="):
        code = argv[0].split("=", 1)[1]
        env, cwd, argv = {**os.environ, "PYTHONPATH": code}, str(Path(code).parent), argv[1:]
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, cwd=cwd)
    peak = 0
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG if sample_memory else 0)
        if pid:
            break
        peak = max(peak, _tree_rss_kb(process.pid))
        time.sleep(0.005)
    seconds = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        raise SystemExit(f"{shlex.join(argv)} failed: {process.stderr.read().decode()[-500:]}")
    return seconds, usage.ru_utime + usage.ru_stime, peak / 1024, usage.ru_maxrss / 1024


def commands(data: Path, outdir: Path, reference: str | None, baseline: Path | None = None) -> dict[str, list[str]]:
    aggregate = [PYTHON, "-m", "aggregator", str(data.resolve()), "--outdir", str(outdir / "agg"), "--quiet"]
    out = {
        "aggregate": aggregate,
        "aggregate --families core": [*aggregate, "--families", "core"],
        "aggregate --workers 1": [*aggregate, "--workers", "1"],
    }
    if baseline is not None:  # the same commands with the code of another checkout, interleaved with these
        before = [f"PYTHONPATH={baseline.resolve()}", *aggregate[:4], "--outdir", str(outdir / "before"), "--quiet"]
        out.update({
            f"{BASELINE}aggregate": before,
            f"{BASELINE}aggregate --families core": [*before, "--families", "core"],
        })
    out.update({
        "floor: python start": [PYTHON, "-c", "pass"],
        "floor: import polars": [PYTHON, "-c", "import polars"],
        "floor: read bytes": [PYTHON, "-c", READ_FLOOR, str(data)],
        "floor: typed partial decode (1 core)": [PYTHON, "-c", DECODE_FLOOR, str(data)],
        "floor: typed decode of every field read (1 core)": [PYTHON, "-c", ALL_FIELDS_FLOOR, str(data)],
    })
    if reference:
        out["reference"] = shlex.split(reference.format(input=data, outdir=outdir / "ref"))
    return out


def bench(rows: int, repeat: int, reference: str | None, data_dir: Path,
          baseline: Path | None = None, source: Path = DEFAULT_SOURCE, distinct: bool = False) -> tuple[Path, list[Timing]]:
    return timed(rows, repeat, data_dir, lambda data, outdir: commands(data, outdir, reference, baseline), source, distinct)


def timed(rows: int, repeat: int, data_dir: Path, make: Callable[[Path, Path], dict[str, list[str]]],
          source: Path = DEFAULT_SOURCE, distinct: bool = False) -> tuple[Path, list[Timing]]:
    """The real-shaped file of ``rows`` rows (generated once into ``data_dir`` from ``source``; ``distinct``:
    copies with their own terms and sentences, see ``generate.py``) and the :func:`interleaved` timings of the
    commands ``make(file, output folder)`` gives."""
    name = f"rows{rows}" + ("" if source == DEFAULT_SOURCE else f"_{source.name}") + ("_distinct" if distinct else "")
    data = data_dir / f"{name}.jsonl"
    if not data.exists():
        generate(source, rows, data, distinct_copies=distinct)
    with tempfile.TemporaryDirectory() as tmp:
        return data, interleaved(make(data, Path(tmp)), repeat)


def interleaved(cmds: dict[str, list[str]], repeat: int) -> list[Timing]:
    """Time each command ``repeat`` times, interleaved, after an untimed warm-up (page cache, pyc
    files) that samples memory; the command named ``reference`` (slow) runs a third as often,
    memory sampled in its timed runs."""
    timings = {name: Timing(name) for name in cmds}
    for name, argv in cmds.items():
        if name != "reference" and not SMOKE:
            _, _, tree, single = measure(argv, sample_memory=True)
            timings[name].tree_mb.append(tree)
            timings[name].single_mb.append(single)
    for i in range(repeat):
        for name, argv in cmds.items():
            if name == "reference" and i >= max(1, repeat // 3):
                continue
            seconds, cpu, tree, single = measure(argv, sample_memory=name == "reference" or SMOKE)
            timings[name].seconds.append(seconds)
            timings[name].cpu.append(cpu)
            timings[name].tree_mb.append(tree)
            timings[name].single_mb.append(single)
    return list(timings.values())


def table(data: Path, rows: int, timings: list[Timing]) -> str:
    size_mb = data.stat().st_size / 1e6
    agg = next(t for t in timings if t.name == "aggregate")
    lines = [
        f"### {rows:,} rows ({size_mb:.0f} MB)",
        "",
        "| command | runs | best s | median s | median CPU s | rows/s | MB/s | peak RSS tree MiB | peak RSS single MiB "
        "| × aggregate |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for t in timings:
        lines.append(
            f"| {t.name} | {len(t.seconds)} | {t.best:.3f} | {t.median:.3f} | {statistics.median(t.cpu):.2f} "
            f"| {rows / t.median:,.0f} "
            f"| {size_mb / t.median:,.0f} | {max(t.tree_mb):.0f} | {max(t.single_mb):.0f} | {t.median / agg.median:.2f} |"
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, nargs="+", default=[5000])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--reference", help="command template with {input} and {outdir}")
    parser.add_argument("--data-dir", type=Path, default=HERE / "data")
    parser.add_argument("--baseline", type=Path, help="a checkout of other code (e.g. main before a change): "
                        "its aggregate commands run interleaved with these, as '(baseline) ...'")
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE,
                        help="scorecards file or folder of run folders whose rows are replicated (generate.py)")
    parser.add_argument("--distinct", action="store_true",
                        help="copies with their own terms and sentences, not verbatim (generate.py --distinct)")
    parser.add_argument("--write", action="store_true", help="write benchmarks/RESULTS.md")
    parser.add_argument("--section", default="bench", help="the section of RESULTS.md to write (default: bench)")
    args = parser.parse_args()
    sections = []
    for rows in args.rows:
        data, timings = bench(rows, args.repeat, args.reference, args.data_dir, args.baseline, args.source, args.distinct)
        sections.append(table(data, rows, timings))
        print(sections[-1], flush=True)
    if args.write:
        command = f"python benchmarks/bench.py --rows {' '.join(map(str, args.rows))} --repeat {args.repeat}"
        if args.reference:
            command += " --reference ..."
        if args.baseline:
            command += " --baseline BEFORE"
        if args.distinct:
            command += " --distinct"
        if args.source != DEFAULT_SOURCE:
            command += f" --source {args.source.relative_to(Path.cwd()) if args.source.is_relative_to(Path.cwd()) else args.source.name}"
        write_section(args.section, "\n".join([measured_by(command), "", *sections]))


if __name__ == "__main__":
    main()
