"""Tuple item -> EvalTuple: readers A and B of SCORECARDS.md and where they differ."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from scorecards.tuples import BadTuple, EvalTuple, read_a, read_b
from tests.scorecard_rows import item

PATH = "x.final_tuples"


def items(*dicts: dict[str, Any]) -> list[msgspec.Raw]:
    """Tuple items as the row decoder hands them to the readers: raw JSON."""
    return [msgspec.Raw(msgspec.json.encode(d)) for d in dicts]


def a(*dicts: dict[str, Any], **options: bool) -> set[EvalTuple]:
    return set(read_a(items(*dicts), PATH, **options).tuples)


def b(*dicts: dict[str, Any]) -> set[EvalTuple]:
    return set(read_b(items(*dicts), PATH).tuples)


def gold(*dicts: dict[str, Any]) -> set[EvalTuple]:
    return a(*dicts, gold=True)


# --- aspect_ref -------------------------------------------------------------------------------


@pytest.mark.parametrize("missing", [{}, {"aspect_ref": None}, {"aspect_ref": ""}])
def test_reader_a_ref_falls_back_to_term(missing: dict[str, Any]) -> None:
    assert a({**missing, "term": " 본품 # 품질", "aspect_term": "x", "polarity": "pos"}) == {EvalTuple("본품#품질", "x", "positive")}


def test_reader_a_aspect_ref_wins_over_term() -> None:
    assert a({"aspect_ref": "본품#가격", "term": "본품#품질"}) == {EvalTuple("본품#가격", "", "neutral")}


def test_reader_b_has_no_term_fallback_for_the_ref() -> None:
    assert b({"term": "본품#품질", "aspect_term": "x", "polarity": "neg"}) == {EvalTuple("", "x", "negative")}
    assert b({"term": "본품#품질", "polarity": "neg"}) == set()


def test_null_ref_is_empty_in_both_readers() -> None:
    value = {"aspect_ref": None, "aspect_term": "x", "polarity": "pos"}
    assert a(value) == b(value) == {EvalTuple("", "x", "positive")}


# --- polarity ---------------------------------------------------------------------------------


@pytest.mark.parametrize("reader", [a, b])
@pytest.mark.parametrize("missing", [{}, {"polarity": None}, {"polarity": ""}])
def test_polarity_falls_back_to_label(reader: Any, missing: dict[str, Any]) -> None:
    assert reader({"aspect_ref": "r#x", **missing, "label": "NEG"}) == {EvalTuple("r#x", "", "negative")}


def test_polarity_wins_over_label() -> None:
    assert a({"polarity": "pos", "label": "negative"}) == {EvalTuple("", "", "positive")}


@pytest.mark.parametrize("reader", [read_a, read_b])
def test_missing_polarity_defaults_to_neutral_and_is_counted(reader: Any) -> None:
    read = reader(items({"aspect_ref": "r"}, {"aspect_ref": "s", "polarity": ""}, {"aspect_ref": "t", "label": None},
                        {"aspect_ref": "u", "polarity": "pos"}), PATH)
    assert {t.polarity for t in read.tuples if t.aspect_ref != "u"} == {"neutral"}
    assert read.polarity_defaulted == 3


@pytest.mark.parametrize("reader", [read_a, read_b])
def test_unknown_polarity_names_the_item(reader: Any) -> None:
    with pytest.raises(BadTuple, match=r"unknown polarity 'good' at `x\.final_tuples\[1\]`"):
        reader(items(item("r#a"), item("r#b", pol="good")), PATH)


def test_unknown_label_is_bad_when_polarity_is_missing() -> None:
    with pytest.raises(BadTuple, match="unknown polarity"):
        read_a(items({"label": "great"}), PATH)


# --- which items are kept ----------------------------------------------------------------------


def test_reader_a_keeps_items_without_ref_and_term() -> None:
    assert a({"polarity": "negative"}, {"aspect_ref": " ", "aspect_term": "()", "label": "pos"}) == {
        EvalTuple("", "", "negative"),
        EvalTuple("", "", "positive"),
    }


def test_reader_b_keeps_only_items_with_ref_or_term_after_normalization() -> None:
    assert b({"polarity": "negative"}, {"aspect_ref": " ", "aspect_term": "()", "polarity": "pos"}) == set()
    assert b(item("본품#품질"), item(term="X")) == {
        EvalTuple("본품#품질", "", "positive"),
        EvalTuple("", "x", "positive"),
    }


def test_reader_b_does_not_validate_or_count_dropped_items() -> None:
    read = read_b(items({"aspect_ref": "", "polarity": None}, item("r")), PATH)
    assert read.polarity_defaulted == 0


def test_require_term_keeps_only_items_with_a_term() -> None:
    read = read_a(items(item("r#a", "x"), item("r#b"), item("r#c", ""), item("r#d", " . "),
                        item("r#e", "y", is_implicit=True)), PATH, require_term=True)
    assert set(read.tuples) == {EvalTuple("r#a", "x", "positive")}


# --- aspect_term text ---------------------------------------------------------------------------


@pytest.mark.parametrize("reader", [a, b])
def test_term_object_gives_its_term(reader: Any) -> None:
    value = {"aspect_ref": "r", "aspect_term": {"term": " Battery ", "span": {"start": 0, "end": 7}}, "polarity": "pos"}
    assert reader(value) == {EvalTuple("r", "battery", "positive")}


@pytest.mark.parametrize("reader", [a, b])
@pytest.mark.parametrize(
    "no_term",
    [{}, {"aspect_term": None}, {"aspect_term": {"span": [0, 1]}}, {"aspect_term": {"term": None}}],
)
def test_opinion_term_object_stands_in_for_a_missing_term(reader: Any, no_term: dict[str, Any]) -> None:
    value = {"aspect_ref": "r", **no_term, "opinion_term": {"term": "Price", "span": [0, 5]}, "polarity": "pos"}
    assert reader(value) == {EvalTuple("r", "price", "positive")}


@pytest.mark.parametrize("reader", [a, b, gold])
def test_empty_string_term_is_a_term_and_beats_opinion_term(reader: Any) -> None:
    value = {"aspect_ref": "r", "aspect_term": "", "opinion_term": {"term": "price"}, "polarity": "pos"}
    assert reader(value) == {EvalTuple("r", "", "positive")}


@pytest.mark.parametrize("reader", [a, b])
def test_string_opinion_term_is_ignored(reader: Any) -> None:
    assert reader({"aspect_ref": "r", "opinion_term": "별로", "polarity": "pos"}) == {EvalTuple("r", "", "positive")}


def test_is_implicit_true_empties_the_term_in_reader_a() -> None:
    assert a(item("r", "Price", is_implicit=True)) == {EvalTuple("r", "", "positive")}
    assert a(item("r", "Price", is_implicit=False)) == {EvalTuple("r", "price", "positive")}


def test_reader_b_ignores_is_implicit() -> None:
    assert b(item("r", "Price", is_implicit=True)) == {EvalTuple("r", "price", "positive")}


def test_gold_ignores_is_implicit() -> None:
    assert gold(item("r", "Price", is_implicit=True)) == {EvalTuple("r", "price", "positive")}


# --- gold only ---------------------------------------------------------------------------------


def test_gold_empty_term_stays_implicit() -> None:
    assert gold(item("본품#품질", "")) == {EvalTuple("본품#품질", "", "positive")}


@pytest.mark.parametrize(
    "no_term",
    [{}, {"aspect_term": None}, {"aspect_term": {"term": None}}, {"opinion_term": "좋아요"}, {"opinion_term": None}],
)
def test_gold_without_term_uses_the_ref_normalized_as_a_term(no_term: dict[str, Any]) -> None:
    value = {"aspect_ref": " 본품 #  Quality. ", **no_term, "polarity": "pos"}
    assert gold(value) == {EvalTuple("본품#Quality.", "본품 # quality", "positive")}
    assert a(value) == {EvalTuple("본품#Quality.", "", "positive")}


def test_gold_ref_as_term_follows_the_term_key_fallback() -> None:
    assert gold({"term": "Battery", "polarity": "neg"}) == {EvalTuple("Battery", "battery", "negative")}


def test_gold_without_ref_or_term_is_an_all_empty_tuple() -> None:
    assert gold({"polarity": "neu"}) == {EvalTuple("", "", "neutral")}


def test_gold_opinion_term_object_beats_ref_as_term() -> None:
    assert gold({"aspect_ref": "본품#가격", "opinion_term": {"term": "값"}}) == {EvalTuple("본품#가격", "값", "neutral")}


# --- sets ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("reader", [a, b, gold])
def test_duplicates_after_normalization_count_once(reader: Any) -> None:
    out = reader(item("본품#품질", "Battery", "pos"), item(" 본품 # 품질 ", " battery.", "positive"),
                 item("본품#품질", {"term": "BATTERY"}, "Positive"))
    assert out == {EvalTuple("본품#품질", "battery", "positive")}
