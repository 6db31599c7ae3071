"""``benchmarks/RESULTS.md``: each benchmark script rewrites only its own marked section.

The analysis around the sections is written by hand from the numbers; a section is the
text between ``<!-- begin NAME -->`` and ``<!-- end NAME -->`` (appended when missing).
"""

from __future__ import annotations

from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def write_section(name: str, text: str, path: Path = RESULTS) -> None:
    """Replace section ``name`` of ``path`` with ``text`` (atomically)."""
    begin, end = f"<!-- begin {name} -->", f"<!-- end {name} -->"
    block = f"{begin}\n{text.rstrip()}\n{end}"
    current = path.read_text(encoding="utf-8") if path.exists() else "# Benchmark results\n"
    if begin in current and end in current:
        head, rest = current.split(begin, 1)
        updated = head + block + rest.split(end, 1)[1]
    else:
        updated = current.rstrip() + "\n\n" + block + "\n"
    tmp = path.with_suffix(".md.tmp")
    tmp.write_text(updated, encoding="utf-8")
    tmp.replace(path)
