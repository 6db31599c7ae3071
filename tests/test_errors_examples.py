"""Error anatomy, worked by hand: one example of every class under the unit that shows it, every
precedence tie (a prediction two classes could claim, two predictions one gold pair could take),
the boundary threshold, and what the review did (repaired, introduced, changed class)."""

from __future__ import annotations

import pytest

from aggregator.units.error_anatomy import classify, items, transitions
from aggregator.units.error_classes import (
    BOUNDARY,
    CATEGORY,
    EXACT,
    IMPLICIT,
    MISSED,
    POLARITY,
    SPURIOUS,
    term_overlap,
)
from scorecards.tuples import EvalTuple as T

FOOD, PRICE, TASTE = "음식#품질", "음식#가격", "음식#맛"


def classes(unit: str, gold: list[T], pred: list[T]) -> tuple[list[str], list[str]]:
    found = classify(unit, items(unit, gold), items(unit, pred))
    return found.gold, found.pred


@pytest.mark.parametrize(("unit", "gold", "pred", "expected"), [
    ("refpol", [T(FOOD, "음식", "positive")], [T(FOOD, "요리", "positive")], ([EXACT], [EXACT])),
    ("otepol", [T("", "battery life", "negative")], [T(FOOD, "battery life", "negative")], ([EXACT], [EXACT])),
    ("refpol", [T(FOOD, "음식", "positive")], [T(FOOD, "음식", "negative")], ([POLARITY], [POLARITY])),
    ("otepol", [T("", "battery", "positive")], [T("", "battery", "neutral")], ([POLARITY], [POLARITY])),
    ("attrpol", [T(FOOD, "음식", "positive")], [T("서비스#품질", "직원", "negative")], ([POLARITY], [POLARITY])),
    ("refpol", [T(FOOD, "pasta", "positive")], [T(PRICE, "pasta", "positive")], ([CATEGORY], [CATEGORY])),
    ("attrpol", [T(FOOD, "pasta", "positive")], [T(PRICE, "pasta", "positive")], ([CATEGORY], [CATEGORY])),
    ("otepol", [T("", "battery life", "positive")], [T("", "battery", "positive")], ([BOUNDARY], [BOUNDARY])),
    ("otepol", [T("", "배송 속도", "positive")], [T("", "배송", "negative")], ([BOUNDARY], [BOUNDARY])),
    ("otepol", [T("", "screen size", "positive")], [T("", "size of screen", "positive")], ([BOUNDARY], [BOUNDARY])),
    ("refpol", [T(FOOD, "the pasta", "positive")], [T(TASTE, "pasta", "positive")], ([BOUNDARY], [BOUNDARY])),
    ("otepol", [T("", "음식", "positive")], [T("", "", "positive")], ([IMPLICIT], [IMPLICIT])),
    ("refpol", [T(FOOD, "", "negative")], [T(PRICE, "가격", "negative")], ([IMPLICIT], [IMPLICIT])),
    ("otepol", [T("", "battery", "positive")], [T("", "screen", "positive")], ([MISSED], [SPURIOUS])),
    ("refpol", [T(FOOD, "음식", "positive")], [], ([MISSED], [])),
    ("refpol", [], [T(FOOD, "음식", "positive")], ([], [SPURIOUS])),
])
def test_one_example_of_every_class(unit: str, gold: list[T], pred: list[T],
                                    expected: tuple[list[str], list[str]]) -> None:
    assert classes(unit, gold, pred) == expected


def test_an_implicit_gold_pair_is_matched_on_polarity_under_the_surface_unit() -> None:
    """otepol: implicit gold matches any prediction of its polarity (exact), so another polarity is a polarity error."""
    assert classes("otepol", [T("", "", "positive")], [T("", "battery", "positive")]) == ([EXACT], [EXACT])
    assert classes("otepol", [T("", "", "positive")], [T("", "battery", "negative")]) == ([POLARITY], [POLARITY])


def test_the_boundary_threshold_is_half_of_the_shorter_term() -> None:
    assert term_overlap("abcd", "cdef") == 0.5
    assert classes("otepol", [T("", "abcd", "positive")], [T("", "cdef", "positive")]) == ([BOUNDARY], [BOUNDARY])
    assert term_overlap("abcde", "defgh") == 0.4
    assert classes("otepol", [T("", "abcde", "positive")], [T("", "defgh", "positive")]) == ([MISSED], [SPURIOUS])
    assert term_overlap("향", "향수") == 1.0 and term_overlap("", "향") == 0.0


def test_polarity_comes_before_category() -> None:
    """The prediction has g1's ref (polarity error) and g2's term (category error): polarity wins."""
    gold = [T(FOOD, "x", "positive"), T(PRICE, "y", "positive")]
    assert classes("refpol", gold, [T(FOOD, "y", "negative")]) == ([MISSED, POLARITY], [POLARITY])


def test_category_comes_before_boundary() -> None:
    gold = [T(PRICE, "food", "positive"), T(TASTE, "good food", "positive")]
    assert classes("refpol", gold, [T(FOOD, "food", "positive")]) == ([CATEGORY, MISSED], [CATEGORY])


def test_boundary_comes_before_implicit() -> None:
    gold = [T(PRICE, "battery life", "positive"), T(TASTE, "", "positive")]
    assert classes("refpol", gold, [T(FOOD, "battery", "positive")]) == ([BOUNDARY, MISSED], [BOUNDARY])


def test_a_class_takes_as_many_pairs_as_it_can() -> None:
    """Greedy in order would pair g1 with p1 and leave g2; the maximum matching explains both."""
    gold = [T(FOOD, "x", "positive"), T(PRICE, "y", "positive")]
    pred = [T("맛#일반", "x", "positive"), T("맛#일반", "y", "positive"), T("향#일반", "x", "positive")]
    assert classes("refpol", gold, pred) == ([CATEGORY, CATEGORY], [CATEGORY, CATEGORY])


def test_a_prediction_of_the_same_polarity_is_preferred() -> None:
    gold = [T(FOOD, "battery", "positive")]
    pred = [T(PRICE, "battery life", "negative"), T(TASTE, "battery pack", "positive")]
    assert classes("refpol", gold, pred) == ([BOUNDARY], [SPURIOUS, BOUNDARY])


def test_a_larger_overlap_is_preferred() -> None:
    """Both overlap (" size" covers half of "big size x"; "screen" is contained); sorted order alone
    would pick "big size x", the larger overlap picks "screen"."""
    gold = [T("", "screen size", "positive")]
    pred = [T("", "big size x", "positive"), T("", "screen", "positive")]
    assert term_overlap("screen size", "big size x") == 0.5
    assert classes("otepol", gold, pred) == ([BOUNDARY], [SPURIOUS, BOUNDARY])


def test_a_full_tie_goes_to_the_first_gold_pair_in_sorted_order() -> None:
    gold = [T(FOOD, "음식", "positive"), T(FOOD, "음식", "neutral")]
    assert classes("refpol", gold, [T(FOOD, "음식", "negative")]) == ([POLARITY, MISSED], [POLARITY])
    assert [i.polarity for i in items("refpol", gold)] == ["neutral", "positive"]


def test_the_review_turning_a_boundary_error_into_a_polarity_error_is_a_class_change() -> None:
    gold = items("otepol", [T("", "battery life", "positive"), T("", "screen", "negative")])
    s1 = items("otepol", [T("", "battery", "negative"), T("", "screen", "negative"), T("", "price", "neutral")])
    s2 = items("otepol", [T("", "battery life", "negative"), T("", "keyboard", "positive")])
    first, final = classify("otepol", gold, s1), classify("otepol", gold, s2)
    assert first.gold == [BOUNDARY, EXACT] and final.gold == [POLARITY, MISSED]
    moved = transitions("otepol", first, final, s1, s2)
    assert moved.changes == ["boundary>polarity"] and moved.changed[BOUNDARY] == 1
    assert moved.introduced[MISSED] == 1 and moved.repaired[SPURIOUS] == 1 and moved.introduced[SPURIOUS] == 1
    assert sum(moved.repaired.values()) == 1
