"""The vendored conformance cases and real runs reproduce the research tool's CSV on every column.

Rules (as the project's conformance checker states them): numbers equal within 1e-9; blank,
or a column absent from the expected file, must be blank here; booleans as ``True``/``False``;
the provenance columns (not reproduced literally) need only be present and non-blank;
``precision_explicit`` / ``recall_explicit``, which the research tool left blank, need only be
present, and ``tuple_f1_explicit`` equals the expected ``tuple_f1_s2_otepol_explicit_only``.
All inputs are aggregated by one ``aggregate RUN...`` command, as a user would.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pytest

from tests.conftest import CASES, CONFORMANCE, RUNS, run_cli

PROVENANCE = {"eval_semver", "eval_policy_hash", "aggregation_order_signature"}
FILLED_HERE = {"precision_explicit", "recall_explicit", "tuple_f1_explicit"}
REFERENCE_ORDER = [c.strip() for c in (CONFORMANCE / "columns_all.txt").read_text().splitlines() if c.strip()]
INPUTS = {**{name: CONFORMANCE / name for name in CASES}, **{p.name: p for p in sorted(RUNS.iterdir()) if p.is_dir()}}


def one_row(path: Path) -> dict[str, str]:
    with open(path, newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 1
    return rows[0]


def same(ours: str, expected: str) -> bool:
    ours, expected = ours.strip(), expected.strip()
    if not ours or not expected or expected in ("True", "False") or ours in ("True", "False"):
        return ours == expected
    try:
        return math.isclose(float(ours), float(expected), rel_tol=0.0, abs_tol=1e-9)
    except ValueError:
        return ours == expected


def mismatches(ours: dict[str, str], expected: dict[str, str]) -> dict[str, tuple[str, str]]:
    """Columns of the research tool's CSV (all 230) where ``ours`` does not conform."""
    wrong: dict[str, tuple[str, str]] = {}
    for column in REFERENCE_ORDER:
        want = expected.get(column, "")
        if column not in ours:
            wrong[column] = ("<missing column>", want)
        elif column in PROVENANCE:
            if not ours[column].strip():
                wrong[column] = (ours[column], "<non-blank>")
        elif column not in FILLED_HERE and not same(ours[column], want):
            wrong[column] = (ours[column], want)
    if not same(ours.get("tuple_f1_explicit", ""), expected["tuple_f1_s2_otepol_explicit_only"]):
        wrong["tuple_f1_explicit"] = (ours.get("tuple_f1_explicit", ""), expected["tuple_f1_s2_otepol_explicit_only"])
    return wrong


@pytest.fixture(scope="module")
def aggregated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("conformance")
    done = run_cli(*INPUTS.values(), "--outdir", out, "--quiet")
    assert done.returncode == 0, done.stderr
    return out


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_every_column_matches_the_research_tool(name: str, aggregated: Path) -> None:
    ours = one_row(aggregated / name / "structural_metrics.csv")
    expected = one_row(INPUTS[name] / "expected_structural_metrics.csv")
    assert not mismatches(ours, expected)


@pytest.mark.parametrize("name", sorted(INPUTS))
def test_csv_columns_come_in_the_research_tools_order(name: str, aggregated: Path) -> None:
    header = (aggregated / name / "structural_metrics.csv").read_text(encoding="utf-8").splitlines()[0].split(",")
    assert header[: len(REFERENCE_ORDER)] == REFERENCE_ORDER


def test_the_checker_can_fail() -> None:
    expected = one_row(CONFORMANCE / "synth_pub" / "expected_structural_metrics.csv")
    ours = dict(expected, tuple_f1_explicit=expected["tuple_f1_s2_otepol_explicit_only"])
    assert not mismatches(ours, expected)
    assert set(mismatches({**ours, "tuple_f1_s2": "0.5"}, expected)) == {"tuple_f1_s2"}
    assert set(mismatches({**ours, "n": ""}, expected)) == {"n"}
    assert set(mismatches({k: v for k, v in ours.items() if k != "eval_semver"}, expected)) == {"eval_semver"}
