"""What each metric family costs: ``aggregate --families core,NAME`` against the core alone.

On one real-shaped input (``generate.py``), times as separate processes, interleaved:

- ``aggregate FILE --families core`` (today's columns), ``aggregate FILE`` (every family);
- ``aggregate FILE --families core,NAME`` for each family (with what it requires);
- the decode floor of every field the families read: the merged typed decoder over all lines
  on one core, minus the same process without the loop (its imports, which leave Polars
  unloaded: the decoder needs none of it; ``bench.py``'s floor script).

Results are printed and, with ``--write``, replace the ``families`` section of RESULTS.md.

    python benchmarks/bench_families.py --rows 5000 --repeat 5 --write

``--share NAME`` measures one family's share of the whole run instead: ``aggregate FILE`` (every
family) against ``aggregate FILE --families`` (every family but NAME), interleaved, and prints
share = (CPU all − CPU all but NAME) / CPU all on the medians, the same for wall time.

    python benchmarks/bench_families.py --rows 5000 --repeat 7 --share errors
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from statistics import median

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench import ALL_FIELDS_FLOOR as FLOOR  # noqa: E402
from bench import PYTHON, Timing, interleaved  # noqa: E402
from generate import DEFAULT_SOURCE, generate  # noqa: E402
from results_file import measured_by, write_section  # noqa: E402


def family_names() -> list[str]:
    from aggregator.metrics.families import FAMILY_MODULES

    return list(FAMILY_MODULES)


def commands(data: Path, out: Path, only: list[str] | None = None) -> dict[str, list[str]]:
    base = [PYTHON, "-m", "aggregator", str(data), "--quiet"]
    cmds = {
        "core only": [*base, "--outdir", str(out / "core"), "--families", "core"],
        "all families": [*base, "--outdir", str(out / "all")],
        "floor: imports + merged decoder": [PYTHON, "-c", FLOOR, str(data), "imports"],
        "floor: decode every field read (1 core)": [PYTHON, "-c", FLOOR, str(data), "decode"],
    }
    for name in only or family_names():
        cmds[f"core + {name}"] = [*base, "--outdir", str(out / name), "--families", f"core,{name}"]
    return cmds


def share_commands(data: Path, out: Path, name: str) -> dict[str, list[str]]:
    """Every family, and every family but ``name`` (with what the others require)."""
    base = [PYTHON, "-m", "aggregator", str(data), "--quiet"]
    others = [f for f in family_names() if f != name]
    return {"all families": [*base, "--outdir", str(out / "all")],
            f"all but {name}": [*base, "--outdir", str(out / "but"), "--families", ",".join(others)]}


def share_table(data: Path, rows: int, name: str, timings: dict[str, Timing]) -> str:
    every, but = timings["all families"], timings[f"all but {name}"]
    cpu, wall = (median(every.cpu), median(but.cpu)), (median(every.seconds), median(but.seconds))
    lines = [f"### {name}: its share of the run, {rows:,} rows ({data.stat().st_size / 1e6:.0f} MB)", "",
             "| command | runs | median s | median CPU s | CPU s, each run |", "|---|---:|---:|---:|---|"]
    for t in (every, but):
        lines.append(f"| {t.name} | {len(t.cpu)} | {median(t.seconds):.3f} | {median(t.cpu):.3f} "
                     f"| {', '.join(f'{c:.2f}' for c in t.cpu)} |")
    lines += ["", f"Share of the run's CPU: ({cpu[0]:.3f} − {cpu[1]:.3f}) / {cpu[0]:.3f} = "
              f"{(cpu[0] - cpu[1]) / cpu[0]:.1%}; of its wall time: {(wall[0] - wall[1]) / wall[0]:.1%}."]
    return "\n".join(lines) + "\n"


def run(rows: int, repeat: int, data_dir: Path, share: str | None = None,
        only: list[str] | None = None) -> tuple[Path, dict[str, Timing]]:
    data = data_dir / f"rows{rows}.jsonl"
    if not data.exists():
        generate(DEFAULT_SOURCE, rows, data)
    with tempfile.TemporaryDirectory() as tmp:
        cmds = commands(data, Path(tmp), only) if share is None else share_commands(data, Path(tmp), share)
        return data, {t.name: t for t in interleaved(cmds, repeat)}


def table(data: Path, rows: int, timings: dict[str, Timing]) -> str:
    core = timings["core only"]
    floor = timings["floor: decode every field read (1 core)"].median - timings["floor: imports + merged decoder"].median
    lines = [
        f"### {rows:,} rows ({data.stat().st_size / 1e6:.0f} MB)",
        "",
        "| command | runs | median s | median CPU s | Δ s vs core only | peak RSS tree MiB |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for t in timings.values():
        cpu = sorted(t.cpu)[len(t.cpu) // 2]
        lines.append(f"| {t.name} | {len(t.seconds)} | {t.median:.3f} | {cpu:.2f} | {t.median - core.median:+.3f} "
                     f"| {max(t.tree_mb):.0f} |")
    start = timings["floor: imports + merged decoder"].median
    every = timings["all families"].median
    lines += ["", f"Decode floor of every field read (one core, imports excluded): {floor:.3f} s. "
              f"All families end to end: {every:.3f} s = {every / (floor + start):.2f}× (floor + start-up "
              f"and imports {start:.3f} s); core only {core.median:.3f} s."]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--data-dir", type=Path, default=HERE / "data")
    parser.add_argument("--write", action="store_true", help="write the families section of benchmarks/RESULTS.md")
    parser.add_argument("--share", metavar="NAME", help="one family's share of the whole run (module doc)")
    parser.add_argument("--families", nargs="+", metavar="NAME", help="time core + NAME for these families only")
    args = parser.parse_args()
    for name in [*(args.families or ()), *([args.share] if args.share else [])]:
        if name not in family_names():
            parser.error(f"{name}: not a metric family ({', '.join(family_names())})")
    if args.share:
        data, timings = run(args.rows, args.repeat, args.data_dir, args.share)
        print(share_table(data, args.rows, args.share, timings))
        return
    data, timings = run(args.rows, args.repeat, args.data_dir, only=args.families)
    text = table(data, args.rows, timings)
    print(text)
    if args.write and args.families:
        parser.error("--write replaces the section of every family: leave out --families")
    if args.write:
        command = f"python benchmarks/bench_families.py --rows {args.rows} --repeat {args.repeat} --write"
        write_section("families", "## Cost of each metric family\n\n" + measured_by(command) + "\n\n" + text)


if __name__ == "__main__":
    main()
