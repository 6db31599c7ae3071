"""Memory, time and output sizes at scale: many tiny rows, and one huge aspect term.

Issue #17 asks that memory be bounded by the per-sample table rather than by Python objects
per row (at most 1.5 GB at 1,000,000 tiny rows, read here as 1.5 GiB: 1,536 MiB; 1,431 MiB if the limit means
10**9 bytes, which the verdict names too) and that ``report.html`` stay at most 25 MB
whatever the input. Two inputs are generated:

- ``tiny``: N rows of about 250 bytes (one gold and one final tuple, the stage-1 set taken from
  the final one; Korean refs and terms, polarities varied), 1,000,000 by default (about 250 MB);
- ``long term``: one row whose gold, stage-1 and final aspect term are one term of M MB, 80 by default:
  the line holds the term three times and a line over 256 MiB is a bad line
  (:data:`~scorecards.lines.MAX_LINE`), so 85 MB is the largest term a valid row can carry.

For each, ``aggregate FILE --outdir OUT --quiet`` runs as its own process (default workers),
sampled every 5 ms: wall seconds, peak RSS of the process tree and of its largest process
(ru_maxrss), in MiB (2**20 bytes), and the size of each output, in MB (10**6 bytes). ``--write`` replaces the ``scale`` section of
``benchmarks/RESULTS.md``.

    python benchmarks/bench_scale.py --rows 1000000 --term-mb 80 --repeat 2 --write
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench import PYTHON, measure, mib  # noqa: E402
from results_file import measured_by, write_section  # noqa: E402

REFS = ("본품#일반", "본품#품질", "제품 전체#일반", "브랜드#가격")
TERMS = ("배터리", "화면", "소리", "가격", "디자인", "포장")
POLARITIES = ("positive", "negative", "neutral")
LIMIT_RSS_MIB = 1536
"""1.5 GiB in MiB."""
DECIMAL_LIMIT_MIB = mib(1500)
"""1.5 GB read as 1,500 MB of 10**6 bytes, in MiB (1,430.5)."""
LIMIT_REPORT_MB = 25


def _tuple(ref: str, term: str, polarity: str) -> dict[str, str]:
    return {"aspect_ref": ref, "aspect_term": term, "polarity": polarity}


def tiny_rows(rows: int, out: Path) -> Path:
    """``rows`` rows of about 270 bytes each, every sample key unique (written whole or not at all)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = out.with_name(out.name + ".partial")
    with open(partial, "w", encoding="utf-8") as handle:
        for i in range(rows):
            ref, term = REFS[i % len(REFS)], TERMS[i % len(TERMS)]
            gold = _tuple(ref, term, POLARITIES[i % 3])
            final = _tuple(ref, TERMS[(i // 7) % len(TERMS)], POLARITIES[(i // 5) % 3])
            row = {"meta": {"text_id": f"s{i:07d}"}, "gold_tuples": [gold],
                   "runtime": {"parsed_output": {"final_result": {"final_tuples": [final]}}}}
            handle.write(json.dumps(row, ensure_ascii=False, separators=(",", ":")) + "\n")
    partial.replace(out)  # an interrupted run leaves no short file to be reused as the full one
    return out


def long_term(megabytes: int, out: Path) -> Path:
    """One row whose gold, stage-1 and final term are the same ``megabytes`` MB term."""
    out.parent.mkdir(parents=True, exist_ok=True)
    term = "가" * (megabytes * 1_000_000 // 3)
    item = _tuple("본품#일반", term, "positive")
    row = {"meta": {"text_id": "huge"}, "gold_tuples": [item],
           "runtime": {"parsed_output": {"final_result": {"stage1_tuples": [item], "final_tuples": [item]}}}}
    partial = out.with_name(out.name + ".partial")
    partial.write_text(json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8")
    partial.replace(out)
    return out


def run(data: Path, repeat: int) -> dict[str, object]:
    """Median wall seconds, peak tree and single RSS (MiB) over ``repeat`` runs, and the output sizes (MB)."""
    seconds, tree, single = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        outdir = Path(tmp) / "out"
        for _ in range(repeat):
            wall, _, peak_tree, peak_single = measure(
                [PYTHON, "-m", "aggregator", str(data), "--outdir", str(outdir), "--quiet"], sample_memory=True
            )
            seconds.append(wall)
            tree.append(peak_tree)
            single.append(peak_single)
        sizes = {p.name: p.stat().st_size / 1e6 for p in sorted(outdir.iterdir())}
    return {"seconds": statistics.median(seconds), "tree_mb": max(tree), "single_mb": max(single), "sizes": sizes}


def table(label: str, data: Path, result: dict[str, object], limited: bool) -> str:
    """``limited``: the input the memory limit is set for (1,000,000 tiny rows)."""
    sizes: dict[str, float] = result["sizes"]  # type: ignore[assignment]
    tree, report = result["tree_mb"], sizes["report.html"]
    verdict = (f"; limit 1.5 GiB ({LIMIT_RSS_MIB:,} MiB): {'met' if tree <= LIMIT_RSS_MIB else 'NOT met'}; read as 1.5 × 10⁹ "
               f"bytes ({DECIMAL_LIMIT_MIB:,.0f} MiB): {'met' if tree <= DECIMAL_LIMIT_MIB else 'NOT met'}") if limited else ""
    lines = [
        f"### {label} ({data.stat().st_size / 1e6:,.0f} MB input)",
        "",
        f"- median wall time {result['seconds']:.2f} s; peak RSS of the process tree {tree:,.0f} MiB "
        f"(largest process {result['single_mb']:,.0f} MiB){verdict}",
        f"- report.html {report:,.2f} MB (limit {LIMIT_REPORT_MB} MB: {'met' if report <= LIMIT_REPORT_MB else 'NOT met'})",
        "- outputs: " + ", ".join(f"{name} {size:,.2f} MB" for name, size in sizes.items()),
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--term-mb", type=int, default=80)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--data-dir", type=Path, default=HERE / "data")
    parser.add_argument("--write", action="store_true", help="write the scale section of benchmarks/RESULTS.md")
    args = parser.parse_args()
    tiny = args.data_dir / f"tiny{args.rows}.jsonl"
    if not tiny.exists():
        tiny_rows(args.rows, tiny)
    sections = [table(f"{args.rows:,} tiny rows", tiny, run(tiny, args.repeat), args.rows >= 1_000_000)]
    print(sections[-1], flush=True)
    if args.term_mb:
        huge = args.data_dir / f"term{args.term_mb}mb.jsonl"
        if not huge.exists():
            long_term(args.term_mb, huge)
        sections.append(table(f"one aspect term of {args.term_mb} MB", huge, run(huge, args.repeat), False))
        print(sections[-1], flush=True)
    if args.write:
        command = f"python benchmarks/bench_scale.py --rows {args.rows} --term-mb {args.term_mb} --repeat {args.repeat}"
        write_section("scale", "\n".join([measured_by(command), "", *sections]))


if __name__ == "__main__":
    main()
