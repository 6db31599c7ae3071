"""Stage change (DIAGNOSTICS.md family 9): hand-worked scorecards, blank-vs-0 and quirk Q6, laws."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.scorecard_rows import evaluate_rows, item, row

REF = "본품#품질"
GOLD = [item(REF, "맛", "positive")]
POS, NEG = [item(REF, "맛", "positive")], [item(REF, "맛", "negative")]
FAMILIES = ("stage_change",)


def evaluate(tmp_path: Path, rows: list[dict[str, Any]]) -> tuple[dict[str, object], pl.DataFrame]:
    run = evaluate_rows(tmp_path / "run", rows, families=FAMILIES)
    return run.metrics, run.table


def five_rows() -> list[dict[str, Any]]:
    return [
        # changed, "Guided" -> ctype guided; S1 F1 0 -> S2 F1 1: dF1 = +1; no moderator -> MS stage2
        row("k1", gold=GOLD, stage1=NEG, final=POS, stage_delta={"changed": True, "change_type": "Guided"}),
        # changed (1 is truthy), exactly guided_by_review; dF1 = 0 - 1 = -1; MS " stage1 " stripped
        row("k2", gold=GOLD, stage1=POS, final=NEG, stage_delta={"changed": 1, "change_type": "guided_by_review"},
            moderator={"selected_stage": " stage1 "}),
        # not changed but guided_by_review (counted by guided_by_review_rate, Q6); RuleM -> mismatch; no gold
        row("k3", final=POS, stage_delta={"changed": False, "change_type": "guided_by_review"},
            moderator={"applied_rules": ["RuleB", "RuleM"]}),
        # changed ("yes"), UNGUIDED -> unguided; stage-2 ATE label differs from stage 1 -> mismatch
        row("k4", final=POS, stage_delta={"changed": "yes", "change_type": "UNGUIDED"},
            stage1_ate={"label": "pos"}, stage2_ate={"label": "neg"}),
        # stage_delta not an object -> {}: not changed, ctype none, MS stage1; "ruleM" is not RuleM;
        # stage2 label "" equals the stage1 default "" -> no mismatch
        row("k5", final=POS, stage_delta=[1], moderator={"applied_rules": ["ruleM"]}, stage2_ate={"label": ""}),
    ]


def test_per_sample_building_blocks(tmp_path: Path) -> None:
    _, table = evaluate(tmp_path, five_rows())
    got = table.select("sample_key", "stage_delta_present", "sd_changed", "change_type", "change_type_guided_by_review",
                       "moderator_stage", "sample_delta_f1_refpol", "stage_mismatch").rows()
    assert got == [
        ("k1", True, True, "guided", False, "stage2", 1.0, False),
        ("k2", True, True, "guided_by_review", True, "stage1", -1.0, False),
        ("k3", True, False, "guided_by_review", True, "stage1", None, True),
        ("k4", True, True, "unguided", False, "stage2", None, True),
        ("k5", False, False, "none", False, "stage1", None, False),
    ]


def test_rates(tmp_path: Path) -> None:
    metrics, _ = evaluate(tmp_path, five_rows())
    assert metrics["changed_samples_rate"] == pytest.approx(3 / 5)  # k1, k2, k4 changed
    assert metrics["pre_to_post_change_rate"] == metrics["changed_samples_rate"]
    assert metrics["guided_change_rate"] == pytest.approx(2 / 3)  # k1 guided, k2 guided_by_review, of 3 changed
    assert metrics["guided_by_review_rate"] == pytest.approx(2 / 3)  # k2 and unchanged k3 (Q6), of 3 changed
    assert metrics["unguided_drift_rate"] == pytest.approx(1 / 5)  # k4
    assert metrics["changed_and_improved_rate"] == pytest.approx(1 / 3)  # k1 (dF1 > 0)
    assert metrics["changed_and_degraded_rate"] == pytest.approx(1 / 3)  # k2 (dF1 < 0)
    assert metrics["stage_mismatch_rate"] == pytest.approx(2 / 5)  # k3 RuleM, k4 labels differ


def test_no_changed_row_gives_zero_and_blank(tmp_path: Path) -> None:
    rows = [row("k1", gold=GOLD, final=POS, stage_delta={"changed": 0, "change_type": "guided_by_review"}),
            row("k2", gold=GOLD, final=POS)]
    metrics, _ = evaluate(tmp_path, rows)
    assert metrics["changed_samples_rate"] == 0.0
    assert metrics["guided_change_rate"] == 0.0  # b = 0 -> 0.0
    assert metrics["guided_by_review_rate"] == 0.0  # b = 0 -> 0.0 although k1 is guided_by_review
    assert metrics["unguided_drift_rate"] == 0.0
    assert metrics["changed_and_improved_rate"] is None  # b = 0 -> blank
    assert metrics["changed_and_degraded_rate"] is None
    assert metrics["stage_mismatch_rate"] == 0.0


def test_guided_by_review_rate_can_exceed_one(tmp_path: Path) -> None:
    # Q6: 3 rows say guided_by_review, 1 row changed -> 3 / 1
    sd = {"change_type": "guided_by_review"}
    rows = [row("k1", final=POS, stage_delta={**sd, "changed": True}),
            row("k2", final=POS, stage_delta={**sd, "changed": False}),
            row("k3", final=POS, stage_delta=sd),
            row("k4", final=POS, stage_delta={"changed": False, "change_type": "GUIDED_BY_REVIEW"})]  # case counts
    metrics, _ = evaluate(tmp_path, rows)
    assert metrics["guided_by_review_rate"] == 3.0
    assert metrics["guided_change_rate"] == 1.0  # k1
    assert metrics["changed_and_improved_rate"] == 0.0  # changed row without gold: numerator 0, not blank


def test_non_string_selected_stage_and_change_type(tmp_path: Path) -> None:
    rows = [row("k1", final=POS, stage_delta={"changed": True, "change_type": 7}, moderator={"selected_stage": 2})]
    _, table = evaluate(tmp_path, rows)
    assert table.select("change_type", "moderator_stage").row(0) == ("7", "2")


SD = st.fixed_dictionaries({}, optional={
    "changed": st.sampled_from([True, False, 0, 1, "0", "", None]),
    "change_type": st.sampled_from(["guided", "Guided", "guided_by_review", "unguided", "none", "", None]),
})
SAMPLE = st.tuples(st.booleans(), st.sampled_from([POS, NEG]), st.sampled_from([POS, NEG]), SD,
                   st.sampled_from([None, {"label": "a"}, {"label": None}]))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(samples=st.lists(SAMPLE, min_size=1, max_size=6))
def test_rates_are_shares_of_per_sample_flags(tmp_path: Path, samples: list[Any]) -> None:
    rows = [row(f"k{i}", gold=GOLD if gold else None, stage1=s1, final=s2, stage_delta=sd, stage2_ate=ate)
            for i, (gold, s1, s2, sd, ate) in enumerate(samples)]
    metrics, table = evaluate(tmp_path, rows)
    n, changed = table.height, table.get_column("sd_changed")
    assert metrics["changed_samples_rate"] == pytest.approx(changed.sum() / n)
    assert metrics["stage_mismatch_rate"] == pytest.approx(table.get_column("stage_mismatch").sum() / n)
    for name in ("changed_samples_rate", "guided_change_rate", "unguided_drift_rate", "stage_mismatch_rate"):
        assert 0.0 <= metrics[name] <= 1.0  # type: ignore[operator]
    improved = table.filter(pl.col("sd_changed") & (pl.col("sample_delta_f1_refpol") > 0)).height
    if changed.sum():
        assert metrics["changed_and_improved_rate"] == pytest.approx(improved / changed.sum())
    else:
        assert metrics["changed_and_improved_rate"] is None
    assert table.filter(~pl.col("has_gold")).get_column("sample_delta_f1_refpol").null_count() == (~table["has_gold"]).sum()


def test_absent_stage_delta_is_reported(tmp_path: Path) -> None:
    run = evaluate_rows(tmp_path / "run", [row("k1", final=POS, moderator={"applied_rules": ["RuleM"]})],
                        families=FAMILIES)
    absent = run.registry.absent_fields(run.table)
    assert "changed_samples_rate" in absent and "guided_change_rate" in absent
    assert "stage_mismatch_rate" not in absent  # it reads the moderator, not stage_delta
    assert run.metrics["changed_samples_rate"] == 0.0  # 0 by the rule, flagged as a field never present
