"""The project's own comparison of ``aggregate legacy`` outputs with the research script's (LEGACY.md section 11).

The rules the shared conformance procedure states, written here independently:

- both folders hold the same files (``COMMANDS.txt`` and the expected side's alternative ref
  orders ``sanity_checks.altN.md`` aside);
- ``exit_status.txt``: the same status; ``stdout.txt``: the same ``Sanity check FAIL`` lines;
- CSV / TSV: the same byte-order mark, line ends and final newline; the same header, in order;
  the same rows, in order; numbers equal within 1e-9, other cells exactly. Provenance cells
  (``eval_semver``, ``eval_policy_hash``, ``aggregation_order_signature``) need only be non-blank,
  and in ``structural_metrics.csv`` the three columns the project fills are not compared;
- JSON and JSON lines: equal once parsed (key order too; numbers within 1e-9, top-level provenance
  keys non-empty) and written in the script's layout (indent 2 / one compact object per line);
- Markdown: line by line, with the same masks in tables (provenance cells non-blank; the three
  filled metrics not compared); the ref lines of a ref_split ``sanity_checks.md`` as a multiset,
  equal to one the script produced;
- anything else: the same bytes.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections import Counter
from pathlib import Path
from typing import Any

PROVENANCE = frozenset({"eval_semver", "eval_policy_hash", "aggregation_order_signature"})
FILLED_HERE = frozenset({"tuple_f1_explicit", "precision_explicit", "recall_explicit"})
TOLERANCE = 1e-9
NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
ALTERNATIVE = re.compile(r"\.alt\d+\.md$")


def files_of(root: Path, expected: bool) -> set[str]:
    found = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    found.discard("COMMANDS.txt")
    return {f for f in found if not (expected and ALTERNATIVE.search(f))}


def _numbers_close(a: str, b: str) -> bool:
    if NUMBER.fullmatch(a) and NUMBER.fullmatch(b):
        return abs(float(a) - float(b)) <= TOLERANCE
    return a == b


def _shape(data: bytes) -> tuple[bool, str, bool]:
    ends = "CRLF" if b"\r\n" in data else "LF" if b"\n" in data else "none"
    return data.startswith(b"\xef\xbb\xbf"), ends, data.endswith(b"\n")


def _delimited(name: str, ours: bytes, expected: bytes) -> list[str]:
    problems = [] if _shape(ours) == _shape(expected) else [f"layout {_shape(ours)} != {_shape(expected)}"]
    delimiter = "," if name.lower().endswith(".csv") else "\t"

    def records(data: bytes) -> list[list[str]]:
        return list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline=""), delimiter=delimiter))

    mine, theirs = records(ours), records(expected)
    if not theirs or not mine:
        return problems + ([] if mine == theirs else ["one side is empty"])
    if mine[0] != theirs[0]:
        return [*problems, f"header {mine[0][:6]}... != {theirs[0][:6]}..."]
    if len(mine) != len(theirs):
        problems.append(f"{len(mine) - 1} rows, expected {len(theirs) - 1}")
    skipped = FILLED_HERE if Path(name).name == "structural_metrics.csv" else frozenset()
    for number, (row, want) in enumerate(zip(mine[1:], theirs[1:]), 1):
        if len(row) != len(want):
            problems.append(f"row {number}: {len(row)} cells, expected {len(want)}")
            continue
        for column, a, b in zip(theirs[0], row, want):
            if column in skipped:
                continue
            if column in PROVENANCE:
                if not a.strip():
                    problems.append(f"row {number} {column}: blank provenance")
            elif not _numbers_close(a, b):
                problems.append(f"row {number} {column}: {a!r} != {b!r}")
    return problems


def _json_equal(a: Any, b: Any, where: str, top: bool = False) -> list[str]:
    if isinstance(b, dict):
        if not isinstance(a, dict) or list(a) != list(b):
            return [f"{where}: keys {list(a) if isinstance(a, dict) else type(a).__name__} != {list(b)}"]
        out: list[str] = []
        for key in b:
            if top and key in PROVENANCE:
                out += [] if isinstance(a[key], str) and a[key].strip() else [f"{where}.{key}: blank provenance"]
            else:
                out += _json_equal(a[key], b[key], f"{where}.{key}")
        return out
    if isinstance(b, list):
        if not isinstance(a, list) or len(a) != len(b):
            return [f"{where}: {a!r} != {b!r}"]
        return [p for i, (x, y) in enumerate(zip(a, b)) for p in _json_equal(x, y, f"{where}[{i}]")]
    if isinstance(b, (int, float)) and not isinstance(b, bool):
        ok = isinstance(a, (int, float)) and not isinstance(a, bool) and math.isclose(a, b, rel_tol=0, abs_tol=TOLERANCE)
        return [] if ok else [f"{where}: {a!r} != {b!r}"]
    return [] if type(a) is type(b) and a == b else [f"{where}: {a!r} != {b!r}"]


def _json(ours: bytes, expected: bytes) -> list[str]:
    text = ours.decode("utf-8")
    value = json.loads(text)
    layout = [] if text == json.dumps(value, ensure_ascii=False, indent=2) else ["not the script's JSON layout"]
    return layout + _json_equal(value, json.loads(expected.decode("utf-8")), "$", top=True)


def _json_lines(ours: bytes, expected: bytes) -> list[str]:
    problems = [] if _shape(ours) == _shape(expected) else ["layout differs"]
    mine = [line for line in ours.decode("utf-8").split("\n") if line]
    theirs = [line for line in expected.decode("utf-8").split("\n") if line]
    if len(mine) != len(theirs):
        problems.append(f"{len(mine)} lines, expected {len(theirs)}")
    for number, (a, b) in enumerate(zip(mine, theirs), 1):
        value = json.loads(a)
        if a != json.dumps(value, ensure_ascii=False):
            problems.append(f"line {number}: not compact JSON")
        problems += _json_equal(value, json.loads(b), f"line {number}")
    return problems


def _cells(line: str) -> list[str] | None:
    stripped = line.strip()
    if len(stripped) < 2 or stripped[0] != "|" or stripped[-1] != "|":
        return None
    return [c.strip() for c in stripped[1:-1].split("|")]


def _masked(line: str, header: list[str] | None) -> list[str] | str:
    """A Markdown line as compared: table cells with provenance / filled values masked, else the line."""
    cells = _cells(line)
    if cells is None or header is None:
        return line
    masked = ["<provenance>" if h in PROVENANCE and c else c for h, c in zip(header, cells)]
    if header[:2] == ["Metric", "Value"] and len(cells) == 2:
        if cells[0] in PROVENANCE and cells[1]:
            masked[1] = "<provenance>"
        elif cells[0] in FILLED_HERE:
            masked[1] = "<filled>"
    return masked + cells[len(header):]


def _markdown_lines(text: str) -> list[list[str] | str]:
    out: list[list[str] | str] = []
    header: list[str] | None = None
    for line in text.split("\n"):
        cells = _cells(line)
        out.append(_masked(line, header) if cells is not None and header is not None else line)
        header = (cells if header is None else header) if cells is not None else None
    return out


def _is_ref(line: str) -> bool:
    return line.startswith(("  '", '  "'))


def _markdown(ours: bytes, expected: bytes, alternatives: list[bytes]) -> list[str]:
    problems = [] if _shape(ours) == _shape(expected) else ["layout differs"]
    mine, theirs = ours.decode("utf-8"), expected.decode("utf-8")
    if theirs.startswith("# Sanity Mode: ref_split"):
        if [x for x in mine.split("\n") if not _is_ref(x)] != [x for x in theirs.split("\n") if not _is_ref(x)]:
            problems.append("non-ref lines differ")
        refs = Counter(x for x in mine.split("\n") if _is_ref(x))
        allowed = [Counter(x for x in t.decode("utf-8").split("\n") if _is_ref(x)) for t in (expected, *alternatives)]
        return problems + ([] if refs in allowed else ["ref lines are not a multiset the script wrote"])
    a, b = _markdown_lines(mine), _markdown_lines(theirs)
    if len(a) != len(b):
        problems.append(f"{len(a)} lines, expected {len(b)}")
    return problems + [f"line {i}: {x!r} != {y!r}" for i, (x, y) in enumerate(zip(a, b), 1) if x != y]


def _failure_lines(data: bytes) -> list[str]:
    return [line for line in data.decode("utf-8", "replace").splitlines() if line.startswith("Sanity check FAIL")]


def compare_file(name: str, ours: Path, expected: Path) -> list[str]:
    """What differs in one file (an empty list when it conforms)."""
    mine, theirs = ours.read_bytes(), expected.read_bytes()
    base, lower = Path(name).name, name.lower()
    if base == "exit_status.txt":
        return [] if mine.strip() == theirs.strip() else [f"exit status {mine.strip()!r} != {theirs.strip()!r}"]
    if base == "stdout.txt":
        return [] if _failure_lines(mine) == _failure_lines(theirs) else ["B1 lines differ"]
    if lower.endswith((".csv", ".tsv")):
        return _delimited(name, mine, theirs)
    if lower.endswith(".jsonl"):
        return _json_lines(mine, theirs)
    if lower.endswith(".json"):
        return _json(mine, theirs)
    if lower.endswith(".md"):
        alternatives = [p.read_bytes() for p in sorted(expected.parent.glob("*.md")) if ALTERNATIVE.search(p.name)]
        return _markdown(mine, theirs, alternatives)
    return [] if mine == theirs else ["bytes differ"]


def compare_folders(ours: Path, expected: Path) -> dict[str, list[str]]:
    """Every difference between an output folder and an ``expected_legacy`` folder, by file."""
    mine, theirs = files_of(ours, False), files_of(expected, True)
    found: dict[str, list[str]] = {name: ["missing"] for name in sorted(theirs - mine)}
    found.update({name: ["not expected"] for name in sorted(mine - theirs)})
    for name in sorted(mine & theirs):
        problems = compare_file(name, ours / name, expected / name)
        if problems:
            found[name] = problems
    return found
