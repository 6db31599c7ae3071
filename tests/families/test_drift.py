"""Drift cause and pairs change (DIAGNOSTICS.md family 11): hand-worked tags and counts, quirk Q14, laws."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.scorecard_rows import evaluate_rows, item, row

if TYPE_CHECKING:
    import polars as pl

Q, G = "본품#품질", "제품 전체#일반"
FAMILIES = ("drift",)
CAUSES = ("stage2_selected", "same_stage_tuples_differ", "stage_delta_missing")


def evaluate(tmp_path: Path, rows: list[dict[str, Any]]) -> tuple[dict[str, object], pl.DataFrame]:
    run = evaluate_rows(tmp_path / "run", rows, families=FAMILIES)
    return run.metrics, run.table


def six_rows() -> list[dict[str, Any]]:
    q_pos, q_neg, g_neg = item(Q, "맛", "positive"), item(Q, "맛", "negative"), item(G, "향", "negative")
    return [
        # pairs change; changed -> MS stage2 -> stage2_selected; gains gold pair (Q, pos): relevant; k = 2
        row("k1", gold=[q_pos], stage1=[q_neg], final=[q_pos], stage_delta={"changed": True}, memory={"retrieved_k": 2}),
        # pairs change; changed is false -> stage_delta_missing; MS "Stage2"; no gold: S2 − RP(G) non-empty
        row("k2", stage1=[q_pos], final=[q_pos, g_neg], stage_delta={"changed": False},
            moderator={"selected_stage": "Stage2"}, memory={"retrieved_ids": []}),
        # same pairs (two tuples, one pair): no change; MS stage2, |S2| − |S1| = 1
        row("k3", gold=[q_pos], stage1=[q_pos], final=[q_pos, item(Q, "향", "positive")],
            moderator={"selected_stage": "stage2"}),
        # a gold pair dropped, nothing gained, S2 ⊆ G, no PC, no S1R: not relevant;
        # MS stage2 but adopted without change -> same_stage_tuples_differ; k = 1; |S2| − |S1| = −1
        row("k4", gold=[q_pos, g_neg], stage1=[q_pos, g_neg], final=[q_pos], stage1_structural_risk=False,
            stage_delta={"changed": True, "stage2_adopted_but_no_change": True}, memory={"retrieved_ids": ["m1"]}),
        # polarity conflict in S2: relevant; changed null is not stage_delta_missing (Q14); MS stage1
        row("k5", stage1=[q_pos], final=[q_pos, q_neg], stage_delta={"changed": None}),
        # relevant only through S1R; changed 0 -> stage_delta_missing; MS stage1
        row("k7", gold=[q_pos, g_neg], stage1=[q_pos, g_neg], final=[q_pos], stage1_structural_risk=True,
            stage_delta={"changed": 0}, moderator={"selected_stage": "stage1"}),
    ]


def test_per_sample_tags(tmp_path: Path) -> None:
    _, table = evaluate(tmp_path, six_rows())
    got = table.select("sample_key", "pairs_changed", "drift_cause", "moderator_stage2_selected",
                       "drift_conflict_relevant").rows()
    assert got == [
        ("k1", True, "stage2_selected", True, True),
        ("k2", True, "stage_delta_missing", True, True),
        ("k3", False, None, True, False),
        ("k4", True, "same_stage_tuples_differ", True, False),
        ("k5", True, "same_stage_tuples_differ", False, True),
        ("k7", True, "stage_delta_missing", False, True),
    ]


def test_counts_and_rates(tmp_path: Path) -> None:
    metrics, _ = evaluate(tmp_path, six_rows())
    assert metrics["drift_cause_n_changed"] == metrics["drift_any_change_n"] == 5  # all but k3
    assert metrics["drift_any_change_rate"] == pytest.approx(5 / 6)
    assert metrics["drift_cause_stage2_selected_n"] == 1  # k1
    assert metrics["drift_cause_same_stage_tuples_differ_n"] == 2  # k4, k5
    assert metrics["drift_cause_stage_delta_missing_n"] == 2  # k2, k7
    assert metrics["drift_cause_stage2_selected_rate"] == pytest.approx(1 / 6)
    assert metrics["drift_cause_same_stage_tuples_differ_rate"] == pytest.approx(2 / 6)
    assert metrics["drift_cause_stage_delta_missing_rate"] == pytest.approx(2 / 6)
    assert metrics["drift_cause_memory_used_changed_n"] == metrics["drift_cause_memory_retrieved_changed_n"] == 2
    assert metrics["drift_cause_memory_unused_changed_n"] == 3  # k2, k5, k7
    assert metrics["drift_conflict_relevant_change_n"] == 4  # k1, k2, k5, k7
    assert metrics["drift_conflict_relevant_change_rate"] == pytest.approx(4 / 6)
    assert metrics["n_stage2_selected"] == 4  # k1, k2, k3, k4
    assert metrics["n_stage2_selected_and_pairs_changed"] == 3  # k1, k2, k4
    # (|S2| − |S1|) over k1..k4: 0 + 1 + 1 − 1 = 1, / 4
    assert metrics["mean_delta_pairs_count_given_stage2_selected"] == 0.25


def test_nothing_changed_and_no_stage2(tmp_path: Path) -> None:
    rows = [row("k1", gold=[item(Q, "맛", "positive")], final=[item(Q, "맛", "positive")])]  # S1 falls back to S2
    metrics, _ = evaluate(tmp_path, rows)
    assert metrics["drift_cause_n_changed"] == 0 and metrics["drift_any_change_rate"] == 0.0
    assert metrics["drift_conflict_relevant_change_rate"] == 0.0
    assert metrics["n_stage2_selected"] == 0
    assert metrics["mean_delta_pairs_count_given_stage2_selected"] is None  # n_stage2_selected = 0: blank


@pytest.mark.parametrize(("said", "cause"), [
    (False, "stage_delta_missing"), (0, "stage_delta_missing"), ("0", "stage_delta_missing"),
    (0.0, "stage_delta_missing"), (None, "stage2_selected"), ("", "stage2_selected"), ("false", "stage2_selected"),
    ("absent", "stage2_selected"),
])
def test_stage_delta_missing_needs_an_explicit_false(tmp_path: Path, said: Any, cause: str) -> None:
    # Q14: missing or null changed is not "missing"; the moderator selects stage2 in every case
    sd = {} if said == "absent" else {"changed": said}
    rows = [row("k1", stage1=[item(Q, "맛", "positive")], final=[item(Q, "맛", "negative")],
                stage_delta={**sd, "change_type": "guided"}, moderator={"selected_stage": " stage2 "})]
    _, table = evaluate(tmp_path, rows)
    assert table.get_column("drift_cause").to_list() == [cause]


POLARITIES = st.sampled_from(["positive", "negative"])
TUPLES = st.lists(st.builds(lambda ref, pol: item(ref, "맛", pol), st.sampled_from([Q, G]), POLARITIES), max_size=3)
SAMPLE = st.tuples(TUPLES, TUPLES, TUPLES, st.sampled_from([None, {"changed": True}, {"changed": False}]),
                   st.sampled_from([None, {"selected_stage": "stage2"}, {"selected_stage": "stage1"}]),
                   st.sampled_from([None, {"retrieved_k": 1}]))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(samples=st.lists(SAMPLE, min_size=1, max_size=6))
def test_laws(tmp_path: Path, samples: list[Any]) -> None:
    rows = [row(f"k{i}", gold=gold or None, stage1=s1 or None, final=s2, stage_delta=sd, moderator=mod, memory=mem)
            for i, (gold, s1, s2, sd, mod, mem) in enumerate(samples)]
    metrics, table = evaluate(tmp_path, rows)
    n, changed = table.height, metrics["drift_cause_n_changed"]
    assert changed == table.get_column("pairs_changed").sum() <= n
    assert sum(metrics[f"drift_cause_{c}_n"] for c in CAUSES) == changed  # type: ignore[misc]
    assert metrics["drift_cause_memory_used_changed_n"] + metrics["drift_cause_memory_unused_changed_n"] == changed  # type: ignore[operator]
    assert metrics["drift_conflict_relevant_change_n"] <= changed  # type: ignore[operator]
    assert metrics["n_stage2_selected_and_pairs_changed"] <= metrics["n_stage2_selected"] <= n  # type: ignore[operator]
    for c in CAUSES:
        assert metrics[f"drift_cause_{c}_rate"] == pytest.approx(metrics[f"drift_cause_{c}_n"] / n)  # type: ignore[operator]
        assert 0.0 <= metrics[f"drift_cause_{c}_rate"] <= 1.0  # type: ignore[operator]
    assert metrics["drift_conflict_relevant_change_rate"] == pytest.approx(table.get_column("drift_conflict_relevant").mean())
