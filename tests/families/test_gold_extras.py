"""Gold-based extras (DIAGNOSTICS.md family 3): L3 (quirk Q1), after-rep F1 (quirk Q2), conflict flags."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aggregator.metrics.family import RowInput
from aggregator.metrics.gold_extras import representative_set, severe_l3
from aggregator.metrics.prf import prf
from aggregator.units.projection import match_surface, surface_units
from scorecards.tuples import EvalTuple
from tests.scorecard_rows import evaluate_rows, item, record_of, row

REF, REF2 = "본품#품질", "본품#가격"
FAMILIES = ("gold_extras",)


def evaluate(tmp_path: Path, rows: list[dict[str, Any]]) -> tuple[dict[str, object], pl.DataFrame]:
    run = evaluate_rows(tmp_path / "run", rows, families=FAMILIES)
    return run.metrics, run.table


def with_po(value: dict[str, Any], **parsed: Any) -> dict[str, Any]:
    """``value`` with keys added to runtime.parsed_output."""
    value["runtime"]["parsed_output"].update(parsed)
    return value


def four_rows() -> list[dict[str, Any]]:
    return [
        # L3: 맛 noted positive, S2 says negative -> 1; 가격 agrees; 향 not noted -> 0.  L3 = 1
        # R = {맛 neg, 가격 neg, 향 pos} vs gold surface {맛 pos, 가격 neg}: tp 1, fp 2, fn 1 -> P 1/3, R 1/2, F1 0.4
        row("k1", gold=[item(REF, "맛", "positive"), item(REF2, "가격", "negative")],
            final=[item(REF, "맛", "negative"), item(REF2, "가격", "negative"), item(None, "향", "positive")]),
        # implicit gold under REF noted at term "" -> {positive}; S2 (REF, "", negative) -> 1, (REF2, "", positive) -> 0
        # R: term "" has two polarities; the item with grounding " Explicit " outranks the higher confidence -> positive
        #    {("", positive)} vs implicit gold positive -> F1 1.  PO carries conflict flags -> counted
        with_po(row("k2", gold=[item(REF, "", "positive")],
                    final=[item(REF, "", "negative", confidence=0.9), item(REF2, "", "positive", grounding=" Explicit ")]),
                analysis_flags={"conflict_flags": [{"aspect_term": "", "conflict_type": "polarity"}]}),
        # no gold: flags (OUT is the row, no parsed_output) are set but not counted; L3 0
        {"meta": {"text_id": "k3"}, "analysis_flags": {"conflict_flags": [1]},
         "inputs": {"aspect_sentiments": [item(REF, "맛", "positive")]}},
        # OUT is the parsed output, which has no analysis_flags: the top-level flags are not read -> null
        row("k4", gold=[item(REF, "맛", "positive")], final=[item(REF, "맛", "positive")],
            analysis_flags={"conflict_flags": [1]}),
    ]


def test_per_sample_values(tmp_path: Path) -> None:
    _, table = evaluate(tmp_path, four_rows())
    got = table.select("sample_key", "severe_polarity_error_L3", "analysis_conflict_flags", "after_rep_otepol_f1").rows()
    assert got == [("k1", 1, None, pytest.approx(0.4)), ("k2", 1, True, 1.0), ("k3", 0, True, 0.0), ("k4", 0, None, 1.0)]


def test_metrics(tmp_path: Path) -> None:
    metrics, _ = evaluate(tmp_path, four_rows())
    assert metrics["severe_polarity_error_L3_count"] == 2  # k1 + k2 (k3 has no gold)
    assert metrics["severe_polarity_error_L3_rate"] == pytest.approx(2 / 3)  # 3 gold rows
    assert metrics["tuple_f1_s2_after_rep"] == 0.0  # Q2: constant
    assert metrics["tuple_f1_s2_after_rep_otepol"] == pytest.approx((0.4 + 1 + 1) / 3)
    assert metrics["conflict_count"] == 1  # k2; k3 is not a gold row, k4's OUT has no flags


def test_first_ranked_item_wins_ties_in_list_order(tmp_path: Path) -> None:
    # two items for 맛, equal rank (no grounding, confidence, drop_reason): the first (negative) represents it
    # -> R {맛 negative} vs gold {맛 positive}: F1 0; with a drop_reason on the first the second (positive) wins: F1 1
    gold = [item(REF, "맛", "positive")]
    rows = [row("k1", gold=gold, final=[item(REF, "맛", "negative"), item(REF2, "맛", "positive")]),
            row("k2", gold=gold, final=[item(REF, "맛", "negative", drop_reason="low"), item(REF2, "맛", "positive")]),
            row("k3", gold=gold, final=[item(REF, "맛", "negative", confidence="0.9"), item(REF2, "맛", "positive",
                                                                                        confidence=0.1)])]
    _, table = evaluate(tmp_path, rows)
    # k3: a non-numeric confidence counts as 0, so the second item (0.1) outranks it
    assert table.get_column("after_rep_otepol_f1").to_list() == [0.0, 1.0, 1.0]


def test_l3_rate_can_exceed_one(tmp_path: Path) -> None:
    # one gold row, three final tuples under other polarities of the noted term -> 3 / 1 (quirk Q15)
    rows = [row("k1", gold=[item(REF, "맛", "positive")],
                final=[item(REF, "맛", "negative"), item(REF2, "맛", "neutral"), item(None, "맛", "mixed")])]
    metrics, _ = evaluate(tmp_path, rows)
    assert metrics["severe_polarity_error_L3_count"] == 3
    assert metrics["severe_polarity_error_L3_rate"] == 3.0


def test_without_gold_counts_are_zero_and_rates_blank(tmp_path: Path) -> None:
    metrics, _ = evaluate(tmp_path, [four_rows()[2]])
    assert metrics["severe_polarity_error_L3_count"] == 0 and metrics["conflict_count"] == 0
    for name in ("severe_polarity_error_L3_rate", "tuple_f1_s2_after_rep", "tuple_f1_s2_after_rep_otepol"):
        assert metrics[name] is None


def test_l3_notes_every_gold_polarity_of_a_term() -> None:
    # Q1: term "" noted with positive and negative (two refs): only polarities outside both count
    gold = frozenset({EvalTuple(REF, "", "positive"), EvalTuple(REF2, "", "negative"), EvalTuple("", "", "neutral")})
    final = frozenset({EvalTuple(REF, "", "negative"), EvalTuple(REF, "", "mixed"), EvalTuple("", "", "neutral")})
    # the gold tuple with neither term nor ref is not noted, so neutral is not among ""'s polarities
    assert severe_l3(gold, final) == 2
    assert severe_l3(frozenset(), final) == 0


GOLDS = st.sampled_from([[item(REF, "맛", "positive")], [item(REF, "", "negative")], None,
                         [item(REF, "맛", "positive"), item(REF2, "", "neutral")]])
FINALS = st.lists(st.builds(lambda ref, term, pol, conf: item(ref, term, pol, confidence=conf),
                            st.sampled_from([REF, REF2, None]), st.sampled_from(["맛", "", "향"]),
                            st.sampled_from(["positive", "negative", "neutral", "mixed"]),
                            st.sampled_from([None, 0.2, 0.8])), min_size=1, max_size=4)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(samples=st.lists(st.tuples(GOLDS, FINALS, st.booleans()), min_size=1, max_size=5))
def test_laws(tmp_path: Path, samples: list[Any]) -> None:
    rows = [with_po(row(f"k{i}", gold=gold, final=final), analysis_flags={"conflict_flags": [1] if flag else []})
            for i, (gold, final, flag) in enumerate(samples)]
    metrics, table = evaluate(tmp_path, rows)
    gold_rows = table.filter(pl.col("has_gold"))
    n_gold = gold_rows.height
    assert metrics["severe_polarity_error_L3_count"] == gold_rows.get_column("severe_polarity_error_L3").sum()
    assert metrics["severe_polarity_error_L3_count"] <= gold_rows.get_column("n_s2").sum()  # type: ignore[operator]
    assert metrics["conflict_count"] == gold_rows.get_column("analysis_conflict_flags").sum() <= n_gold
    if not n_gold:
        assert metrics["tuple_f1_s2_after_rep_otepol"] is None
        return
    assert metrics["severe_polarity_error_L3_rate"] == pytest.approx(metrics["severe_polarity_error_L3_count"] / n_gold)
    assert metrics["tuple_f1_s2_after_rep"] == 0.0
    assert metrics["tuple_f1_s2_after_rep_otepol"] == pytest.approx(gold_rows.get_column("after_rep_otepol_f1").mean())
    assert 0.0 <= metrics["tuple_f1_s2_after_rep_otepol"] <= 1.0  # type: ignore[operator]
    # the per-sample value (the core's otepol counts where no final term has two polarities) is the F1 of R built in full
    for value, (key, f1) in zip(rows, table.select("sample_key", "after_rep_otepol_f1").rows()):
        record = record_of(value)
        if record.gold:
            built = representative_set(RowInput(record, {}))
            assert f1 == pytest.approx(prf(*match_surface(surface_units(built), surface_units(record.gold)))[2]), key
