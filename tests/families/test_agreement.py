"""Agreement across runs (DIAGNOSTICS.md family 17): groups by case key over all rows (Q13), Q12, profile fallback."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aggregator.metrics.registry import RunContext
from aggregator.metrics.structural import build_registry
from tests.scorecard_rows import evaluate_rows, item, row

if TYPE_CHECKING:
    import polars as pl

REF = "본품#품질"
POS, NEG = [item(REF, "맛", "positive")], [item(REF, "맛", "negative")]
FAMILIES = ("agreement",)
RATES = ("self_consistency_exact", "self_consistency_exact_fixed", "risk_set_consistency", "tuple_agreement_rate",
         "variance", "flip_flop_rate", "variance_fixed", "flip_flop_rate_fixed")


def evaluate(tmp_path: Path, rows: list[dict[str, Any]], **options: Any) -> tuple[dict[str, object], pl.DataFrame]:
    run = evaluate_rows(tmp_path / "run", rows, families=FAMILIES, **options)
    return run.metrics, run.table


def risks(*blocks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"stage": "stage1", "structural_risks": block} for block in blocks]


def labelled(value: dict[str, Any], label: str) -> dict[str, Any]:
    value["runtime"]["parsed_output"]["final_result"]["label"] = label
    return value


def merged_rows() -> list[dict[str, Any]]:
    a, b = [{"risk_id": "A"}], [{"risk_id": "B"}]
    return [
        # case A: tuples differ, risk multisets differ ([A, B] vs [A]), labels agree; moderator labels differ (fixed)
        row("A", run_id="r1", final=POS, validator=risks(b + a), final_result={"label": "positive"},
            moderator={"final_label": "positive"}),
        row("A", run_id="r2", final=NEG, validator=risks(a), final_result={"label": "positive"},
            moderator={"final_label": "negative"}),
        # case B: tuples differ; risks [B, A] in one block vs [A] and [B] in two: same multiset;
        # label "x" from final_result and from meta.label agree; fixed: PO label and moderator label agree
        labelled(row("B", run_id="r1", final=POS, validator=risks(b + a), final_result={"label": "x"}), "positive"),
        row("B", run_id="r2", final=NEG, validator=risks(a, b), meta={"label": "x"}, moderator={"final_label": "positive"}),
        # case C: one row (a group of one agrees)
        row("C", run_id="r1", final=POS),
        # case D: grouped by meta.case_id "c" across two text ids; meta.label null -> "None" vs absent -> ""
        row("D1", run_id="r1", final=POS, meta={"case_id": "c", "label": None}),
        row("D2", run_id="r2", final=POS, meta={"case_id": "c"}),
        # case E: labels differ (pos / neg); a risk without an id equals an id ""
        row("E", run_id="r1", final=POS, validator=risks([{"risk_id": ""}]), final_result={"label": "pos"}),
        row("E", run_id="r2", final=POS, validator=risks([{}]), final_result={"label": "neg"}),
    ]


def test_per_sample_values(tmp_path: Path) -> None:
    _, table = evaluate(tmp_path, merged_rows())
    got = table.select("sample_key", "run_id", "case_key", "agreement_label", "agreement_label_fixed",
                       "risk_id_multiset").rows()
    assert got == [
        ("A", "r1", "A", "positive", "positive", '["A","B"]'),
        ("A", "r2", "A", "positive", "negative", '["A"]'),
        ("B", "r1", "B", "x", "positive", '["A","B"]'),
        ("B", "r2", "B", "x", "positive", '["A","B"]'),
        ("C", "r1", "C", "", "", "[]"),
        ("D1", "r1", "c", "None", "", "[]"),
        ("D2", "r2", "c", "", "", "[]"),
        ("E", "r1", "E", "pos", "", '[""]'),
        ("E", "r2", "E", "neg", "", '[""]'),
    ]


def test_merged_groups(tmp_path: Path) -> None:
    metrics, _ = evaluate(tmp_path, merged_rows())
    # K = 5 groups (A, B, C, c, E), T = 2
    assert metrics["n_trials"] == 2
    assert metrics["self_consistency_eligible"] is True and metrics["tuple_agreement_eligible"] is True
    assert metrics["self_consistency_exact"] == pytest.approx(3 / 5)  # c and E differ
    assert metrics["variance"] == metrics["flip_flop_rate"] == pytest.approx(2 / 5)
    assert metrics["self_consistency_exact_fixed"] == pytest.approx(4 / 5)  # A differs
    assert metrics["variance_fixed"] == metrics["flip_flop_rate_fixed"] == pytest.approx(1 / 5)
    assert metrics["risk_set_consistency"] == pytest.approx(4 / 5)  # A differs
    assert metrics["tuple_agreement_rate"] == pytest.approx(3 / 5)  # A and B differ


def single_run() -> list[dict[str, Any]]:
    return [row("k1", final=POS, profile="smoke"), row("k2", final=NEG, profile="paper_main")]


def assert_not_computed(metrics: dict[str, object]) -> None:
    assert metrics["n_trials"] == 1
    assert metrics["self_consistency_eligible"] is False and metrics["tuple_agreement_eligible"] is False
    for name in RATES:
        assert metrics[name] is None, name


def test_single_run_is_blank(tmp_path: Path) -> None:
    assert_not_computed(evaluate(tmp_path, single_run())[0])


def test_same_key_in_two_splits_is_a_group_of_two(tmp_path: Path) -> None:
    rows = [row("k1", final=POS, meta={"split": "valid"}), row("k1", final=POS, meta={"split": "test"})]
    metrics, _ = evaluate(tmp_path, rows)
    assert metrics["n_trials"] == 2 and metrics["tuple_agreement_rate"] == 1.0


def test_profile_filter_uses_all_rows(tmp_path: Path) -> None:
    rows = [{**r, "profile": "smoke" if r["run_id"] == "r1" else "paper_main"} for r in merged_rows()]
    metrics, table = evaluate(tmp_path, rows, profile="smoke")
    assert table.height == 5  # only r1's rows are aggregated ...
    assert metrics["n_trials"] == 2  # ... but the groups are over every row (Q13)
    assert metrics["tuple_agreement_rate"] == pytest.approx(3 / 5)


def test_profile_matching_no_row_does_not_compute_the_columns(tmp_path: Path) -> None:
    metrics, table = evaluate(tmp_path, merged_rows(), profile="nothing")
    assert table.height == 9
    assert_not_computed(metrics)


def test_rows_without_a_case_key_are_left_out(tmp_path: Path) -> None:
    # the sample key falls back to runtime.uid; case keys are meta.case_id / text_id / uid only
    rows = [{"runtime": {"uid": u, "parsed_output": {"final_result": {"final_tuples": POS}}}} for u in ("u1", "u2")]
    rows += [row("k1", run_id="r1", final=POS, meta={"case_id": 0}), row("k1", run_id="r2", final=NEG)]
    metrics, table = evaluate(tmp_path, rows)
    assert table.get_column("case_key").to_list().count(None) == 2
    assert metrics["n_trials"] == 2  # case_id 0 is falsy: both k1 rows have case key k1
    assert metrics["tuple_agreement_rate"] == 0.0  # one group, tuples differ


def test_without_all_rows_the_table_is_used(tmp_path: Path) -> None:
    metrics, table = evaluate(tmp_path, merged_rows())
    alone = build_registry(FAMILIES).compute(table, RunContext())
    assert {n: alone[n] for n in ("n_trials", *RATES)} == {n: metrics[n] for n in ("n_trials", *RATES)}


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(samples=st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), st.sampled_from([POS, NEG])),
                        min_size=1, max_size=8, unique_by=lambda s: s[0]))
def test_tuple_agreement_is_the_share_of_agreeing_groups(tmp_path: Path, samples: list[Any]) -> None:
    rows = [row(key, run_id=run, final=final) for key, final in samples for run in ("r1", "r2")]
    rows[-1] = row(samples[-1][0], run_id="r2", final=NEG if samples[-1][1] == POS else POS)
    metrics, _ = evaluate(tmp_path, rows)
    assert metrics["n_trials"] == 2
    assert metrics["tuple_agreement_rate"] == pytest.approx((len(samples) - 1) / len(samples))
    assert metrics["self_consistency_exact"] == 1.0 and metrics["variance"] == 0.0  # Q12: no labels
