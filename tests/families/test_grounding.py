"""Hallucination and RQ1 grounding (DIAGNOSTICS.md family 7): hand-worked rows for RQ1, FT, UNSUP,
HAL, AF and the drop reasons; hand-worked rates; laws over generated rows."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.scorecard_rows import evaluate_rows, item

REF = "본품#품질"
TEXT = "맛 가격 좋아요"
FAMILIES = ("grounding",)
Json = dict[str, Any]


def card(key: str, *, tuples: list[Any] | None = None, aspects: list[Any] | None = None,
         fr: Json | None = None, po_meta: Any = None, text: str | None = TEXT, **top: Any) -> Json:
    """A row: final_result from ``tuples`` / ``aspects`` / extra ``fr`` keys, ``meta.input_text`` = ``text``."""
    final_result = {**(fr or {}), **{k: v for k, v in (("final_tuples", tuples), ("final_aspects", aspects))
                                     if v is not None}}
    parsed: Json = {"final_result": final_result}
    if po_meta is not None:
        parsed["meta"] = po_meta
    meta: Json = {"text_id": key, **({"input_text": text} if text is not None else {})}
    return {"meta": meta, "runtime": {"parsed_output": parsed}, **top}


def judged(*judgements: Json, key: str = "atsa") -> Json:
    return {key: {"sentiment_judgements": list(judgements)}}


def judgement(term: str | None, grounded: Any = True, issues: Any = None) -> Json:
    out: Json = {"opinion_grounded": grounded, "issues": [] if issues is None else issues}
    if term is not None:
        out["aspect_term"] = term
    return out


TASTE = [item(REF, "맛")]
DROP_AF = {"action": "drop", "drop_reason": "alignment_failure"}


def evaluate(tmp_path: Path, rows: list[Json]) -> tuple[dict[str, object], pl.DataFrame]:
    run = evaluate_rows(tmp_path / "run", rows, families=FAMILIES)
    return run.metrics, run.table


def column(table: pl.DataFrame, name: str) -> dict[str, object]:
    return dict(table.select("sample_key", name).rows())


RQ1_ROWS: list[tuple[Json, str]] = [
    # step 4: grounded, no issue -> explicit
    (card("a01", tuples=TASTE, **judged(judgement("맛"))), "explicit"),
    # step 4: issues all exactly unknown/insufficient -> explicit
    (card("a02", tuples=TASTE, **judged(judgement("맛", True, ["unknown/insufficient"] * 2))), "explicit"),
    # step 5: opinion_grounded false, not fallback-eligible -> explicit_failure
    (card("a03", tuples=TASTE, **judged(judgement("맛", False))), "explicit_failure"),
    # step 5: "Polarity MISMATCH" matches mismatch in any case
    (card("a04", tuples=TASTE, **judged(judgement("맛", True, ["Polarity MISMATCH"]))), "explicit_failure"),
    # opinion_not_grounded is case-sensitive: OPINION_NOT_GROUNDED falls to step 6 -> unsupported
    (card("a05", tuples=TASTE, **judged(judgement("맛", True, ["OPINION_NOT_GROUNDED"]))), "unsupported"),
    # step 5 with implicit_grounding_candidate true -> implicit
    (card("a06", tuples=TASTE, inputs={"implicit_grounding_candidate": True}, **judged(judgement("맛", False))),
     "implicit"),
    # implicit_grounding_candidate must be the literal true: 1 is not
    (card("a07", tuples=TASTE, inputs={"implicit_grounding_candidate": 1},
          **judged(judgement("맛", True, ["x opinion_not_grounded"]))), "explicit_failure"),
    # every filtered item an alignment-failure drop (ok() strips) -> fallback-eligible -> implicit
    (card("a08", tuples=TASTE, inputs={"ate_debug": {"filtered": [DROP_AF, {"action": " drop ",
                                                                           "drop_reason": "alignment_failure "}]}},
          **judged(judgement("맛", False))), "implicit"),
    # one kept item -> not every item is a drop -> explicit_failure
    (card("a09", tuples=TASTE, inputs={"ate_debug": {"filtered": [DROP_AF, {"action": "keep"}]}},
          **judged(judgement("맛", False))), "explicit_failure"),
    # the first judgement on FT's term decides; later ones are ignored; normalized terms compare
    (card("a10", tuples=TASTE, **judged(judgement("가격", False), judgement(" 맛! "), judgement("맛", False))),
     "explicit"),
    # no judgement on FT's term -> unsupported
    (card("a11", tuples=TASTE, **judged(judgement("가격"))), "unsupported"),
    # FT step 1: is_implicit 1 (truthy) empties FT's term -> implicit (reader A keeps 맛 in S2)
    (card("a12", tuples=[item(REF, "맛", is_implicit=1)], **judged(judgement("맛", False))), "implicit"),
    # step 1 skips an unusable item (no ref, blank term) and {}; the next usable one is FT
    (card("a13", tuples=[{}, item(None, "  "), item(None, "맛")], **judged(judgement("맛", False))),
     "explicit_failure"),
    # "()" is usable (tested before normalization) and normalizes to "" -> implicit
    (card("a14", tuples=[item(None, "()")], **judged(judgement("맛", False))), "implicit"),
    # a usable item with a ref and no term: FT term "" -> implicit
    (card("a15", tuples=[item(REF)], **judged(judgement("맛", False))), "implicit"),
    # no usable final tuple -> step 2: first non-empty final_aspects object, read by reader A
    # (is_implicit 1 is not the literal true there: the term stays 맛)
    (card("a16", tuples=[item(None, " ")], aspects=[{}, {"aspect_term": "맛", "is_implicit": 1}],
          **judged(judgement("맛", False))), "explicit_failure"),
    # step 2 with is_implicit true -> implicit
    (card("a17", aspects=[{"term": "맛", "is_implicit": True}], **judged(judgement("맛", False))), "implicit"),
    # step 3: inputs.aspect_sentiments; atsa absent -> atsa_score's judgements
    (card("a18", inputs={"aspect_sentiments": [item(None, "가격", "negative")]},
          **judged(judgement("가격"), key="atsa_score")), "explicit"),
    # atsa is a non-empty object without judgements: J is empty (atsa_score not consulted)
    (card("a19", tuples=TASTE, atsa={"x": 1}, atsa_score={"sentiment_judgements": [judgement("맛")]}),
     "unsupported"),
    # atsa {} is falsy: atsa_score is read
    (card("a20", tuples=TASTE, atsa={}, atsa_score={"sentiment_judgements": [judgement("맛")]}), "explicit"),
    # no FT: a label (moderator.final_label) -> implicit; any non-empty label counts
    (card("a21", moderator={"final_label": "whatever"}), "implicit"),
    # no FT and no label -> unsupported; a blank label is empty after ok()
    (card("a22", fr={"label": "  "}), "unsupported"),
    # PO.final_result is non-empty without label: the top-level final_result is not read
    (card("a23", fr={"final_tuples": []}, final_result={"label": "neg"}), "unsupported"),
    # PO.final_result empty: the top-level final_result's label counts
    (card("a24", final_result={"label": "neg"}), "implicit"),
    # a label in PO.final_result
    (card("a25", fr={"label": "positive"}), "implicit"),
]


def test_rq1_buckets(tmp_path: Path) -> None:
    _, table = evaluate(tmp_path, [r for r, _ in RQ1_ROWS])
    assert column(table, "rq1") == {r["meta"]["text_id"]: bucket for r, bucket in RQ1_ROWS}


def test_final_set_keeps_term_of_truthy_is_implicit(tmp_path: Path) -> None:
    # the two is_implicit readers: RQ1 treats 1 as implicit (a12 above), S2 keeps the term
    _, table = evaluate(tmp_path, [card("k", tuples=[item(REF, "맛", is_implicit=1)])])
    assert table.select("final_tuples", "rq1").row(0) == ('[["본품#품질","맛","positive"]]', "implicit")


UNSUP_ROWS: list[tuple[Json, bool]] = [
    (card("u1", tuples=TASTE), False),  # J empty
    (card("u2", tuples=TASTE, **judged(judgement("향", False), judgement(None, True, ["other"]))), True),  # all fail
    # 가격 fails but is not a final term; 맛 passes (unknown/insufficient only)
    (card("u3", tuples=TASTE, **judged(judgement("맛", True, ["unknown/insufficient"]), judgement("가격", False))),
     False),
    # 가격 fails and is a final term (normalized: "가격!" -> 가격)
    (card("u4", tuples=[*TASTE, item(REF, "가격!")], **judged(judgement("맛"), judgement("가격", True, ["x"]))), True),
    # a failing judgement without a term never matches the implicit (empty) final term
    (card("u5", tuples=[item(REF, "맛"), item(REF, "")], **judged(judgement("맛"), judgement(None, False))), False),
]


def test_unsupported_polarity_legacy(tmp_path: Path) -> None:
    _, table = evaluate(tmp_path, [r for r, _ in UNSUP_ROWS])
    assert column(table, "unsupported_polarity_legacy") == {r["meta"]["text_id"]: v for r, v in UNSUP_ROWS}
    assert column(table, "sentiment_judgements_present") == {"u1": False, "u2": True, "u3": True, "u4": True,
                                                              "u5": True}


HAL_ROWS: list[tuple[Json, bool]] = [
    (card("h1", tuples=[item(REF, " 맛 ")]), False),  # stripped 맛 is in the text
    (card("h2", tuples=[item(REF, "Taste")], text="taste"), True),  # case-sensitive, not normalized
    (card("h3", tuples=[item(REF, "맛!")]), True),  # "맛!" is not in the text (no punctuation strip)
    (card("h4", tuples=[item(REF, "향", is_implicit=True)]), True),  # HAL ignores is_implicit
    (card("h5", tuples=[item(REF, "")]), False),  # empty term: nothing to check
    (card("h6", tuples=[{"aspect_ref": REF, "opinion_term": {"term": "향"}}]), True),  # opinion_term stands in
    (card("h7", tuples=[{"aspect_ref": REF, "opinion_term": "향"}]), False),  # a string opinion_term is no term
    (card("h8", tuples=TASTE, po_meta={"input_text": "향"}), True),  # PO.meta's text wins over meta's
    (card("h9", tuples=TASTE, po_meta={}), False),  # PO.meta {} is falsy: meta's text
    (card("h10", tuples=TASTE, text=None), True),  # no text at all: every non-empty term counts
    # final_aspects are checked too: a non-empty aspect_term object never counts (Q4)
    (card("h11", tuples=TASTE, aspects=[{"aspect_term": {"term": "향"}, "term": "향"}]), False),
    (card("h12", tuples=TASTE, aspects=[{"aspect_term": {}, "opinion_term": {"term": "향"}}]), True),
    (card("h13", tuples=TASTE, aspects=[{"aspect_term": "맛", "term": "향"}]), True),  # legacy term, not aspect_term
    (card("h14", aspects=[{"aspect_term": "향", "term": "가격"}]), False),
]


def test_aspect_hallucination(tmp_path: Path) -> None:
    _, table = evaluate(tmp_path, [r for r, _ in HAL_ROWS])
    assert column(table, "aspect_hallucination") == {r["meta"]["text_id"]: v for r, v in HAL_ROWS}


def test_po_meta_without_text_gives_empty_text(tmp_path: Path) -> None:
    _, table = evaluate(tmp_path, [card("k", tuples=TASTE, po_meta={"x": 1})])
    assert table.get_column("aspect_hallucination").to_list() == [True]


def test_drops_and_alignment_failure(tmp_path: Path) -> None:
    filtered = [DROP_AF, {"action": " drop ", "drop_reason": "alignment_failure"},
                {"action": "keep", "drop_reason": "alignment_failure"}, {"action": "drop", "drop_reason": "other"},
                "not an object"]
    rows = [
        card("d1", tuples=[item(REF, "맛", drop_reason=" filter_rejection "), item(REF, "가격")],
             inputs={"ate_debug": {"filtered": filtered}}),
        card("d2", tuples=[item(REF, "맛", drop_reason="semantic_hallucination"),
                           item(REF, "가격", drop_reason="alignment_failure")]),
        card("d3", tuples=[item(REF, "향")], inputs={"ate_debug": {"filtered": {"action": "drop"}}}),  # HAL
    ]
    _, table = evaluate(tmp_path, rows)
    got = table.select("sample_key", "final_drop_alignment_failure", "alignment_failure_or_hallucination",
                       "final_drop_filter_rejection", "final_drop_semantic_hallucination",
                       "alignment_failure_drops").rows()
    assert got == [
        ("d1", False, False, True, False, 2),  # two drops for alignment_failure ("keep" and "other" do not count)
        ("d2", True, True, False, True, 0),
        ("d3", False, True, False, False, 0),  # filtered not a list: AF 0
    ]


def test_rates(tmp_path: Path) -> None:
    rows = [
        card("r1", tuples=TASTE, **judged(judgement("맛"))),  # explicit; UNSUP no
        card("r2", tuples=[item(REF, "향", drop_reason="filter_rejection")], **judged(judgement("향", False))),
        # r2: explicit_failure, HAL (향 not in text), filter rejection, UNSUP (all fail)
        card("r3", tuples=[item(REF, "", drop_reason="alignment_failure")]),  # implicit; alignment failure
        card("r4"),  # no FT, no label: unsupported
        card("r5", tuples=[item(REF, "가격", drop_reason="semantic_hallucination")]),  # unsupported (no J)
    ]
    metrics, _ = evaluate(tmp_path, rows)
    assert metrics["aspect_hallucination_rate"] == pytest.approx(1 / 5)  # r2
    assert metrics["alignment_failure_rate"] == pytest.approx(2 / 5)  # r2 (HAL), r3 (drop reason)
    assert metrics["filter_rejection_rate"] == pytest.approx(1 / 5)  # r2
    assert metrics["semantic_hallucination_rate"] == pytest.approx(1 / 5)  # r5
    assert metrics["implicit_grounding_rate"] == pytest.approx(1 / 5)  # r3
    assert metrics["explicit_grounding_rate"] == pytest.approx(1 / 5)  # r1
    assert metrics["explicit_grounding_failure_rate"] == pytest.approx(1 / 5)  # r2
    assert metrics["unsupported_polarity_rate"] == pytest.approx(2 / 5)  # r4, r5
    assert metrics["legacy_unsupported_polarity_rate"] == pytest.approx(1 / 5)  # r2
    assert metrics["rq1_one_hot_sum"] == pytest.approx(1.0)  # 0.2 + 0.2 + 0.2 + 0.4


def test_no_gold_no_judgement_gives_zero_not_blank(tmp_path: Path) -> None:
    metrics, _ = evaluate(tmp_path, [card("k")])
    for name in ("aspect_hallucination_rate", "alignment_failure_rate", "filter_rejection_rate",
                 "semantic_hallucination_rate", "implicit_grounding_rate", "explicit_grounding_rate",
                 "explicit_grounding_failure_rate", "legacy_unsupported_polarity_rate"):
        assert metrics[name] == 0.0, name
    assert metrics["unsupported_polarity_rate"] == 1.0
    assert metrics["rq1_one_hot_sum"] == 1.0


TERMS = st.sampled_from(["맛", "가격", "향", "()", " ", "", "Taste"])
ITEMS = st.builds(lambda ref, term, implicit, reason: item(ref, term, **implicit, **reason),
                  st.sampled_from([REF, None]), TERMS, st.sampled_from([{}, {"is_implicit": 1}, {"is_implicit": True}]),
                  st.sampled_from([{}, {"drop_reason": "alignment_failure"}, {"drop_reason": "filter_rejection"},
                                   {"drop_reason": "semantic_hallucination"}]))
JUDGEMENTS = st.builds(judgement, st.sampled_from(["맛", "가격", None]), st.sampled_from([True, False, None]),
                       st.sampled_from([[], ["unknown/insufficient"], ["mismatch"], ["opinion_not_grounded"]]))
SAMPLE = st.tuples(st.lists(ITEMS, max_size=3), st.lists(JUDGEMENTS, max_size=3),
                   st.lists(st.sampled_from([DROP_AF, {"action": "keep"}]), max_size=3), st.booleans())
RATES = {
    "aspect_hallucination_rate": pl.col("aspect_hallucination"),
    "alignment_failure_rate": pl.col("alignment_failure_or_hallucination"),
    "filter_rejection_rate": pl.col("final_drop_filter_rejection"),
    "semantic_hallucination_rate": pl.col("final_drop_semantic_hallucination"),
    "implicit_grounding_rate": pl.col("rq1") == "implicit",
    "explicit_grounding_rate": pl.col("rq1") == "explicit",
    "explicit_grounding_failure_rate": pl.col("rq1") == "explicit_failure",
    "unsupported_polarity_rate": pl.col("rq1") == "unsupported",
    "legacy_unsupported_polarity_rate": pl.col("unsupported_polarity_legacy"),
}


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(samples=st.lists(SAMPLE, min_size=1, max_size=6))
def test_rates_are_shares_of_per_sample_flags(tmp_path: Path, samples: list[Any]) -> None:
    rows = [card(f"k{i}", tuples=tuples, inputs={"ate_debug": {"filtered": filtered}},
                 moderator={"final_label": "neg" if label else ""}, **judged(*js))
            for i, (tuples, js, filtered, label) in enumerate(samples)]
    metrics, table = evaluate(tmp_path, rows)
    for name, flag in RATES.items():
        assert metrics[name] == pytest.approx(table.select(flag.sum()).item() / table.height), name
        assert 0.0 <= metrics[name] <= 1.0  # type: ignore[operator]
    assert set(table.get_column("rq1")) <= {"implicit", "explicit", "explicit_failure", "unsupported"}
    assert metrics["rq1_one_hot_sum"] == pytest.approx(1.0)
    assert all(0 <= af <= 3 for af in table.get_column("alignment_failure_drops"))
    assert table.filter(pl.col("aspect_hallucination") & ~pl.col("alignment_failure_or_hallucination")).height == 0


def test_absent_judgements_are_told_apart_from_none_failing(tmp_path: Path) -> None:
    run = evaluate_rows(tmp_path / "absent", [card("k", tuples=TASTE)], families=FAMILIES)
    absent = set(run.registry.absent_fields(run.table))
    assert {"explicit_grounding_rate", "legacy_unsupported_polarity_rate"} <= absent
    assert "aspect_hallucination_rate" not in absent
    present = evaluate_rows(tmp_path / "present", [card("k", tuples=TASTE, **judged(judgement("맛")))],
                            families=FAMILIES)
    assert "explicit_grounding_rate" not in present.registry.absent_fields(present.table)
