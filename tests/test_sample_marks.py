"""Per-unit marks of each tuple (aggregator/units/sample_marks.py): what the report and ``aggregate samples`` show."""

from __future__ import annotations

from aggregator.units.projection import UNITS
from aggregator.units.sample_marks import sample_marks
from scorecards.tuples import EvalTuple

G = [EvalTuple("본품#품질", "향", "positive"), EvalTuple("본품#가격", "", "negative")]


def test_a_wrong_ref_with_the_right_term_matches_under_the_surface_unit_only() -> None:
    final = [EvalTuple("본품#일반", "향", "positive")]
    assert sample_marks(UNITS["refpol"], G, final, final) == ("xx", "x", "x")
    assert sample_marks(UNITS["otepol"], G, final, final) == ("mx", "m", "m")
    assert sample_marks(UNITS["attrpol"], G, final, final) == ("xx", "x", "x")


def test_a_tuple_without_a_pair_is_outside_the_unit() -> None:
    final = [EvalTuple("", "향", "positive"), EvalTuple("향", "향", "positive")]
    assert sample_marks(UNITS["refpol"], G, final, final)[2] == "-x"
    assert sample_marks(UNITS["attrpol"], G, final, final)[2] == "--"


def test_an_implicit_gold_pair_is_found_by_any_prediction_of_its_polarity() -> None:
    final = [EvalTuple("", "맛", "negative"), EvalTuple("", "향", "positive")]
    assert sample_marks(UNITS["otepol"], G, final, final) == ("mm", "mm", "mm")


def test_pairs_the_review_dropped_or_added_under_the_unit_are_upper_case() -> None:
    s1 = [EvalTuple("", "향", "positive"), EvalTuple("", "맛", "neutral")]
    final = [EvalTuple("본품#품질", "향", "positive"), EvalTuple("본품#가격", "값", "negative")]
    gold, marks_s1, marks_s2 = sample_marks(UNITS["otepol"], G, s1, final)
    assert (gold, marks_s1, marks_s2) == ("mm", "mX", "mM")
    assert sample_marks(UNITS["refpol"], G, s1, final) == ("mm", "--", "MM")
