"""The vendored conformance cases reproduce the research tool's CSV on every checked column."""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest

from tests.conftest import CASES, CONFORMANCE, run_cli

COLUMNS = [c.strip() for c in (CONFORMANCE / "columns.txt").read_text().splitlines() if c.strip()]


def one_row(path: Path) -> dict[str, str]:
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 1
    return rows[0]


def same(ours: str, expected: str) -> bool:
    ours, expected = ours.strip(), expected.strip()
    if not ours or not expected or expected in ("True", "False"):
        return ours == expected
    return math.isclose(float(ours), float(expected), rel_tol=0.0, abs_tol=1e-9)


@pytest.mark.parametrize("case", CASES)
def test_case_matches_expected_csv(case: str, tmp_path: Path) -> None:
    done = run_cli(CONFORMANCE / case / "scorecards.jsonl", "--outdir", tmp_path, "--quiet")
    assert done.returncode == 0, done.stderr
    ours = one_row(tmp_path / "structural_metrics.csv")
    expected = one_row(CONFORMANCE / case / "expected_structural_metrics.csv")
    wrong = {c: (ours.get(c), expected.get(c, "")) for c in COLUMNS if not same(ours.get(c, "<missing>"), expected.get(c, ""))}
    assert not wrong, wrong
    assert same(ours["tuple_f1_explicit"], expected["tuple_f1_s2_otepol_explicit_only"])


@pytest.mark.parametrize("case", CASES)
def test_csv_column_order_starts_with_spec_order(case: str, tmp_path: Path) -> None:
    run_cli(CONFORMANCE / case / "scorecards.jsonl", "--outdir", tmp_path, "--quiet")
    header = (tmp_path / "structural_metrics.csv").read_text().splitlines()[0].split(",")
    positions = [header.index(c) for c in COLUMNS]
    assert positions == sorted(positions)
