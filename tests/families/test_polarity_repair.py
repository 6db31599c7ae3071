"""Polarity repair (DIAGNOSTICS.md family 14): the rows' meta counts plus the side file (Q11)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.scorecard_rows import evaluate_rows, item, row

POS = [item("본품#품질", "맛", "positive")]
FAMILIES = ("polarity_repair",)
SIDE = "override_gate_debug_summary.json"
COLUMNS = ("polarity_repair_n", "polarity_invalid_n", "polarity_repair_rate", "polarity_invalid_rate")


def evaluate(tmp_path: Path, rows: list[dict[str, Any]], side: Any = None, **options: Any) -> list[object]:
    if side is not None:
        (tmp_path / "run").mkdir(parents=True, exist_ok=True)
        (tmp_path / "run" / SIDE).write_text(json.dumps(side), encoding="utf-8")
    run = evaluate_rows(tmp_path / "run", rows, families=FAMILIES, **options)
    return [run.metrics[c] for c in COLUMNS]


def three_rows() -> list[dict[str, Any]]:
    return [
        row("k1", final=POS, meta={"polarity_repair_count": 2, "polarity_invalid_count": 1}, profile="smoke"),
        row("k2", final=POS, meta={"polarity_repair_count": "3", "polarity_invalid_count": None}),  # "3" -> 3
        row("k3", final=POS),
    ]


def test_rows_only(tmp_path: Path) -> None:
    # repair 2 + 3 = 5, invalid 1
    assert evaluate(tmp_path, three_rows()) == [5, 1, pytest.approx(5 / 6), pytest.approx(1 / 6)]


def test_side_file_totals_are_added(tmp_path: Path) -> None:
    side = {"override_hint_repair_total": 3, "override_hint_invalid_total": 7}
    # repair 5 + 3 = 8, invalid 1 + 7 = 8
    assert evaluate(tmp_path, three_rows(), side) == [8, 8, 0.5, 0.5]


def test_side_file_without_a_key_adds_zero(tmp_path: Path) -> None:
    assert evaluate(tmp_path, three_rows(), {"override_hint_invalid_total": 3}) == [5, 4, pytest.approx(5 / 9),
                                                                                 pytest.approx(4 / 9)]


def test_side_file_ignored_when_profile_matches_no_row(tmp_path: Path) -> None:
    side = {"override_hint_repair_total": 3, "override_hint_invalid_total": 7}
    assert evaluate(tmp_path, three_rows(), side, profile="paper_main")[:2] == [5, 1]  # fallback: meta only
    assert evaluate(tmp_path, three_rows(), side, profile="smoke")[:2] == [2 + 3, 1 + 7]  # k1 plus the side file


def test_nothing_repaired_or_invalid_gives_blank_rates(tmp_path: Path) -> None:
    assert evaluate(tmp_path, [row("k1", final=POS)]) == [0, 0, None, None]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(counts=st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=1, max_size=5))
def test_rates_are_shares_of_the_summed_counts(tmp_path: Path, counts: list[tuple[int, int]]) -> None:
    rows = [row(f"k{i}", final=POS, meta={"polarity_repair_count": r, "polarity_invalid_count": v})
            for i, (r, v) in enumerate(counts)]
    repair, invalid, repair_rate, invalid_rate = evaluate(tmp_path, rows)
    assert (repair, invalid) == (sum(r for r, _ in counts), sum(v for _, v in counts))
    if repair + invalid:  # type: ignore[operator]
        assert repair_rate + invalid_rate == pytest.approx(1.0)  # type: ignore[operator]
        assert 0.0 <= repair_rate <= 1.0  # type: ignore[operator]
    else:
        assert repair_rate is None and invalid_rate is None
