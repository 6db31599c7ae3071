"""docs/formats.md shows what the tool prints: its example output and its table of measured disagreements."""

from __future__ import annotations

import re
from pathlib import Path

from aggregator.formats.evaluate import evaluate
from aggregator.formats.payload import payload
from aggregator.formats.registry import FORMATS
from tests.conftest import FIXTURES, run_cli
from tests.peer_expected import case_files

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")


def test_the_example_output_is_what_the_command_prints() -> None:
    block = re.search(r"```\n\$ (aggregate score .*?)\n(.*?)```", DOC, re.S)
    assert block is not None
    done = run_cli(*block[1].split()[1:], cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout == block[2]


def _f1s(scores: dict[str, object]) -> list[str]:
    found = [scores] if "f1" in scores else list(scores.values())
    return [f"{s['f1']:.4f}" for s in found]  # type: ignore[index]


def test_the_disagreement_table_holds_the_measured_numbers() -> None:
    rows = [line for line in DOC.splitlines() if re.match(r"\| \w+/case_\d+ \|", line)]
    for case in sorted((FIXTURES / "peer").glob("*/case_*")):
        gold, pred, fmt = case_files(case)
        for scorer in FORMATS[fmt].scorers:
            row = next(r for r in rows if r.startswith(f"| {case.parent.name}/{case.name} | {scorer.name}"))
            body = payload(evaluate(gold, pred, fmt, scorer.name))
            official_cell = row.split(" | ")[2]
            assert all(f1 in official_cell for f1 in _f1s(body["official"])), row
            for step in body["compat_report"]:
                assert f"{step['count']} × {step['quirk']}" in row, row
