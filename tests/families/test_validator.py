"""Validator risk (DIAGNOSTICS.md family 8): hand-worked rows for r1/r2/nc/sev (quirk Q16), S1R and S2R,
flagged and resolved; hand-worked rates, 0.0 when a denominator is 0, a rate above 1; laws."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.scorecard_rows import evaluate_rows, item, row

REF = "본품#품질"
TASTE = [item(REF, "맛")]
FAMILIES = ("validator",)
Json = dict[str, Any]


def block(stage: Any, *risks: Json) -> Json:
    return {"stage": stage, "structural_risks": list(risks)}


def risk(risk_id: Any = "OTHER", severity: Any = None) -> Json:
    return {"risk_id": risk_id, **({} if severity is None else {"severity": severity})}


def evaluate(tmp_path: Path, rows: list[Json]) -> tuple[dict[str, object], pl.DataFrame]:
    run = evaluate_rows(tmp_path / "run", rows, families=FAMILIES)
    return run.metrics, run.table


def five_rows() -> list[Json]:
    grounded_false = {"sentiment_judgements": [{"aspect_term": "맛", "opinion_grounded": False}]}
    return [
        # first stage1 block: r1 = 2, nc1 = 1 (CONTRAST_SCOPE); the second stage1 block ("Stage1") adds only
        # severity (Q16): sev1 = high 3 + low 1 + unknown 2 = 6; nc over every block = CONTRAST + negation = 2;
        # " stage2 " is stripped: r2 = 1, sev2 = missing (mid) 2; S1R r1 > 0, S2R r2 > 0; resolved 1 < 2
        row("v1", final=TASTE, stage_delta={"changed": True},
            validator=[block("stage1", risk("CONTRAST_SCOPE", "high"), risk("other", "Low")),
                       block("Stage1", risk("negation_x", "weird")), block(" stage2 ", risk())]),
        # top-level flags decide S1R (true) and S2R (false) although no risk is listed; PC (맛 pos, 향 neg);
        # r1 = 2, sev1 = 2 + 2; resolved (r2 = 0 < 2); not changed
        row("v2", final=[item(REF, "맛"), item(REF, "향", "negative")], stage1_structural_risk=True,
            stage2_structural_risk=False, validator=[block("stage1", risk("A"), risk("B", ""))]),
        # no validator: AF = 2 -> S1R and risk_flagged; no FT and no label -> RQ1 unsupported -> outcome risk
        row("v3", stage_delta={"changed": 1},
            inputs={"ate_debug": {"filtered": [{"action": "drop", "drop_reason": "alignment_failure"}] * 2}}),
        # S1R from RQ1 = explicit_failure (judgement not grounded) with stage1_structural_risk null;
        # empty stage1 block: r1 = 0; r2 = 1, sev2 = MID 2; not flagged, not resolved
        row("v4", final=TASTE, atsa=grounded_false, stage1_structural_risk=None,
            validator=[block("stage1"), block("stage2", risk("X", "MID"))]),
        # clean: no risk, RQ1 explicit
        row("v5", final=TASTE, atsa={"sentiment_judgements": [{"aspect_term": "맛", "opinion_grounded": True}]},
            validator=[]),
    ]


def test_per_sample_building_blocks(tmp_path: Path) -> None:
    _, table = evaluate(tmp_path, five_rows())
    got = table.select("sample_key", "r1", "r2", "nc", "nc1", "nc2", "sev1", "sev2", "stage1_risk", "stage2_risk",
                       "validator_cleared", "residual_risk", "outcome_residual_risk", "risk_flagged", "risk_resolved",
                       "validator_present").rows()
    assert got == [
        ("v1", 2, 1, 2, 1, 0, 6.0, 2.0, True, True, False, True, True, True, True, True),
        ("v2", 2, 0, 0, 0, 0, 4.0, 0.0, True, False, True, False, True, True, True, True),
        ("v3", 0, 0, 0, 0, 0, 0.0, 0.0, True, False, True, False, True, True, False, False),
        ("v4", 0, 1, 0, 0, 0, 0.0, 2.0, True, True, False, True, True, False, False, True),
        ("v5", 0, 0, 0, 0, 0, 0.0, 0.0, False, False, False, False, False, False, False, False),
    ]


def test_rates(tmp_path: Path) -> None:
    metrics, _ = evaluate(tmp_path, five_rows())
    assert metrics["validator_clear_rate"] == pytest.approx(2 / 4)  # v2, v3 cleared of S1R v1..v4
    assert metrics["risk_resolution_rate"] == metrics["validator_clear_rate"]
    assert metrics["validator_residual_risk_rate"] == pytest.approx(2 / 5)  # v1, v4
    assert metrics["residual_risk_rate"] == metrics["validator_residual_risk_rate"]
    assert metrics["outcome_residual_risk_rate"] == pytest.approx(4 / 5)  # v1 r2, v2 PC, v3 unsupported, v4 r2
    assert metrics["risk_resolution_rate_legacy"] == pytest.approx((4 - 2) / 4)  # Σr1 = 4, Σr2 = 2
    assert metrics["risk_flagged_rate"] == pytest.approx(3 / 5)  # v1, v2, v3
    assert metrics["risk_affected_change_rate"] == pytest.approx(2 / 3)  # v1, v3 changed of 3 flagged
    assert metrics["ignored_proposal_rate"] == pytest.approx(1 / 3)  # v2
    assert metrics["risk_resolved_with_change_rate"] == pytest.approx(1 / 2)  # v1 of changed v1, v3
    assert metrics["risk_resolved_without_change_rate"] == pytest.approx(1 / 3)  # v2 of unchanged v2, v4, v5
    assert metrics["risk_before_sum"] == 10.0  # 6 + 4
    assert metrics["risk_after_sum"] == 4.0  # 2 + 2
    assert metrics["residual_risk_severity_sum"] == 4.0
    assert metrics["risk_delta_sum"] == -6.0  # (2 - 6) + (0 - 4) + 0 + (2 - 0) + 0
    assert metrics["risk_before_sum_mean"] == pytest.approx(10 / 5)
    assert metrics["risk_after_sum_mean"] == pytest.approx(4 / 5)
    assert metrics["risk_delta_sum_mean"] == pytest.approx(-6 / 5)
    assert metrics["negation_contrast_failure_rate"] == pytest.approx(2 / 5)


def test_empty_denominators_give_zero(tmp_path: Path) -> None:
    metrics, _ = evaluate(tmp_path, [row("k", final=TASTE)])
    # no S1R, Σr1 = 0, nothing flagged, nothing changed: 0.0, never blank
    for name in ("validator_clear_rate", "risk_resolution_rate_legacy", "risk_affected_change_rate",
                 "ignored_proposal_rate", "risk_resolved_with_change_rate", "risk_resolved_without_change_rate",
                 "risk_flagged_rate", "validator_residual_risk_rate", "risk_before_sum", "risk_delta_sum_mean"):
        assert metrics[name] == 0.0, name
    assert metrics["outcome_residual_risk_rate"] == 1.0  # RQ1 unsupported (no judgement)


def test_top_level_flags_are_read_by_truthiness(tmp_path: Path) -> None:
    risky = [block("stage1", risk()), block("stage2", risk())]
    rows = [row("k1", validator=risky, stage1_structural_risk=0, stage2_structural_risk=[]),  # present, falsy
            row("k2", stage1_structural_risk="yes", stage2_structural_risk={"a": 1})]  # present, truthy
    _, table = evaluate(tmp_path, rows)
    assert table.select("stage1_risk", "stage2_risk", "risk_flagged").rows() == [(False, False, True),
                                                                                  (True, True, False)]


def test_legacy_resolution_never_negative_and_nc_rate_above_one(tmp_path: Path) -> None:
    negations = [risk("NEGATION")] * 3
    rows = [row("k1", validator=[block("stage1", risk()), block("stage2", *negations)])]
    metrics, _ = evaluate(tmp_path, rows)
    assert metrics["risk_resolution_rate_legacy"] == 0.0  # max(0, 1 - 3) / 1
    assert metrics["negation_contrast_failure_rate"] == 3.0  # 3 risks in one row (Q15)
    assert metrics["risk_delta_sum"] == 4.0  # 3 * 2 - 2


def test_malformed_shapes_are_skipped(tmp_path: Path) -> None:
    rows = [row("k1", validator=[1, "x", block(7, risk()), block("stage1", "not a risk", risk(5, 3))]),
            row("k2", validator={"stage": "stage1"})]
    _, table = evaluate(tmp_path, rows)
    # k1: stage 7 matches no stage but its risk-free nc is 0; stage1: 2 items listed, one object risk with
    # non-text risk_id and severity (weight 2)
    assert table.select("r1", "nc", "sev1", "validator_present").rows() == [(2, 0, 2.0, True), (0, 0, 0.0, False)]


STAGES = st.sampled_from(["stage1", "stage2", "Stage2", "other"])
RISKS = st.lists(st.builds(risk, st.sampled_from(["OTHER", "NEGATION", "contrast_scope"]),
                           st.sampled_from([None, "high", "mid", "low", "x"])), max_size=3)
BLOCKS = st.lists(st.builds(lambda stage, risks: block(stage, *risks), STAGES, RISKS), max_size=3)
SAMPLE = st.tuples(BLOCKS, st.sampled_from([None, True, False]), st.booleans(), st.booleans())
EVERY_ROW = pl.col("sample_key").is_not_null()
SHARES = {
    "validator_clear_rate": ("validator_cleared", "stage1_risk"),
    "risk_affected_change_rate": (pl.col("risk_flagged") & pl.col("sd_changed"), "risk_flagged"),
    "ignored_proposal_rate": (pl.col("risk_flagged") & ~pl.col("sd_changed"), "risk_flagged"),
    "risk_resolved_with_change_rate": (pl.col("sd_changed") & pl.col("risk_resolved"), "sd_changed"),
    "risk_resolved_without_change_rate": (~pl.col("sd_changed") & pl.col("risk_resolved"), ~pl.col("sd_changed")),
    "validator_residual_risk_rate": ("residual_risk", EVERY_ROW),
    "outcome_residual_risk_rate": ("outcome_residual_risk", EVERY_ROW),
    "risk_flagged_rate": ("risk_flagged", EVERY_ROW),
}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(samples=st.lists(SAMPLE, min_size=1, max_size=6))
def test_rates_are_shares_of_per_sample_flags(tmp_path: Path, samples: list[Any]) -> None:
    rows = [row(f"k{i}", final=[item(REF, "맛"), item(REF, "향", "negative" if conflict else "positive")],
                validator=blocks, stage1_structural_risk=given1, stage_delta={"changed": changed})
            for i, (blocks, given1, conflict, changed) in enumerate(samples)]
    metrics, table = evaluate(tmp_path, rows)
    for name, (numerator, denominator) in SHARES.items():
        num = pl.col(numerator) if isinstance(numerator, str) else numerator
        den = pl.col(denominator) if isinstance(denominator, str) else denominator
        n, d = table.select(num.sum().alias("n"), den.sum().alias("d")).row(0)
        assert metrics[name] == pytest.approx(n / d if d else 0.0), name
        assert 0.0 <= metrics[name] <= 1.0  # type: ignore[operator]
    r1, r2 = table.get_column("r1").sum(), table.get_column("r2").sum()
    assert metrics["risk_resolution_rate_legacy"] == pytest.approx(max(0, r1 - r2) / r1 if r1 else 0.0)
    assert metrics["risk_delta_sum"] == metrics["risk_after_sum"] - metrics["risk_before_sum"]  # type: ignore[operator]
    assert metrics["negation_contrast_failure_rate"] == pytest.approx(table.get_column("nc").sum() / table.height)
    assert (table.get_column("nc1") <= table.get_column("nc")).all()
    assert table.filter(pl.col("risk_resolved") & (pl.col("r1") == 0)).height == 0


def test_absent_validator_is_told_apart_from_no_risk(tmp_path: Path) -> None:
    run = evaluate_rows(tmp_path / "absent", [row("k", final=TASTE)], families=FAMILIES)
    absent = set(run.registry.absent_fields(run.table))
    assert {"validator_residual_risk_rate", "risk_before_sum", "negation_contrast_failure_rate"} <= absent
    assert "risk_flagged_rate" not in absent  # also read from PC, AF
    present = evaluate_rows(tmp_path / "present", [row("k", final=TASTE, validator=[block("stage1")])],
                            families=FAMILIES)
    assert "validator_residual_risk_rate" not in present.registry.absent_fields(present.table)
