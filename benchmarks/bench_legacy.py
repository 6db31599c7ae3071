"""``aggregate legacy`` with the ``full`` command line (LEGACY.md section 11) against ``aggregate RUN`` on one file.

Both read the same real-shaped file (``generate.py``), as separate processes, interleaved so that
machine load hits all alike (method and measurement of :mod:`bench`): ``aggregate FILE`` (every
family, its six files) and ``aggregate legacy --input FILE`` with every option of the ``full`` line
(metrics, stage summary, triptych with text, risk details, the B1 check and five diagnostics files,
snapshot, tuple-source log). Optionally the research script itself
(``--reference 'python3 path/to/structural_error_aggregator.py'``, given the same flags; the row
``reference``, run a third as often).
Wall and CPU seconds (the process and the decoders it waited for) are reported; the goal is
``aggregate legacy`` ≤ 1.3× ``aggregate RUN``. With ``--write``, replaces the ``bench_legacy``
section of ``benchmarks/RESULTS.md``.

    python benchmarks/bench_legacy.py --rows 5000 --repeat 5
"""

from __future__ import annotations

import argparse
import shlex
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench import PYTHON, Timing, timed  # noqa: E402
from results_file import measured_by, write_section  # noqa: E402


def full_line(data: Path, out: Path) -> list[str]:
    """The ``full`` flags of COMMANDS.txt, writing under ``out``."""
    return ["--input", str(data), "--outdir", str(out / "derived" / "metrics"),
            "--export_triptych_table", str(out / "triptych.csv"), "--triptych_sample_n", "0",
            "--triptych_include_text", "1", "--export_triptych_risk_details", str(out / "triptych_risk_details.jsonl"),
            "--diagnostics_dir", str(out / "diagnostics"), "--snapshot_eval_inputs", str(out / "snapshot.json"),
            "--log_tuple_sources", str(out / "tuple_sources.tsv")]


def commands(data: Path, out: Path, reference: str | None) -> dict[str, list[str]]:
    found = {
        "aggregate RUN": [PYTHON, "-m", "aggregator", str(data), "--outdir", str(out / "run"), "--quiet"],
        "aggregate legacy (full)": [PYTHON, "-m", "aggregator", "legacy", *full_line(data, out / "legacy")],
    }
    if reference:
        found["reference"] = [*shlex.split(reference), *full_line(data, out / "reference")]
    return found


def bench(rows: int, repeat: int, reference: str | None, data_dir: Path) -> tuple[Path, list[Timing]]:
    return timed(rows, repeat, data_dir, lambda data, out: commands(data, out, reference))


def table(data: Path, rows: int, timings: list[Timing]) -> str:
    base = timings[0]
    lines = [
        f"### {rows:,} rows ({data.stat().st_size / 1e6:.0f} MB)",
        "",
        "| command | runs | best s | median s | median CPU s | peak RSS tree MiB | × aggregate RUN (median wall) "
        "| × aggregate RUN (median CPU) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for t in timings:
        cpu = statistics.median(t.cpu)
        lines.append(f"| {t.name} | {len(t.seconds)} | {t.best:.3f} | {t.median:.3f} | {cpu:.2f} | {max(t.tree_mb):.0f} "
                     f"| {t.median / base.median:.2f} | {cpu / statistics.median(base.cpu):.2f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--reference", help="command that runs the research script (its flags are added)")
    parser.add_argument("--data-dir", type=Path, default=HERE / "data")
    parser.add_argument("--write", action="store_true", help="write benchmarks/RESULTS.md")
    args = parser.parse_args()
    data, timings = bench(args.rows, args.repeat, args.reference, args.data_dir)
    text = table(data, args.rows, timings)
    print(text, flush=True)
    if args.write:
        command = f"python benchmarks/bench_legacy.py --rows {args.rows} --repeat {args.repeat}"
        write_section("bench_legacy", "\n".join([measured_by(command + (" --reference ..." if args.reference else "")),
                                                 "", text]))


if __name__ == "__main__":
    main()
