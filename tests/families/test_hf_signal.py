"""External (HF) signal (DIAGNOSTICS.md family 16): pol3 disagreement, quirk Q12 and its _fixed columns."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aggregator.metrics.hf_signal import pol3
from tests.scorecard_rows import evaluate_rows, item, row

FINAL = [item("본품#품질", "맛", "positive")]
RISK1 = [{"stage": "stage1", "structural_risks": [{"risk_id": "OTHER"}]}]
RISK2 = [{"stage": "stage2", "structural_risks": [{"risk_id": "OTHER"}]}]
COLUMNS = ("hf_polarity_disagreement_rate", "hf_disagreement_coverage_of_structural_risks")


def hf(label: Any) -> dict[str, Any]:
    return {"hf": {"label": label}}


def with_po_label(value: dict[str, Any], label: str) -> dict[str, Any]:
    value["runtime"]["parsed_output"]["final_result"]["label"] = label
    return value


def evaluate(tmp_path: Path, rows: list[dict[str, Any]]) -> tuple[dict[str, object], pl.DataFrame]:
    run = evaluate_rows(tmp_path / "run", rows, families=("hf_signal",))
    return run.metrics, run.table


def six_rows() -> list[dict[str, Any]]:
    return [
        # pos vs moderator neg: disagree under both readings; stage-1 risk
        row("k1", final=FINAL, aux_signals=hf("Positive"), moderator={"final_label": "neg"}, validator=RISK1),
        # neu vs no moderator label: top-level final_result absent -> "" -> neu (agree, Q12);
        # the parsed output's final label positive -> pos (disagree, _fixed); stage-2 risk
        with_po_label(row("k2", final=FINAL, aux_signals=hf("neutral"), validator=RISK2), "positive"),
        # mixed -> neu against top-level "Mixed" -> neu: agree; the _fixed reading finds no label: neu, agree
        row("k3", final=FINAL, aux_signals=hf("mixed"), final_result={"label": "Mixed"}),
        row("k4", final=FINAL, aux_signals=hf(None), validator=RISK1),  # null label: no HF signal
        row("k5", final=FINAL, aux_signals={}),  # no HF signal
        # a non-string label is neu; moderator negative -> disagree under both
        row("k6", final=FINAL, aux_signals=hf(5), moderator={"final_label": "negative"}),
    ]


def test_per_sample_values(tmp_path: Path) -> None:
    _, table = evaluate(tmp_path, six_rows())
    assert table.select("sample_key", "hf_label_present", "hf_disagrees", "hf_disagrees_fixed").rows() == [
        ("k1", True, True, True), ("k2", True, False, True), ("k3", True, False, False),
        ("k4", False, False, False), ("k5", False, False, False), ("k6", True, True, True),
    ]


def test_rates(tmp_path: Path) -> None:
    metrics, _ = evaluate(tmp_path, six_rows())
    assert metrics["hf_polarity_disagreement_rate"] == pytest.approx(2 / 4)  # k1, k6 of k1, k2, k3, k6
    assert metrics["hf_polarity_disagreement_rate_fixed"] == pytest.approx(3 / 4)  # k1, k2, k6
    assert metrics["hf_disagreement_coverage_of_structural_risks"] == pytest.approx(1 / 2)  # k1 of risky k1, k2
    assert metrics["hf_disagreement_coverage_of_structural_risks_fixed"] == 1.0  # k1, k2


def test_blank_without_hf_or_risky_hf_rows(tmp_path: Path) -> None:
    metrics, _ = evaluate(tmp_path, [row("k1", final=FINAL, validator=RISK1)])
    assert all(metrics[c + s] is None for c in COLUMNS for s in ("", "_fixed"))
    metrics, _ = evaluate(tmp_path / "2", [row("k1", final=FINAL, aux_signals=hf("pos"))])
    assert metrics["hf_polarity_disagreement_rate"] == 1.0  # pos vs neu
    assert metrics["hf_disagreement_coverage_of_structural_risks"] is None  # no risky row


def test_pol3() -> None:
    assert [pol3(x) for x in ("POS ", "positive", "neg", " Negative", "neutral", "mixed", "", None, "good", 1)] == [
        "pos", "pos", "neg", "neg", "neu", "neu", "neu", "neu", "neu", "neu"]


LABELS = st.sampled_from(["positive", "neg", "neutral", "mixed", "", None, 3])


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(samples=st.lists(st.tuples(st.one_of(st.just(None), LABELS), LABELS, st.sampled_from([[], RISK1, RISK2])),
                        min_size=1, max_size=6))
def test_rates_are_shares_of_per_sample_flags(tmp_path: Path, samples: list[Any]) -> None:
    rows = [row(f"k{i}", final=FINAL, validator=risk, moderator={"final_label": final},
                **({} if label is None else {"aux_signals": hf(label)}))
            for i, (label, final, risk) in enumerate(samples)]
    metrics, table = evaluate(tmp_path, rows)
    present = table.filter(pl.col("hf_label_present"))
    risky = present.filter((pl.col("r1") > 0) | (pl.col("r2") > 0))
    for frame, column in ((present, COLUMNS[0]), (risky, COLUMNS[1])):
        if frame.height == 0:
            assert metrics[column] is None
            continue
        assert metrics[column] == pytest.approx(frame.get_column("hf_disagrees").sum() / frame.height)
        assert 0.0 <= metrics[column] <= 1.0  # type: ignore[operator]
    assert table.filter(~pl.col("hf_label_present")).get_column("hf_disagrees").sum() == 0
