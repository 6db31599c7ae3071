"""Polarity conflict (family 6): one aspect ref given two polarities in the final output."""

from __future__ import annotations

from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aggregator.metrics.conflict import has_conflict
from scorecards.tuples import EvalTuple
from tests.scorecard_rows import evaluate_rows, item, row

FAMILIES = ("conflict",)


def test_rates_count_rows_whose_final_ref_has_two_polarities(tmp_path: Path) -> None:
    rows = [
        # a: 본품#품질 positive and negative -> conflict
        row("a", final=[item("본품#품질", "향", "positive"), item("본품#품질", "맛", "negative")]),
        # b: two refs, one polarity each -> none
        row("b", final=[item("본품#품질", "향", "positive"), item("본품#가격", "값", "negative")]),
        # c: empty refs never conflict, even with two polarities
        row("c", final=[item("", "향", "positive"), item("", "맛", "negative")]),
        # d: refs equal after normalization ("본품 # 품질" -> "본품#품질"), polarities "pos"/"neutral" -> conflict
        row("d", gold=[item("본품#품질", "향")], final=[item("본품 # 품질", "향", "pos"), item("본품#품질", "x", "neutral")]),
    ]
    evaluation = evaluate_rows(tmp_path, rows, families=FAMILIES)
    flags = dict(evaluation.table.select("sample_key", "polarity_conflict").rows())
    assert flags == {"a": True, "b": False, "c": False, "d": True}
    for name in ("polarity_conflict_rate_raw", "polarity_conflict_rate", "polarity_conflict_rate_after_rep"):
        assert evaluation.metrics[name] == 2 / 4  # over all rows, gold or not


def test_never_blank_without_gold_or_predictions(tmp_path: Path) -> None:
    metrics = evaluate_rows(tmp_path, [row("a"), row("b")], families=FAMILIES).metrics
    assert metrics["polarity_conflict_rate_raw"] == metrics["polarity_conflict_rate_after_rep"] == 0.0


refs = st.sampled_from(["", "a#b", "c#d"])
pols = st.sampled_from(["positive", "negative", "neutral", "mixed"])


@given(st.frozensets(st.builds(EvalTuple, refs, st.sampled_from(["", "t"]), pols), max_size=6))
@settings(max_examples=50, suppress_health_check=[HealthCheck.too_slow])
def test_conflict_is_two_polarities_under_one_nonempty_ref(tuples: frozenset[EvalTuple]) -> None:
    by_ref: dict[str, set[str]] = {}
    for t in tuples:
        if t.aspect_ref:
            by_ref.setdefault(t.aspect_ref, set()).add(t.polarity)
    assert has_conflict(tuples) == any(len(p) >= 2 for p in by_ref.values())
