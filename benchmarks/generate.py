"""Make a real-shaped scorecards file of N rows by replicating a real run with fresh sample keys.

Each row of the source run (or runs: a folder of run folders) is copied verbatim except that its
sample key (every occurrence of the quoted key) gets a replica suffix, so rows stay ~28 KB with all
their traces and every sample (run id, split, key) is unique.

    python benchmarks/generate.py --rows 5000 --out benchmarks/data/rows5000.jsonl
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path

import msgspec

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SOURCE = ROOT / "results" / "cr_n50_m1_v2__seed42" / "scorecards.jsonl"


class _Meta(msgspec.Struct):
    text_id: str


class _Row(msgspec.Struct):
    meta: _Meta


def source_lines(source: Path) -> list[bytes]:
    """The rows of a scorecards file, or of every ``*/scorecards.jsonl`` under a folder (in name order,
    e.g. the 13 vendored runs: 13 run ids, whose rows carry more diagnostics than the demo run's)."""
    files = sorted(source.glob("*/scorecards.jsonl")) if source.is_dir() else [source]
    return [line for path in files for line in path.read_bytes().splitlines() if line.strip()]



def replicated(source: Path, rows: int) -> Iterator[bytes]:
    """``rows`` lines (each with its newline): the source's rows in turn, every sample key with a replica suffix."""
    lines = source_lines(source)
    keys = [msgspec.json.decode(line, type=_Row).meta.text_id for line in lines]
    for i in range(rows):
        line, key = lines[i % len(lines)], keys[i % len(lines)]
        fresh = f"{key}-r{i // len(lines)}"
        yield line.replace(f'"{key}"'.encode(), f'"{fresh}"'.encode()) + b"\n"


def generate(source: Path, rows: int, out: Path) -> Path:
    """Write ``rows`` lines to ``out`` (atomically) and return it."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(out.suffix + ".part")
    with open(tmp, "wb") as handle:
        handle.writelines(replicated(source, rows))
    tmp.replace(out)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    path = generate(args.source, args.rows, args.out)
    print(f"{path}: {args.rows} rows, {path.stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
