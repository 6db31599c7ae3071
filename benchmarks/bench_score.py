"""Benchmark of ``aggregate score``: 10,000 sentences of each format, end to end (interpreter start included).

The inputs cycle the shared cases vendored in ``tests/fixtures/peer`` (keys made unique:
NIKLuge ids and ACOS texts get a suffix) and a generated SemEval-2014 file. Each command
is timed as a separate process, ``--json`` (nothing written) and ``--outdir`` (every file
written), and each named variant of the official scorer with ``--json``, ``--repeat``
times, interleaved, after one untimed warm-up.

    python benchmarks/bench_score.py                    # 10,000 sentences, 5 repetitions
    python benchmarks/bench_score.py --write            # also rewrite the section of RESULTS.md
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

from bench import PYTHON, SMOKE, measure  # noqa: E402
from results_file import measured_by, write_section  # noqa: E402

PEER = HERE.parent / "tests" / "fixtures" / "peer"
CASES = {"nikluge": ("nikluge_sa_2022", "jsonl"), "aste": ("aste", "txt"), "asqp": ("asqp", "txt"),
         "acos": ("acos", "tsv")}
FORMATS = (*CASES, "semeval14")
VARIANTS = {"nikluge": ("nikluge-prefix-2022-10",), "aste": ("aste-gts", "aste-gas", "aste-gas-fixed"),
            "asqp": ("asqp-tuple-level",)}


def _unique(fmt: str, line: str, copy: int) -> str:
    if copy == 0:
        return line
    if fmt == "nikluge":
        row = json.loads(line)
        row["id"] = f"{row['id']}-{copy}"
        return json.dumps(row, ensure_ascii=False)
    if fmt == "acos":
        text, sep, rest = line.partition("\t")
        return f"{text} ({copy}){sep}{rest}"
    return line


def _cycled(fmt: str, path: Path, sentences: int) -> str:
    source = path.read_text(encoding="utf-8").splitlines()
    return "".join(_unique(fmt, source[i % len(source)], i // len(source)) + "\n" for i in range(sentences))


def _semeval(sentences: int, shift: int) -> str:
    words = ("food", "service", "price", "staff", "wine")
    out = ['<?xml version="1.0" encoding="UTF-8"?>', "<sentences>"]
    for i in range(sentences):
        term = words[(i + shift) % len(words)]
        out.append(f'<sentence id="{i}"><text>The {term} was good.</text><aspectTerms>'
                   f'<aspectTerm term="{term}" polarity="positive" from="4" to="{4 + len(term)}"/></aspectTerms>'
                   f'<aspectCategories><aspectCategory category="{words[i % 3]}" polarity="positive"/>'
                   "</aspectCategories></sentence>")
    return "\n".join([*out, "</sentences>"]) + "\n"


def make_inputs(root: Path, sentences: int) -> dict[str, tuple[Path, Path]]:
    """Gold and prediction files of ``sentences`` sentences per format under ``root``."""
    inputs = {}
    for fmt in FORMATS:
        gold, pred = root / f"{fmt}.gold", root / f"{fmt}.pred"
        if fmt == "semeval14":
            gold.write_text(_semeval(sentences, 0))
            pred.write_text(_semeval(sentences, sentences % 2 + 1))
        else:
            folder, suffix = CASES[fmt]
            gold.write_text(_cycled(fmt, PEER / folder / "case_1" / f"gold.{suffix}", sentences), encoding="utf-8")
            pred.write_text(_cycled(fmt, PEER / folder / "case_1" / f"pred.{suffix}", sentences), encoding="utf-8")
        inputs[fmt] = gold, pred
    return inputs


def run(sentences: int, repeat: int) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        inputs = make_inputs(root, sentences)
        ways = {}
        for fmt, (g, p) in inputs.items():
            score = [PYTHON, "-m", "aggregator", "score", str(g), str(p), "--format", fmt]
            ways[(fmt, "official", "--json")] = [*score, "--json"]
            ways[(fmt, "official", "--outdir")] = [*score, "--outdir", str(root / f"out-{fmt}")]
            for variant in VARIANTS.get(fmt, ()):
                ways[(fmt, variant, "--json")] = [*score, "--compat", variant, "--json"]
        times: dict[tuple[str, str, str], list[tuple[float, float]]] = {key: [] for key in ways}
        if not SMOKE:  # one untimed warm-up of each
            for argv in ways.values():
                measure(argv)
        for _ in range(repeat):
            for key, argv in ways.items():
                times[key].append(measure(argv)[:2])
    rows = []
    for (fmt, compat, way), timed in times.items():
        wall, cpu = [t[0] for t in timed], [t[1] for t in timed]
        rows.append(f"| {fmt} | {compat} | {way} | {repeat} | {min(wall):.2f} | {statistics.median(wall):.2f} "
                    f"| {max(wall):.2f} | {statistics.median(cpu):.2f} |")
    return "\n".join([f"### {sentences:,} sentences per format", "",
                      "| format | --compat | output | repetitions | best s | median s | worst s | median CPU s |",
                      "|---|---|---|---:|---:|---:|---:|---:|", *rows])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sentences", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--write", action="store_true", help="rewrite the score section of RESULTS.md")
    args = parser.parse_args()
    table = run(args.sentences, args.repeat)
    print(table)
    if args.write:
        command = f"python benchmarks/bench_score.py --sentences {args.sentences} --repeat {args.repeat} --write"
        write_section("score", f"{measured_by(command)}\n\n{table}")


if __name__ == "__main__":
    main()
