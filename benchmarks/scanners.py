"""JSON scanners against the reader's decode, per row, on the same real-shaped lines (one core).

Each line must be checked for UTF-8 in full and the fields the metrics read must come out
as Python values; everything else may be skipped. Candidates, timed interleaved in one
process (best of ``--repeat`` passes over the same lines held in memory):

- ``msgspec Row``: the reader's typed partial decode (``scorecards.schema.Row``), no UTF-8 check;
- ``+ UTF-8 per line``: plus ``str(line, "utf-8")`` per line (what the reader did before the scan);
- ``+ UTF-8 blocks``: plus the reader's UTF-8 check, Polars' validator over whole blocks of the
  file (``scorecards.scan``), divided over the rows: what the reader does now. Its SHA-256 of
  the file, read in the same pass, is shown apart (every candidate would need it);
- ``simdjson parse``: pysimdjson's full parse (validates UTF-8 as it goes) without reading a field;
- ``simdjson fields``: that plus getting the fields the metrics read as Python values;
- ``orjson loads`` / ``json loads``: whole rows into dicts (``json`` is what the research script does).

pysimdjson and orjson are optional (``pip install -e '.[bench]'``); missing ones are reported.

    python benchmarks/scanners.py --rows 5000 --write
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from generate import DEFAULT_SOURCE, generate  # noqa: E402
from results_file import write_section  # noqa: E402

from scorecards.scan import char_blocks, is_utf8  # noqa: E402
from scorecards.schema import ROW_DECODER  # noqa: E402

Candidate = Callable[[list[bytes]], object]
FIELDS = {
    "meta": ("text_id", "uid", "case_id", "run_id", "profile"),
    "inputs": ("gold_tuples", "gold_triplets", "aspect_sentiments"),
}
FINAL_RESULT = ("stage1_tuples", "final_tuples", "final_aspects")


def utf8_blocks(path: Path) -> None:
    with open(path, "rb") as handle:
        for block in char_blocks(handle.fileno(), path.stat().st_size):
            is_utf8(block)


def sha256_blocks(path: Path) -> None:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in char_blocks(handle.fileno(), path.stat().st_size):
            digest.update(block)


def msgspec_row(lines: list[bytes]) -> None:
    for line in lines:
        ROW_DECODER.decode(line)


def msgspec_utf8_per_line(lines: list[bytes]) -> None:
    for line in lines:
        str(line, "utf-8")
        ROW_DECODER.decode(line)


def simdjson_candidates() -> dict[str, Candidate]:
    try:
        import simdjson
    except ImportError:
        return {}
    parser = simdjson.Parser()

    def items(value: object) -> object:
        if isinstance(value, simdjson.Array):
            return [x.as_dict() if isinstance(x, simdjson.Object) else x for x in value]
        return value

    def fields(line: bytes) -> dict[str, object]:
        doc = parser.parse(line)
        out: dict[str, object] = {key: items(doc.get(key)) for key in ("run_id", "profile", "gold_tuples")}
        for name, keys in FIELDS.items():
            part = doc.get(name)
            if isinstance(part, simdjson.Object):
                out[name] = {key: items(part.get(key)) for key in keys}
        runtime = doc.get("runtime")
        parsed = runtime.get("parsed_output") if isinstance(runtime, simdjson.Object) else None
        final = parsed.get("final_result") if isinstance(parsed, simdjson.Object) else None
        if isinstance(final, simdjson.Object):
            out["final_result"] = {key: items(final.get(key)) for key in FINAL_RESULT}
        return out

    def parse(lines: list[bytes]) -> None:
        for line in lines:
            parser.parse(line)

    def extract(lines: list[bytes]) -> None:
        for line in lines:
            fields(line)

    return {"simdjson parse": parse, "simdjson fields": extract}


def orjson_candidates() -> dict[str, Candidate]:
    try:
        import orjson
    except ImportError:
        return {}

    def loads(lines: list[bytes]) -> None:
        for line in lines:
            orjson.loads(line)

    return {"orjson loads": loads}


def json_loads(lines: list[bytes]) -> None:
    for line in lines:
        json.loads(line)


def best_seconds(candidate: Candidate, lines: list[bytes], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        candidate(lines)
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--data-dir", type=Path, default=HERE / "data")
    parser.add_argument("--write", action="store_true", help="replace the scanners section of benchmarks/RESULTS.md")
    args = parser.parse_args()
    data = args.data_dir / f"rows{args.rows}.jsonl"
    if not data.exists():
        generate(DEFAULT_SOURCE, args.rows, data)
    lines = [line for line in data.read_bytes().split(b"\n") if line.strip()]
    utf8 = best_seconds(lambda _: utf8_blocks(data), lines, args.repeat)
    sha = best_seconds(lambda _: sha256_blocks(data), lines, args.repeat)
    candidates: dict[str, Candidate] = {
        "msgspec Row": msgspec_row,
        "msgspec Row + UTF-8 per line": msgspec_utf8_per_line,
        **simdjson_candidates(),
        **orjson_candidates(),
        "json loads": json_loads,
    }
    seconds = {name: float("inf") for name in candidates}
    for _ in range(args.repeat):  # interleaved: machine load hits every candidate alike
        for name, candidate in candidates.items():
            seconds[name] = min(seconds[name], best_seconds(candidate, lines, 1))
    seconds["msgspec Row + UTF-8 blocks (reader)"] = seconds["msgspec Row"] + utf8
    seconds["(SHA-256 of the file, for comparison)"] = sha
    base = seconds["msgspec Row + UTF-8 blocks (reader)"]
    size = sum(map(len, lines)) / len(lines) / 1e3
    out = [
        f"{len(lines):,} rows of {size:.1f} KB on average (`python benchmarks/scanners.py --rows {args.rows} "
        f"--repeat {args.repeat}`), best of {args.repeat}, one core:",
        "",
        "| candidate | µs/row | × reader |",
        "|---|---:|---:|",
    ]
    for name, value in sorted(seconds.items(), key=lambda item: item[1]):
        out.append(f"| {name} | {value / len(lines) * 1e6:.1f} | {value / base:.2f} |")
    missing = [name for name, found in (("pysimdjson", simdjson_candidates()), ("orjson", orjson_candidates())) if not found]
    if missing:
        out += ["", f"not installed: {', '.join(missing)} (pip install -e '.[bench]')"]
    print("\n".join(out))
    if args.write:
        write_section("scanners", "\n".join(out))


if __name__ == "__main__":
    main()
