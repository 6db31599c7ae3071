"""SHA-256 of every output file of the 22 vendored folders and of the comparison of the 13 real runs.

``tests/fixtures/output_digests.json`` holds them as written when the work of issues 24, 25, 28 and 29
(new columns, escaping, marks, intervals) was merged with the speed work of issue 27: regenerated then,
on purpose, with the structural metrics checked against the research tool's CSVs and the legacy files
against its files by their own tests. ``tests/test_output_digests.py`` checks that today's outputs are
the same bytes, so a change made for speed cannot change a number or a file. ``run_metadata.json``
is compared without the fields that describe the process rather than the input (:data:`VOLATILE`: wall
time, commit, path as given, decoding processes) and without fields added since (:data:`ADDED`).

Regenerate only on purpose, when an output is meant to change (a new column, a new file), from a
commit whose outputs were checked otherwise, and say so in the commit:

    .venv/bin/python -m tests.output_digests --write
"""

from __future__ import annotations

import argparse
import hashlib
import json
import tempfile
from pathlib import Path

from tests.conftest import CASES, CONFORMANCE, RUNS, run_cli

DIGESTS = Path(__file__).parent / "fixtures" / "output_digests.json"
METADATA = "run_metadata.json"
VOLATILE = ("seconds", "git_commit", "input_path", "workers")
"""Fields of run_metadata.json that describe the process, not the input and options."""
ADDED: tuple[str, ...] = ("reuse",)
"""Fields run_metadata.json gained after the digests were taken (the comparison cache's key)."""
COMPARE_OPTIONS = ("--paper", "--paper-cells", "sd", "--samples", "changed", "--by", "gold_explicitness")


def run_folders() -> list[Path]:
    return sorted(p for p in RUNS.iterdir() if p.is_dir())


def aggregate_all(out: Path) -> None:
    """``aggregate`` on the 9 conformance cases and the 13 runs (two commands: one run is in both sets)."""
    for name, inputs in (("conformance", [CONFORMANCE / c for c in CASES]), ("runs", run_folders())):
        done = run_cli(*inputs, "--outdir", out / name, "--quiet")
        if done.returncode != 0:
            raise RuntimeError(done.stderr)


def compare_all(out: Path, runs: list[Path] | None = None, *extra: str) -> str:
    """``aggregate compare`` of the 13 runs into ``out/compare``; returns its stdout."""
    done = run_cli("compare", *(runs or run_folders()), "--outdir", out / "compare", *COMPARE_OPTIONS, *extra)
    if done.returncode != 0:
        raise RuntimeError(done.stderr)
    return done.stdout


def file_digest(path: Path) -> str:
    data = path.read_bytes()
    if path.name == METADATA:
        record = json.loads(data)
        for key in (*VOLATILE, *ADDED):
            record.pop(key, None)
        data = json.dumps(record, sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(data).hexdigest()


def digests(out: Path) -> dict[str, str]:
    """Relative path -> digest of every file under ``out``."""
    return {p.relative_to(out).as_posix(): file_digest(p) for p in sorted(out.rglob("*")) if p.is_file()}


def compute() -> dict[str, str]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        aggregate_all(out)
        compare_all(out)
        return digests(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--write", action="store_true", help=f"write {DIGESTS.name}")
    args = parser.parse_args()
    found = compute()
    text = json.dumps(found, indent=1, sort_keys=True) + "\n"
    if args.write:
        DIGESTS.write_text(text, encoding="utf-8")
    print(f"{len(found)} files" + (f" -> {DIGESTS}" if args.write else ""))


if __name__ == "__main__":
    main()
