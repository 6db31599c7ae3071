"""Per-unit marks of each tuple (aggregator/units/sample_marks.py): what the report and ``aggregate samples`` show."""

from __future__ import annotations

import polars as pl
from hypothesis import given
from hypothesis import strategies as st

from aggregator.units.projection import UNITS
from aggregator.units.sample_counts import tuples_text
from aggregator.units.sample_marks import STAGES, all_marks, sample_marks, tuples_of
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


_TUPLES = st.builds(
    EvalTuple,
    st.sampled_from(["", "본품#품질", "본품#가격", "패키지·구성품#디자인"]),
    st.sampled_from(["", "향", "향기", " 가격 ", "디자인"]),
    st.sampled_from(["positive", "negative", "neutral"]),
)
_SETS = st.frozensets(_TUPLES, max_size=4)


@given(st.lists(st.tuples(_SETS, _SETS, _SETS | st.just(None)), min_size=1, max_size=12))
def test_the_marks_of_a_table_are_each_samples_own(samples: list[tuple[frozenset[EvalTuple], ...]]) -> None:
    """Sharing work between samples (repeated texts, equal stages, repeated tuples) changes no mark."""
    rows = [(gold, s1, s1 if s2 is None else s2) for gold, s1, s2 in samples]
    rows += rows[:2]  # samples that repeat
    table = pl.DataFrame(
        [[tuples_text(t) for t in row] for row in rows], schema=["gold_tuples", "stage1_tuples", "final_tuples"],
        orient="row",
    )
    units = list(UNITS.values())
    found = all_marks(table, units)
    for i in range(len(rows)):
        texts = [tuples_of(text) for text in table.row(i)]
        for unit in units:
            expected = sample_marks(unit, *texts)
            assert tuple(found[unit.name][stage][i] for stage in STAGES) == expected
    assert all(len(found[u.name][s]) == len(rows) for u in units for s in STAGES)
