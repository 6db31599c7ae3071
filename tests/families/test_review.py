"""Review and arbitration (DIAGNOSTICS.md family 10): hand-worked action matrices, quirks Q5, Q8, Q9, Q17, laws."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.scorecard_rows import evaluate_rows, item, row

QUALITY, GENERAL, PRICE = "본품#품질", "제품 전체#일반", "본품#가격"
GOLD = [item(QUALITY, "맛", "positive")]
FAMILIES = ("review",)
COUNTS = ("aar_tuple_ids", "aar_majority_ids", "aar_flagged_ids", "aar_flagged_majority_ids", "aar_perfect_ids",
          "cda_eligible_ids", "cda_helpful_ids", "cda_harmful_ids")


def act(actor: Any, kind: Any, *targets: Any, **extra: Any) -> dict[str, Any]:
    return {"actor": actor, "action_type": kind, "target_tuple_ids": list(targets), **extra}


def cr_row(key: str, *, gold: list[Any] | None = GOLD, stage1: list[Any] | None = None, final: list[Any] | None = None,
           pre: Any = None, actions: Any = None, arb: Any = None, trace: Any = None) -> dict[str, Any]:
    """A CR row: review actions in runtime.parsed_output.analysis_flags, the pre-review list in final_result."""
    out = row(key, gold=gold, stage1=stage1, final=final)
    parsed = out.setdefault("runtime", {}).setdefault("parsed_output", {})
    if pre is not None:
        parsed.setdefault("final_result", {})["final_tuples_pre_review"] = pre
    flags = {k: v for k, v in (("review_actions", actions), ("arb_actions", arb)) if v is not None}
    if flags:
        parsed["analysis_flags"] = flags
    if trace is not None:
        parsed["process_trace"] = trace
    return out


def evaluate(tmp_path: Path, rows: list[dict[str, Any]]) -> tuple[dict[str, object], pl.DataFrame]:
    run = evaluate_rows(tmp_path / "run", rows, families=FAMILIES)
    return run.metrics, run.table


def counts(table: pl.DataFrame, key: str) -> tuple[Any, ...]:
    return table.filter(pl.col("sample_key") == key).select("review_matrix_failed", *COUNTS).row(0)


def matrix_row(key: str = "k1", **kw: Any) -> dict[str, Any]:
    """Three pre-review tuples t0-t2, and t3 named only by an action.

    t0: A DROP, B drop, C MERGE            -> majority, 3 changes (flagged, perfect)
    t1: A FLIP→neg, B FLIP→positive, C KEEP -> FLIP_NEG / FLIP_POS / KEEP: no majority, 2 changes
    t2: C KEEP                              -> all KEEP: majority, not flagged
    t3: C FLAG                              -> KEEP / KEEP / OTHER: majority, 1 change
    """
    pre = [item(QUALITY, None, "positive"), item(GENERAL, None, "negative"), item(PRICE, None, "neutral")]
    actions = [act("A", "DROP", "t0"), act("A", "FLIP", "t1", new_value={"polarity": "neg"}),
               act("B", "drop", "t0"), act("B", "FLIP", "t1", new_value={"polarity": "positive"}),
               act(" c ", "MERGE", "t0"), act("C", "KEEP", "t2"), act("C", "FLAG", "t3")]
    stage1 = [item(QUALITY, "맛", "positive"), item(GENERAL, "향", "negative")]
    return cr_row(key, stage1=stage1, final=[item(PRICE, "값", "positive")], pre=pre, actions=actions,
                  arb=[{"actor": "ARB"}], **kw)


def test_action_matrix_and_cda(tmp_path: Path) -> None:
    metrics, table = evaluate(tmp_path, [matrix_row()])
    # ids t0..t3; majority t0, t2, t3; flagged t0, t1, t3 (all with a majority); perfect t0;
    # CDA over t0, t1 (≥ 2 changes): t0 (본품#품질, positive) in S1, not in S2, gold -> harmful;
    # t1 (제품 전체#일반, negative) in S1, not in S2, not gold -> helpful
    assert counts(table, "k1") == (False, 4, 3, 3, 3, 1, 2, 1, 1)
    assert metrics["aar_majority_rate"] == 0.75  # 3 / 4
    assert metrics["aar_intervention_majority_rate"] == 1.0  # 3 / 3 (Q8)
    assert metrics["aar_intervention_perfect_rate"] == pytest.approx(1 / 3)
    assert (metrics["cda_eligible_n"], metrics["cda_helpful_n"], metrics["cda_harmful_n"]) == (2, 1, 1)
    assert metrics["cda_refpol"] == 0.5  # 1 / (1 + 1)
    assert metrics["review_action_rate"] == 1.0 and metrics["arb_intervention_rate"] == 1.0


def test_action_rates_over_all_rows(tmp_path: Path) -> None:
    rows = [matrix_row("k1"), cr_row("k2", actions=[], arb=[]), cr_row("k3"), row("k4", gold=GOLD)]
    metrics, table = evaluate(tmp_path, rows)
    assert metrics["review_action_rate"] == 0.25  # k1 of 4 rows
    assert metrics["arb_intervention_rate"] == 0.25
    assert table.get_column("analysis_flags_present").to_list() == [True, True, False, False]


def test_rows_without_gold_are_left_out(tmp_path: Path) -> None:
    # Q5: the same matrix on a row without gold counts in no AAR/CDA column; its per-sample ids remain
    metrics, table = evaluate(tmp_path, [matrix_row("k1", gold=None), row("k2", gold=GOLD, final=GOLD)])
    assert counts(table, "k1")[:6] == (False, 4, 3, 3, 3, 1)
    assert counts(table, "k1")[6:] == (0, 0, 0)  # CDA needs gold refs
    for name in ("aar_majority_rate", "aar_intervention_majority_rate", "aar_intervention_perfect_rate", "cda_refpol"):
        assert metrics[name] is None  # no id in a row with gold: blank
    assert (metrics["cda_eligible_n"], metrics["cda_helpful_n"], metrics["cda_harmful_n"]) == (0, 0, 0)
    assert metrics["review_action_rate"] == 0.5


def test_no_action_rows_contribute_keep_ids(tmp_path: Path) -> None:
    # two stage1_tuples and no review action: two all-KEEP ids, majority 2 / 2, nothing flagged
    stage1 = [item(QUALITY, "맛", "positive"), item(GENERAL, "향", "negative")]
    metrics, table = evaluate(tmp_path, [row("k1", gold=GOLD, stage1=stage1, final=GOLD)])
    assert counts(table, "k1") == (False, 2, 2, 0, 0, 0, 0, 0, 0)
    assert metrics["aar_majority_rate"] == 1.0
    assert metrics["aar_intervention_perfect_rate"] is None and metrics["aar_intervention_majority_rate"] is None


def test_cda_key_applies_the_term_normalizer_to_the_ref(tmp_path: Path) -> None:
    # Q9: pre-review ref "Battery#Life" becomes key "battery#life", which never equals the S1 pair
    # ("Battery#Life", positive): eligible but neutral. "패키지/구성품 # 가격" -> "패키지·구성품#가격" matches
    # the S1 pair and is not gold: helpful. A pre item with an empty ref is skipped (not eligible).
    pre = [item("Battery#Life", None, "positive"), item("패키지/구성품 # 가격", None, "pos"), item("", None, "positive")]
    actions = [act(r, "DROP", "t0", "t1", "t2") for r in "AB"]
    stage1 = [item("Battery#Life", "x", "positive"), item("패키지·구성품#가격", "y", "positive")]
    metrics, table = evaluate(tmp_path, [cr_row("k1", stage1=stage1, final=[], pre=pre, actions=actions)])
    assert counts(table, "k1")[6:] == (2, 1, 0)
    assert metrics["cda_refpol"] == 1.0  # 1 / (1 + 0)


def test_cda_skips_ids_beyond_the_list_and_odd_ids(tmp_path: Path) -> None:
    pre = [item(QUALITY, None, "positive"), "not an object", item(GENERAL, None, "negative")]
    # objects only: [t0 -> QUALITY, t1 -> GENERAL]; t2 is beyond them; "x1" and "t1a" are not t<digits>
    actions = [act(r, "DROP", "t1", "t2", "x1", "t1a") for r in "AB"]
    stage1 = [item(GENERAL, "향", "negative")]
    _, table = evaluate(tmp_path, [cr_row("k1", stage1=stage1, final=[], pre=pre, actions=actions)])
    # ids t0, t1, t2 (m = 3 raw items) and x1, t1a: 5 ids; CDA candidates t1, t2, x1, t1a; only t1 eligible
    assert counts(table, "k1") == (False, 5, 5, 4, 4, 0, 1, 1, 0)


@pytest.mark.parametrize("actions", [
    ["not an object"],
    [act(5, "DROP", "t0")],  # truthy non-string actor
    [act("A", "DROP", 0)],  # non-string target id
    [act("A", 7, "t0")],  # truthy non-string action type of an action that relabels
    [act("A", "FLIP", "t0", new_value="neg")],  # truthy non-object new_value of a FLIP
    {"A": "DROP"},  # not a list
], ids=["item", "actor", "target", "action_type", "new_value", "not_a_list"])
def test_unbuildable_matrix_leaves_the_row_out(tmp_path: Path, actions: Any) -> None:
    # Q17: k1's matrix fails, k2 (3 all-KEEP ids) alone is counted
    rows = [cr_row("k1", pre=[item(QUALITY, None, "positive")], actions=actions),
            cr_row("k2", pre=[item(QUALITY, None, "positive")] * 3, actions=[act("ARB", "DROP")])]
    metrics, table = evaluate(tmp_path, rows)
    assert counts(table, "k1") == (True, 0, 0, 0, 0, 0, 0, 0, 0)
    assert metrics["aar_majority_rate"] == 1.0  # 3 / 3 from k2
    expected_taken = 1.0 if isinstance(actions, list) else 0.5  # a non-empty list counts though the matrix failed
    assert metrics["review_action_rate"] == expected_taken


def test_falsy_or_unread_fields_do_not_fail(tmp_path: Path) -> None:
    # falsy actor/action_type read as "", an action without known targets is not read, a FLIP with null new_value
    actions = [act(0, "DROP", "t0"), act("A", 7), act("B", "", "t0"), act("C", "FLIP", "t0", new_value=None)]
    _, table = evaluate(tmp_path, [cr_row("k1", pre=[item(QUALITY, None, "positive")], actions=actions)])
    # t0: A KEEP, B OTHER, C FLIP -> no majority, 2 changes, flagged
    assert counts(table, "k1")[:6] == (False, 1, 0, 1, 1, 0)


def trace_entry(agent: Any, *actions: Any) -> dict[str, Any]:
    return {"agent": agent, "output": {"review_actions": list(actions)}}


def test_trace_fallback_when_review_actions_are_empty(tmp_path: Path) -> None:
    trace = [trace_entry("ReviewA", act(None, "DROP", "t0")),
             trace_entry("ReviewB", act(None, "DROP", "t0"), act(None, "DROP", "t9")),  # t9 unknown: ignored
             trace_entry("ReviewA"),  # the last ReviewA entry wins: A keeps everything
             trace_entry("reviewC", act(None, "DROP", "t0", "t1")),  # not exactly ReviewC
             {"agent": "ReviewC", "output": None}]
    stage1 = [item(QUALITY, "맛", "positive"), item(GENERAL, "향", "negative")]
    metrics, table = evaluate(tmp_path, [cr_row("k1", stage1=stage1, final=GOLD, actions=[], trace=trace)])
    # m = 2 stage1_tuples; t0: KEEP / DROP / KEEP (majority, 1 change); t1: all KEEP
    assert counts(table, "k1") == (False, 2, 2, 1, 1, 0, 0, 0, 0)
    assert metrics["aar_intervention_perfect_rate"] == 0.0
    assert metrics["review_action_rate"] == 0.0


@pytest.mark.parametrize("bad", ["entry", {"agent": 5}, {"agent": "ReviewA", "output": [1]}],
                         ids=["entry", "agent", "output"])
def test_malformed_trace_leaves_the_row_out(tmp_path: Path, bad: Any) -> None:
    stage1 = [item(QUALITY, "맛", "positive")]
    _, table = evaluate(tmp_path, [cr_row("k1", stage1=stage1, final=GOLD, trace=[trace_entry("ReviewB"), bad])])
    assert counts(table, "k1")[0] is True


def test_row_level_fields_when_parsed_output_is_not_an_object(tmp_path: Path) -> None:
    # OUT = the row itself: top-level analysis_flags and final_result; PO-based rates do not count it
    top = row("k1", gold=GOLD, analysis_flags={"review_actions": [act("A", "DROP", "t0"), act("B", "DROP", "t0")]},
              final_result={"final_tuples_pre_review": [item(QUALITY, None, "positive")]})
    top["runtime"] = {"parsed_output": "not an object"}
    metrics, table = evaluate(tmp_path, [top])
    # t0: DROP / DROP / KEEP -> majority, 2 changes; (본품#품질, positive) not in S1 (empty) -> neutral
    assert counts(table, "k1") == (False, 1, 1, 1, 1, 0, 1, 0, 0)
    assert metrics["review_action_rate"] == 0.0 and metrics["cda_refpol"] is None


LABELS = st.sampled_from(["KEEP", "DROP", "MERGE", "FLIP", "FLAG", "keep"])
ACTION = st.builds(lambda actor, kind, targets, pol: act(actor, kind, *targets, new_value={"polarity": pol}),
                   st.sampled_from(["A", "B", "C", "ARB"]), LABELS,
                   st.lists(st.sampled_from(["t0", "t1", "t2", "t3"]), max_size=2),
                   st.sampled_from(["pos", "negative", "neutral"]))
SAMPLE = st.tuples(st.booleans(), st.integers(0, 3), st.lists(ACTION, max_size=5))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(samples=st.lists(SAMPLE, min_size=1, max_size=5))
def test_laws(tmp_path: Path, samples: list[Any]) -> None:
    pre_items = [item(QUALITY, None, "positive"), item(GENERAL, None, "negative"), item(PRICE, None, "positive")]
    stage1 = [item(QUALITY, "맛", "positive"), item(GENERAL, "향", "negative")]
    rows = [cr_row(f"k{i}", gold=GOLD if gold else None, stage1=stage1, final=[item(GENERAL, "향", "negative")],
                   pre=pre_items[:m], actions=actions) for i, (gold, m, actions) in enumerate(samples)]
    metrics, table = evaluate(tmp_path, rows)
    gold = table.filter(pl.col("has_gold"))
    ids, majority, flagged = (gold.get_column(c).sum() for c in ("aar_tuple_ids", "aar_majority_ids", "aar_flagged_ids"))
    assert metrics["aar_majority_rate"] == (pytest.approx(majority / ids) if ids else None)
    assert metrics["aar_intervention_majority_rate"] == (1.0 if flagged else None)  # Q8
    perfect = metrics["aar_intervention_perfect_rate"]
    assert perfect is None or 0.0 <= perfect <= 1.0  # type: ignore[operator]
    helpful, harmful = metrics["cda_helpful_n"], metrics["cda_harmful_n"]
    assert helpful + harmful <= metrics["cda_eligible_n"] <= gold.get_column("aar_flagged_ids").sum()  # type: ignore[operator]
    assert metrics["review_action_rate"] == pytest.approx(table.get_column("review_action_taken").mean())


def test_absent_analysis_flags_are_reported(tmp_path: Path) -> None:
    run = evaluate_rows(tmp_path / "run", [row("k1", gold=GOLD, final=GOLD)], families=FAMILIES)
    assert {"review_action_rate", "arb_intervention_rate", "cda_eligible_n"} <= set(run.registry.absent_fields(run.table))
    present = evaluate_rows(tmp_path / "run2", [cr_row("k1", actions=[])], families=FAMILIES)
    assert "review_action_rate" not in present.registry.absent_fields(present.table)
