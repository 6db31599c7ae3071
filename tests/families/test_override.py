"""Override subsets and reasons (DIAGNOSTICS.md family 13): hand-worked scorecards, the side file (Q11), Q10, laws."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aggregator.metrics.structural import build_registry
from scorecards.errors import InputError
from tests.scorecard_rows import evaluate_rows, item, row

REF = "본품#품질"
GOLD = [item(REF, "맛", "positive")]
POS, NEG = [item(REF, "맛", "positive")], [item(REF, "맛", "negative")]
FAMILIES = ("override",)
SIDE = "override_gate_debug_summary.json"
EV_REJECTED = {"adopt_decision": "not_adopted", "adopt_reason": "ev_below_threshold"}
FAILED_JUDGEMENT = {"sentiment_judgements": [{"aspect_term": "맛", "opinion_grounded": False}]}


def block(stage: str, *ids: str) -> dict[str, Any]:
    return {"stage": stage, "structural_risks": [{"risk_id": i} for i in ids]}


def evaluate(tmp_path: Path, rows: list[dict[str, Any]], **options: Any) -> tuple[dict[str, object], pl.DataFrame]:
    run = evaluate_rows(tmp_path / "run", rows, families=FAMILIES, **options)
    return run.metrics, run.table


def with_parsed_meta(value: dict[str, Any], meta: dict[str, Any]) -> dict[str, Any]:
    value["runtime"]["parsed_output"]["meta"] = meta
    return value


def five_rows() -> list[dict[str, Any]]:
    return [
        # applied (override_applied is true), effect applied, reason stripped; dF1 = 1 - 0 = +1; changed;
        # EV-rejected in runtime.parsed_output.meta only (the _fixed column); r1 2 -> r2 1: resolved;
        # nc 2 (NEGATION_SCOPE, contrast upper-cased)
        with_parsed_meta(row("k1", gold=GOLD, stage1=NEG, final=POS, stage_delta={"changed": True},
                             validator=[block("stage1", "NEGATION_SCOPE", "X"), block("stage2", "contrast")],
                             debate={"override_stats": {"override_applied": True, "override_effect_applied": True,
                                                        "override_reason": " debate_action "}}), EV_REJECTED),
        # OV from meta (no debate): applied = 2 > 0; conflict row (skipped_conflict 1); effect applied;
        # S2 = {pos, neg} against gold pos: P 1/2, R 1, F1 2/3 -> dF1 = 2/3 - 1 = -1/3; changed (1): harm;
        # EV-rejected in the top-level meta (Q10); a failing judgement on the final term: UNSUP;
        # r1 1 -> r2 1: not resolved; nc 0
        row("k2", gold=GOLD, stage1=POS, final=POS + NEG, stage_delta={"changed": 1}, atsa=FAILED_JUDGEMENT,
            validator=[block("stage1", "OTHER"), block("stage2", "OTHER")],
            meta={"debate_override_stats": {"applied": 2, "skipped_conflict": 1, "override_effect_applied": True,
                                            "override_reason": "risk_resolved"}, **EV_REJECTED}),
        # override_applied 1 is not `true` and applied 0: not applied; skipped_conflict "3" -> conflict row;
        # effect 1 is not `true`; dF1 = 0; skip reasons summed; nc 1
        row("k3", gold=GOLD, stage1=POS, final=POS, validator=[block("stage2", "Contrast_x")],
            debate={"override_stats": {"override_applied": 1, "applied": 0, "skipped_conflict": "3",
                                       "override_effect_applied": 1}},
            meta={"debate_override_skip_reasons": {"action_ambiguity": 2, "L3_conservative": 1}}),
        # debate.override_stats {} is falsy -> meta's; applied 1 -> applied; no gold (no dF1);
        # skip reasons not an object -> 0
        row("k4", final=POS, debate={"override_stats": {}},
            meta={"debate_override_stats": {"applied": 1, "override_reason": "low_signal", "skipped_conflict": 0},
                  "debate_override_skip_reasons": [1]}),
        # no override stats; skip reasons "2" -> 2, true -> 1
        row("k5", final=POS, meta={"debate_override_skip_reasons": {"low_confidence": "2", "contradictory_memory": 1,
                                                                    "implicit_soft_only": True}}),
    ]


def test_per_sample_building_blocks(tmp_path: Path) -> None:
    _, table = evaluate(tmp_path, five_rows())
    got = table.select("sample_key", "override_applied", "override_skipped_conflict", "override_effect_applied",
                       "override_reason", "override_ev_rejected", "override_ev_rejected_fixed").rows()
    assert got == [
        ("k1", True, False, True, "debate_action", False, True),
        ("k2", True, True, True, "risk_resolved", True, False),
        ("k3", False, True, False, None, False, False),
        ("k4", True, False, False, "low_signal", False, False),
        ("k5", False, False, False, None, False, False),
    ]


def test_counts_and_reasons(tmp_path: Path) -> None:
    metrics, _ = evaluate(tmp_path, five_rows())
    assert metrics["override_applied_n"] == 3  # k1, k2, k4
    assert metrics["override_applied_rate"] == pytest.approx(3 / 5)
    assert metrics["override_skipped_conflict_n"] == 2  # k2, k3
    expected_skips = {"action_ambiguity": 2, "L3_conservative": 1, "implicit_soft_only": 1, "low_confidence": 2,
                      "contradictory_memory": 1}
    for key, value in expected_skips.items():
        assert metrics[f"override_skipped_conflict_{key}"] == value
    reasons = {"risk_resolved": 1, "debate_action": 1, "grounding_improved": 0, "conflict_blocked": 0,
               "low_signal": 1, "ev_below_threshold": 0}
    for reason, value in reasons.items():
        assert metrics[f"override_reason_{reason}_n"] == value


def test_subset_rates(tmp_path: Path) -> None:
    metrics, _ = evaluate(tmp_path, five_rows())
    assert metrics["override_applied_and_adopted_rate"] == pytest.approx(2 / 5)  # effect is true: k1, k2
    assert metrics["override_applied_but_ev_rejected_rate"] == pytest.approx(1 / 5)  # k2 (top-level meta, Q10)
    assert metrics["override_applied_but_ev_rejected_rate_fixed"] == pytest.approx(1 / 5)  # k1 (PO.meta)
    assert metrics["override_applied_delta_f1_mean"] == pytest.approx((1 - 1 / 3) / 2)  # k1, k2 (k4 no gold)
    assert metrics["override_skipped_conflict_delta_f1_mean"] == pytest.approx((-1 / 3 + 0) / 2)  # k2, k3
    assert metrics["override_applied_unsupported_polarity_rate"] == pytest.approx(1 / 3)  # k2 of k1, k2, k4
    assert metrics["override_skipped_conflict_unsupported_polarity_rate"] == pytest.approx(1 / 2)  # k2 of k2, k3
    assert metrics["override_harm_rate"] == pytest.approx(1 / 2)  # effect k1, k2; k2 changed with dF1 < 0
    assert metrics["override_success_rate"] == pytest.approx(1 / 3)  # k1 resolved, of k1, k2, k4
    assert metrics["override_applied_negation_contrast_failure_rate"] == pytest.approx(2 / 3)  # (2 + 0 + 0) / 3
    assert metrics["override_skipped_conflict_negation_contrast_failure_rate"] == pytest.approx(1 / 2)  # (0 + 1) / 2


def test_nc_per_applied_row_can_exceed_one(tmp_path: Path) -> None:
    rows = [row("k1", final=POS, validator=[block("stage1", "NEGATION", "CONTRAST", "NEGATION_2")],
                debate={"override_stats": {"applied": 1}})]
    metrics, _ = evaluate(tmp_path, rows)
    assert metrics["override_applied_negation_contrast_failure_rate"] == 3.0
    assert metrics["override_success_rate"] == 1.0  # r1 3 > 0 and r2 0 < r1: resolved


def test_no_applied_or_conflict_row_gives_blanks(tmp_path: Path) -> None:
    metrics, _ = evaluate(tmp_path, [row("k1", gold=GOLD, final=POS), row("k2", final=POS)])
    for name in ("override_applied_delta_f1_mean", "override_applied_unsupported_polarity_rate",
                 "override_skipped_conflict_delta_f1_mean", "override_skipped_conflict_unsupported_polarity_rate",
                 "override_harm_rate", "override_success_rate", "override_applied_negation_contrast_failure_rate",
                 "override_skipped_conflict_negation_contrast_failure_rate"):
        assert metrics[name] is None, name
    for name in ("override_applied_rate", "override_applied_and_adopted_rate",
                 "override_applied_but_ev_rejected_rate", "override_applied_but_ev_rejected_rate_fixed"):
        assert metrics[name] == 0.0, name
    assert metrics["override_applied_n"] == 0 and metrics["override_reason_low_signal_n"] == 0


def test_applied_rows_without_gold_leave_the_mean_blank_and_the_rate_zero(tmp_path: Path) -> None:
    rows = [row("k1", final=POS, debate={"override_stats": {"applied": 1, "override_effect_applied": True}})]
    metrics, _ = evaluate(tmp_path, rows)
    assert metrics["override_applied_delta_f1_mean"] is None  # no applied row with gold
    assert metrics["override_applied_unsupported_polarity_rate"] == 0.0
    assert metrics["override_harm_rate"] == 0.0  # one effect row, not harmed


def write_side(tmp_path: Path, content: Any) -> None:
    (tmp_path / "run").mkdir(parents=True, exist_ok=True)
    text = content if isinstance(content, str) else json.dumps(content)
    (tmp_path / "run" / SIDE).write_text(text, encoding="utf-8")


HINTS = ("override_hint_invalid_total", "override_hint_repair_total", "override_hint_invalid_rate")


def test_side_file_columns(tmp_path: Path) -> None:
    write_side(tmp_path, {"override_hint_invalid_total": 7, "override_hint_repair_total": 3,
                          "override_hint_invalid_rate": 0.7, "by_sample": {"k1": {"adopt_decision": "x"}}})
    run = evaluate_rows(tmp_path / "run", [row("k1", final=POS)], families=FAMILIES)
    assert [run.metrics[h] for h in HINTS] == [7, 3, 0.7]
    assert run.side_files == {SIDE: SIDE}


def test_side_file_absent_keys_and_null_rate_are_blank(tmp_path: Path) -> None:
    write_side(tmp_path, {"override_hint_invalid_total": 4, "override_hint_invalid_rate": None})
    metrics, _ = evaluate(tmp_path, [row("k1", final=POS)])
    assert [metrics[h] for h in HINTS] == [4, None, None]


def test_no_side_file(tmp_path: Path) -> None:
    run = evaluate_rows(tmp_path / "run", [row("k1", final=POS)], families=FAMILIES)
    assert [run.metrics[h] for h in HINTS] == [None, None, None]
    assert run.side_files == {SIDE: None}


def test_side_file_ignored_when_profile_matches_no_row(tmp_path: Path) -> None:
    write_side(tmp_path, {"override_hint_invalid_total": 7})
    rows = [row("k1", final=POS, profile="smoke")]
    assert evaluate(tmp_path, rows, profile="paper_main")[0]["override_hint_invalid_total"] is None
    assert evaluate(tmp_path, rows, profile="smoke")[0]["override_hint_invalid_total"] == 7


@pytest.mark.parametrize("content", ['{"override_hint_invalid_total": "7"}', "[1, 2]", "{not json"])
def test_side_file_of_the_wrong_shape_is_bad_input(tmp_path: Path, content: str) -> None:
    write_side(tmp_path, content)
    with pytest.raises(InputError, match=SIDE):
        evaluate(tmp_path, [row("k1", final=POS)])


OV = st.fixed_dictionaries({}, optional={
    "applied": st.sampled_from([0, 1, 2, "1", None]),
    "skipped_conflict": st.sampled_from([0, 1, None]),
    "override_applied": st.sampled_from([True, False, 1, None]),
    "override_effect_applied": st.sampled_from([True, False, 1, None]),
    "override_reason": st.sampled_from(["low_signal", "debate_action", " risk_resolved", "", None]),
})


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(samples=st.lists(st.tuples(OV, st.booleans(), st.sampled_from([POS, NEG])), min_size=1, max_size=6))
def test_rates_are_shares_of_per_sample_flags(tmp_path: Path, samples: list[Any]) -> None:
    rows = [row(f"k{i}", gold=GOLD if gold else None, stage1=POS, final=final, stage_delta={"changed": True},
                debate={"override_stats": ov}) for i, (ov, gold, final) in enumerate(samples)]
    metrics, table = evaluate(tmp_path, rows)
    n = table.height
    applied, effect = table.get_column("override_applied"), table.get_column("override_effect_applied")
    assert metrics["override_applied_n"] == applied.sum() <= n
    assert metrics["override_applied_rate"] == pytest.approx(applied.sum() / n)
    assert metrics["override_applied_and_adopted_rate"] == pytest.approx(effect.sum() / n)
    assert sum(metrics[f"override_reason_{r}_n"] for r in ("low_signal", "debate_action", "risk_resolved")) <= n  # type: ignore[misc]
    harmed = table.filter(pl.col("override_effect_applied") & pl.col("has_gold") & (pl.col("sample_delta_f1_refpol") < 0)).height
    assert metrics["override_harm_rate"] == (pytest.approx(harmed / effect.sum()) if effect.sum() else None)
    for name in ("override_applied_rate", "override_applied_and_adopted_rate", "override_harm_rate",
                 "override_applied_unsupported_polarity_rate"):
        assert metrics[name] is None or 0.0 <= metrics[name] <= 1.0  # type: ignore[operator]


def test_absent_override_fields_are_reported(tmp_path: Path) -> None:
    _, table = evaluate(tmp_path, [row("k1", final=POS)])
    absent = set(build_registry(FAMILIES).absent_fields(table))
    assert {"override_applied_n", "override_harm_rate", "override_skipped_conflict_L3_conservative"} <= absent
    _, table = evaluate(tmp_path, [row("k1", final=POS, debate={"override_stats": {"applied": 0}})])
    absent = set(build_registry(FAMILIES).absent_fields(table))
    assert "override_applied_n" not in absent and "override_skipped_conflict_L3_conservative" in absent
