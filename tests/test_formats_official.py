"""``aggregate score --compat ... --json`` equals each official scorer's printed numbers on every shared case."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aggregator.formats.evaluate import evaluate
from aggregator.formats.payload import payload
from tests.conftest import FIXTURES, run_cli
from tests.peer_expected import case_files, checks

CASES = sorted((FIXTURES / "peer").glob("*/case_*"))


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.parent.name}/{c.name}")
def test_every_official_number_of_the_case(case: Path) -> None:
    gold, pred, fmt = case_files(case)
    expected = json.loads((case / "expected.json").read_text())
    found = checks(fmt, expected)
    assert len(found) >= 6
    payloads = {}
    for compat, label, value, read in found:
        if compat not in payloads:
            payloads[compat] = payload(evaluate(gold, pred, fmt, compat))
        got = read(payloads[compat])
        if isinstance(value, bool):
            assert got is value, label
        else:
            assert got == pytest.approx(value, abs=1e-9, rel=0), label


def test_the_command_prints_the_same_json(tmp_path: Path) -> None:
    gold, pred, fmt = case_files(FIXTURES / "peer" / "nikluge_sa_2022" / "case_1")
    done = run_cli("score", gold, pred, "--format", fmt, "--compat", "nikluge-prefix-2022-10", "--json")
    assert done.returncode == 0, done.stderr
    printed = json.loads(done.stdout)
    assert printed["official"]["pipeline"]["precision"] == pytest.approx(0.7207792207792207, abs=1e-12)
    assert printed["sound"]["pipeline"]["f1"] <= 1


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.parent.name}/{c.name}")
def test_the_compat_report_adds_up_to_official_minus_sound(case: Path) -> None:
    gold, pred, fmt = case_files(case)
    evaluation = evaluate(gold, pred, fmt)
    body = payload(evaluation)
    official, sound = body["official"], body["sound"]
    units = official.keys() if "f1" not in official else [None]
    for unit in units:
        pick = (lambda d: d) if unit is None else (lambda d: d[unit])  # noqa: B023
        total = sum(pick(step["effect"])["f1"] for step in body["compat_report"])
        assert pick(official)["f1"] - pick(sound)["f1"] == pytest.approx(total, abs=1e-12)
    assert all(step["count"] > 0 for step in body["compat_report"])
