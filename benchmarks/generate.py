"""Make a real-shaped scorecards file of N rows by replicating a real run with fresh sample keys.

Each row of the source run (or runs: a folder of run folders) is copied verbatim except that its
sample key (every occurrence of the quoted key) gets a replica suffix, so rows stay ~28 KB with all
their traces and every sample (run id, split, key) is unique.

The copies of a row share its sentence and tuples, which flatters every cache keyed on them (the
normalized terms, the error classes of a set of pairs, the report's marks of a sample). With
``--distinct`` each copy after the first renames the row's aspect terms instead: every occurrence in
the line (sentence, tuples, traces) of each term of its tuple lists gets the copy's mark (Hangul
syllables), so a copy has its own sentence and tuple sets while every match, mismatch and substring
relation of the row stays as it was (the structural metrics equal the replicated file's). Terms
that are part of a taxonomy key and ASCII terms are kept (renaming them would reach refs and JSON
keys); a row without any other term (implicit aspects only) gets its sentence marked instead, its
tuple sets staying those of the row, as implicit tuples repeat in real runs.

    python benchmarks/generate.py --rows 5000 --out benchmarks/data/rows5000.jsonl
    python benchmarks/generate.py --rows 5000 --distinct --out benchmarks/data/rows5000_distinct.jsonl
"""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import msgspec

from aggregator.units.taxonomy import default_taxonomy

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SOURCE = ROOT / "results" / "cr_n50_m1_v2__seed42" / "scorecards.jsonl"


class _Meta(msgspec.Struct):
    text_id: str


class _Row(msgspec.Struct):
    meta: _Meta


_Items = list[Any] | None


class _FinalResult(msgspec.Struct):
    stage1_tuples: _Items = None
    final_tuples: _Items = None
    final_aspects: _Items = None
    final_tuples_pre_review: _Items = None


class _Parsed(msgspec.Struct):
    final_result: _FinalResult | Any = None


class _Runtime(msgspec.Struct):
    parsed_output: _Parsed | Any = None


class _Inputs(msgspec.Struct):
    gold_tuples: _Items = None
    aspect_sentiments: _Items = None


class _Text(msgspec.Struct):
    input_text: Any = None


class _Tuples(msgspec.Struct):
    inputs: _Inputs | None = None
    runtime: _Runtime | None = None
    meta: _Text | None = None


SYLLABLES = "가나다라마바사아자차"


def source_lines(source: Path) -> list[bytes]:
    """The rows of a scorecards file, or of every ``*/scorecards.jsonl`` under a folder (in name order,
    e.g. the 13 vendored runs: 13 run ids, whose rows carry more diagnostics than the demo run's)."""
    files = sorted(source.glob("*/scorecards.jsonl")) if source.is_dir() else [source]
    return [line for path in files for line in path.read_bytes().splitlines() if line.strip()]



def replicated(source: Path, rows: int) -> Iterator[bytes]:
    """``rows`` lines (each with its newline): the source's rows in turn, every sample key with a replica suffix."""
    return _copies(source_lines(source), rows)


def _copies(lines: list[bytes], rows: int) -> Iterator[bytes]:
    """:func:`replicated` of the source's ``lines``."""
    keys = [msgspec.json.decode(line, type=_Row).meta.text_id for line in lines]
    for i in range(rows):
        line, key = lines[i % len(lines)], keys[i % len(lines)]
        fresh = f"{key}-r{i // len(lines)}"
        yield line.replace(f'"{key}"'.encode(), f'"{fresh}"'.encode()) + b"\n"


def renamable_terms(line: bytes, keep: Iterable[str]) -> list[bytes]:
    """The aspect terms of a row's tuple lists that ``--distinct`` renames, longest first, else its sentence
    (module doc)."""
    row = msgspec.json.decode(line, type=_Tuples)
    parsed = row.runtime.parsed_output if row.runtime is not None else None
    final = parsed.final_result if isinstance(parsed, _Parsed) else None
    lists = [row.inputs.gold_tuples, row.inputs.aspect_sentiments] if row.inputs is not None else []
    if isinstance(final, _FinalResult):
        lists += [final.stage1_tuples, final.final_tuples, final.final_aspects, final.final_tuples_pre_review]
    found = set()
    for items in lists:
        for item in items or ():
            term = item.get("aspect_term") if isinstance(item, dict) else None
            term = term.get("term") if isinstance(term, dict) else term
            if isinstance(term, str) and term.strip() and not term.isascii() and not any(term in k for k in keep):
                found.add(term)
    text = row.meta.input_text if row.meta is not None else None
    if not found and isinstance(text, str) and text.strip() and not text.isascii():
        found.add(text)
    return [t.encode() for t in sorted(found, key=lambda t: (-len(t), t))]


def mark(copy: int) -> str:
    """The Hangul mark of a copy (1 → "나", 10 → "나가"): the copy number in base 10 with :data:`SYLLABLES` as digits."""
    digits = ""
    while True:
        copy, digit = divmod(copy, len(SYLLABLES))
        digits = SYLLABLES[digit] + digits
        if not copy:
            return digits


def distinct(source: Path, rows: int) -> Iterator[bytes]:
    """:func:`replicated`, each copy after the first with its aspect terms renamed (module doc)."""
    lines = source_lines(source)
    keep = default_taxonomy().refs
    terms = [renamable_terms(line, keep) for line in lines]
    for i, line in enumerate(_copies(lines, rows)):
        copy = i // len(lines)
        if copy:
            suffix = mark(copy).encode()
            for term in terms[i % len(lines)]:
                line = line.replace(term, term + suffix)
        yield line


def generate(source: Path, rows: int, out: Path, *, distinct_copies: bool = False) -> Path:
    """Write ``rows`` lines to ``out`` (atomically) and return it; ``distinct_copies``: see :func:`distinct`."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(out.suffix + ".part")
    with open(tmp, "wb") as handle:
        handle.writelines(distinct(source, rows) if distinct_copies else replicated(source, rows))
    tmp.replace(out)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--source", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--distinct", action="store_true", help="copies with their own terms and sentences (module doc)")
    args = parser.parse_args()
    path = generate(args.source, args.rows, args.out, distinct_copies=args.distinct)
    print(f"{path}: {args.rows} rows, {path.stat().st_size / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
