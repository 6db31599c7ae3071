"""Debate mapping and override counters (DIAGNOSTICS.md family 12): hand-worked scorecards, blank-vs-0, laws."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aggregator.metrics.structural import build_registry
from tests.scorecard_rows import evaluate_rows, item, row

POS = [item("본품#품질", "맛", "positive")]
FAMILIES = ("debate",)


def evaluate(tmp_path: Path, rows: list[dict[str, Any]]) -> tuple[dict[str, object], pl.DataFrame]:
    run = evaluate_rows(tmp_path / "run", rows, families=FAMILIES)
    return run.metrics, run.table


def five_rows() -> list[dict[str, Any]]:
    return [
        # tot 4: covered 3/4, direct 1/2, fallback 1/4, none 1/4; FAIL from debate; OV from debate
        row("k1", final=POS, debate={
            "mapping_stats": {"direct": 2, "fallback": 1, "none": 1},
            "mapping_fail_reasons": {"no_aspects": 1, "no_match": 2},
            "override_stats": {"applied": 1, "skipped_low_signal": 2}}),
        # from meta; tot sums every key (extra 1): 2; covered 1/2, direct 1/2; FAIL from meta ("2" -> 2)
        row("k2", final=POS, meta={
            "debate_mapping_stats": {"direct": 1, "fallback": 0, "none": 0, "extra": 1},
            "debate_mapping_fail_reasons": {"neutral_stance": 1, "fallback_used": "2"},
            "debate_override_stats": {"skipped_conflict": 1, "skipped_already_confident": 4}}),
        # tot 0: not mapped, its fail reasons are not counted
        row("k3", final=POS, debate={"mapping_stats": {"direct": 0, "none": 0},
                                     "mapping_fail_reasons": {"no_aspects": 5}}),
        # debate.mapping_stats {} is falsy -> meta's: tot 3, none 1; FAIL from debate
        row("k4", final=POS, debate={"mapping_stats": {}, "mapping_fail_reasons": {"no_match": 1}},
            meta={"debate_mapping_stats": {"none": 3}}),
        # nothing; a mapping_stats that is not an object reads as {}
        row("k5", final=POS, debate={"mapping_stats": [3]}),
    ]


def test_per_sample_building_blocks(tmp_path: Path) -> None:
    _, table = evaluate(tmp_path, five_rows())
    got = table.select("sample_key", "debate_map_total", "debate_mapped", "debate_map_covered_share",
                       "debate_map_direct_share", "debate_map_fail_no_match", "override_stat_applied").rows()
    assert got == [
        ("k1", 4, True, 0.75, 0.5, 2, 1),
        ("k2", 2, True, 0.5, 0.5, 0, 0),
        ("k3", 0, False, None, None, 0, 0),
        ("k4", 3, True, 0.0, 0.0, 1, 0),
        ("k5", 0, False, None, None, 0, 0),
    ]


def test_mapping_rates(tmp_path: Path) -> None:
    metrics, _ = evaluate(tmp_path, five_rows())
    # mapped rows k1, k2, k4
    assert metrics["debate_mapping_coverage"] == pytest.approx((0.75 + 0.5 + 0) / 3)
    assert metrics["debate_mapping_direct_rate"] == pytest.approx((0.5 + 0.5 + 0) / 3)
    assert metrics["debate_mapping_fallback_rate"] == pytest.approx((0.25 + 0 + 0) / 3)
    assert metrics["debate_mapping_none_rate"] == pytest.approx((0.25 + 0 + 1) / 3)
    # Σ tot = 4 + 2 + 3 = 9
    assert metrics["debate_fail_no_aspects_rate"] == pytest.approx(1 / 9)  # k1 (k3 is not mapped)
    assert metrics["debate_fail_no_match_rate"] == pytest.approx(3 / 9)  # k1 2 + k4 1
    assert metrics["debate_fail_neutral_stance_rate"] == pytest.approx(1 / 9)  # k2
    assert metrics["debate_fail_fallback_used_rate"] == pytest.approx(2 / 9)  # k2


def test_override_counters(tmp_path: Path) -> None:
    metrics, _ = evaluate(tmp_path, five_rows())
    assert metrics["debate_override_applied"] == 1
    assert metrics["debate_override_skipped_low_signal"] == 2
    assert metrics["debate_override_skipped_conflict"] == 1
    assert metrics["debate_override_skipped_already_confident"] == 4
    assert metrics["debate_override_skipped_already_confident_rate"] == pytest.approx(4 / 8)  # 4 / (1 + 2 + 1 + 4)


def test_no_mapped_row_and_no_counter_give_blanks_and_zeros(tmp_path: Path) -> None:
    metrics, _ = evaluate(tmp_path, [row("k1", final=POS, debate={"mapping_stats": {"direct": 0}})])
    for name in ("debate_mapping_coverage", "debate_mapping_direct_rate", "debate_mapping_fallback_rate",
                 "debate_mapping_none_rate", "debate_fail_no_aspects_rate", "debate_fail_fallback_used_rate",
                 "debate_override_skipped_already_confident_rate"):
        assert metrics[name] is None, name
    assert metrics["debate_override_applied"] == 0 and metrics["debate_override_skipped_conflict"] == 0


STATS = st.fixed_dictionaries({}, optional={k: st.sampled_from([0, 1, 2, "3", None]) for k in ("direct", "fallback", "none")})
FAIL = st.fixed_dictionaries({}, optional={k: st.sampled_from([0, 1, 4]) for k in ("no_aspects", "no_match")})


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(samples=st.lists(st.tuples(STATS, FAIL, st.sampled_from([0, 1, 3])), min_size=1, max_size=6))
def test_rates_are_means_and_shares_of_per_sample_values(tmp_path: Path, samples: list[Any]) -> None:
    rows = [row(f"k{i}", final=POS, debate={"mapping_stats": s, "mapping_fail_reasons": f,
                                            "override_stats": {"skipped_already_confident": c}})
            for i, (s, f, c) in enumerate(samples)]
    metrics, table = evaluate(tmp_path, rows)
    mapped = table.filter(pl.col("debate_mapped"))
    if mapped.height == 0:
        assert metrics["debate_mapping_coverage"] is None and metrics["debate_fail_no_match_rate"] is None
        return
    assert metrics["debate_mapping_coverage"] == pytest.approx(mapped.get_column("debate_map_covered_share").mean())
    total = mapped.get_column("debate_map_total").sum()
    assert metrics["debate_fail_no_match_rate"] == pytest.approx(mapped.get_column("debate_map_fail_no_match").sum() / total)
    for name in ("debate_mapping_coverage", "debate_mapping_direct_rate", "debate_mapping_fallback_rate",
                 "debate_mapping_none_rate"):
        assert 0.0 <= metrics[name] <= 1.0  # type: ignore[operator]
    shares = sum(metrics[f"debate_mapping_{k}_rate"] for k in ("direct", "fallback", "none"))  # type: ignore[misc]
    assert shares == pytest.approx(1.0)  # the three keys are all of MST here


def test_absent_mapping_stats_are_reported(tmp_path: Path) -> None:
    _, table = evaluate(tmp_path, [row("k1", final=POS, debate={"mapping_stats": {}})])
    assert "debate_mapping_coverage" in build_registry(FAMILIES).absent_fields(table)
    _, table = evaluate(tmp_path, [row("k1", final=POS, debate={"mapping_stats": {"direct": 0}})])
    assert "debate_mapping_coverage" not in build_registry(FAMILIES).absent_fields(table)
