"""Implicit-gold validity and parse failures (DIAGNOSTICS.md family 5): hand-worked rows, blank vs 0, laws."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.scorecard_rows import evaluate_rows, item, row

REF, REF2 = "본품#품질", "본품#가격"
IMPLICIT = [item(REF, "", "positive")]
EXPLICIT = [item(REF, "맛", "positive")]
FAMILIES = ("implicit_validity",)
FLAGS = ("implicit_coverage_fail", "implicit_null_fail", "implicit_parse_fail", "implicit_invalid", "parse_generate_failed")


def evaluate(tmp_path: Path, rows: list[dict[str, Any]]) -> tuple[dict[str, object], pl.DataFrame]:
    run = evaluate_rows(tmp_path / "run", rows, families=FAMILIES)
    return run.metrics, run.table


def with_runtime(value: dict[str, Any], **runtime: Any) -> dict[str, Any]:
    value["runtime"].update(runtime)
    return value


def eight_rows() -> list[dict[str, Any]]:
    return [
        # eligible; the only final polarity is mixed -> coverage fail
        row("k1", gold=IMPLICIT, final=[item(REF, "맛", "mixed")]),
        # eligible; an item whose polarity is missing and label blank -> null fail
        row("k2", gold=IMPLICIT, final=[item(REF, "", "positive"), item(REF2, "향", None, label=" ")]),
        # eligible; top-level flags is a non-empty object, so runtime.flags is not read; blank error;
        # runtime.process_trace [] is empty, the top-level trace is read: "json_parse" in notes -> parse fail
        with_runtime(row("k3", gold=IMPLICIT, final=[item(REF, "", "negative")], flags={"parse_failed": False},
                         process_trace=[{"agent": "x"}, {"notes": "retry after json_parse error"}]),
                     flags={"generate_failed": True}, error="  ", process_trace=[]),
        # eligible; no top-level flags -> runtime.flags.generate_failed 1 -> parse fail
        with_runtime(row("k4", gold=IMPLICIT, final=[item(REF, "", "neutral")]), flags={"generate_failed": 1}),
        # eligible, valid: notes that are not a string do not count; the first non-empty trace hides the others
        with_runtime(row("k5", gold=IMPLICIT, final=[item(REF, "", "positive")]),
                     process_trace=[{"notes": ["atsa_parse"]}], parsed_output={
                         "final_result": {"final_tuples": [item(REF, "", "positive")]},
                         "process_trace": [{"notes": "atsa_parse"}]}),
        # not eligible (explicit gold only): its failures are not counted; top-level generate_failed -> all-row rate
        with_runtime(row("k6", gold=EXPLICIT, final=[item(REF, "맛", "mixed")], flags={"generate_failed": "yes"}),
                     error="boom"),
        # no gold: parse_failed counts for the all-row rate only
        row("k7", final=EXPLICIT, flags={"parse_failed": True}),
        # eligible through its basic-polarity implicit tuple (the mixed one does not disqualify it);
        # flags not an object -> no flags; runtime.error -> parse fail
        with_runtime(row("k8", gold=[item(REF, "", "mixed"), item(REF2, "", "negative")], final=[item(REF, "맛", "negative")],
                         flags=[1]), error="timeout"),
    ]


def test_per_sample_flags(tmp_path: Path) -> None:
    _, table = evaluate(tmp_path, eight_rows())
    assert table.select("sample_key", *FLAGS).rows() == [
        ("k1", True, False, False, True, None),
        ("k2", False, True, False, True, None),
        ("k3", False, False, True, True, False),
        ("k4", False, False, True, True, None),
        ("k5", False, False, False, False, None),
        ("k6", False, False, False, False, True),
        ("k7", False, False, False, False, True),
        ("k8", False, False, True, True, None),
    ]


def test_rates(tmp_path: Path) -> None:
    metrics, _ = evaluate(tmp_path, eight_rows())
    assert metrics["implicit_gold_sample_n"] == 6  # k1-k5, k8
    assert metrics["implicit_invalid_sample_n"] == metrics["implicit_invalid_count"] == 5  # k1-k4, k8
    assert metrics["implicit_invalid_pred_rate"] == pytest.approx(5 / 6)
    assert metrics["implicit_coverage_fail_rate"] == pytest.approx(1 / 6)  # k1
    assert metrics["implicit_null_fail_rate"] == pytest.approx(1 / 6)  # k2
    assert metrics["implicit_parse_fail_rate"] == pytest.approx(3 / 6)  # k3, k4, k8
    assert metrics["parse_generate_failure_rate"] == pytest.approx(2 / 8)  # k6, k7 of all 8 rows


def test_null_fail_reads_final_aspects_and_empty_objects(tmp_path: Path) -> None:
    rows = [row("k1", gold=IMPLICIT, final=[item(REF, "", "positive")]),
            row("k2", gold=IMPLICIT, final=[item(REF, "", "positive"), {}])]
    rows[0]["runtime"]["parsed_output"]["final_result"]["final_aspects"] = [{"aspect_term": "맛"}]
    _, table = evaluate(tmp_path, rows)
    assert table.get_column("implicit_null_fail").to_list() == [True, True]


def test_no_implicit_gold_sample_gives_zero_and_blank(tmp_path: Path) -> None:
    metrics, _ = evaluate(tmp_path, [row("k1", gold=EXPLICIT, final=[item(REF, "맛", "mixed")])])
    assert metrics["implicit_invalid_sample_n"] == 0
    assert metrics["implicit_invalid_pred_rate"] == 0.0  # implicit_gold_sample_n = 0 -> 0.0
    for kind in ("coverage", "null", "parse"):
        assert metrics[f"implicit_{kind}_fail_rate"] is None
    assert metrics["parse_generate_failure_rate"] == 0.0


def test_without_gold_only_the_all_row_rate_is_computed(tmp_path: Path) -> None:
    metrics, _ = evaluate(tmp_path, [row("k1", final=EXPLICIT, flags={"generate_failed": True}), row("k2", final=EXPLICIT)])
    assert metrics["implicit_invalid_sample_n"] == metrics["implicit_invalid_count"] == 0
    assert metrics["implicit_invalid_pred_rate"] is None
    assert metrics["parse_generate_failure_rate"] == 0.5


SAMPLE = st.tuples(
    st.sampled_from([IMPLICIT, EXPLICIT, None, [item(REF, "", "mixed")]]),
    st.sampled_from([[item(REF, "", "positive")], [item(REF, "맛", "mixed")], [item(REF, "", None, label="")]]),
    st.sampled_from([None, {}, {"parse_failed": True}, {"generate_failed": 0}, "x"]),
    st.sampled_from([None, "", "err"]),
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(samples=st.lists(SAMPLE, min_size=1, max_size=6))
def test_rates_are_shares_of_per_sample_flags(tmp_path: Path, samples: list[Any]) -> None:
    rows = []
    for i, (gold, final, flags, error) in enumerate(samples):
        value = row(f"k{i}", gold=gold, final=final, **({} if flags is None else {"flags": flags}))
        rows.append(with_runtime(value, error=error))
    metrics, table = evaluate(tmp_path, rows)
    eligible = table.filter(pl.col("implicit_eligible"))
    assert not table.filter(~pl.col("implicit_eligible")).select(FLAGS[:4]).to_numpy().any()
    invalid = eligible.get_column("implicit_invalid").sum()
    assert metrics["implicit_invalid_sample_n"] == invalid <= metrics["implicit_gold_sample_n"]
    failed = table.get_column("parse_generate_failed").fill_null(False).sum()
    assert metrics["parse_generate_failure_rate"] == pytest.approx(failed / table.height)
    if not table.get_column("has_gold").any():
        assert metrics["implicit_invalid_pred_rate"] is None
    elif eligible.height == 0:
        assert metrics["implicit_invalid_pred_rate"] == 0.0
    else:
        assert metrics["implicit_invalid_pred_rate"] == pytest.approx(invalid / eligible.height)
        for kind in ("coverage", "null", "parse"):
            rate = metrics[f"implicit_{kind}_fail_rate"]
            assert rate == pytest.approx(eligible.get_column(f"implicit_{kind}_fail").sum() / eligible.height)
            assert 0.0 <= rate <= metrics["implicit_invalid_pred_rate"]  # type: ignore[operator]


@given(st.lists(st.sampled_from([b"atsa", b"json", b"_parse", b"_pars", b"a", b"js", b"x", b"\""]), max_size=8))
def test_parse_word_scan_finds_exactly_the_words(parts: list[bytes]) -> None:
    from aggregator.metrics.implicit_validity import PARSE_NOTES, _may_name_parse

    text = b"".join(parts)
    assert _may_name_parse(text) == any(word.encode() in text for word in PARSE_NOTES)
