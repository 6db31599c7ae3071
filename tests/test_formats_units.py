"""Evaluation units built and projected at test time (the registry's are built at import): names and order
as the ACOS scorer prints its 15 subsets, which tuples enter a unit, and the explicit/implicit types."""

from __future__ import annotations

import json

from aggregator.formats.model import IMPLICIT, AbsaTuple, CharSpan, TokenSpan
from aggregator.formats.units import Unit, subsets, tuple_type, unit
from tests.conftest import FIXTURES

FISH = AbsaTuple(CharSpan(4, 8), "FOOD#QUALITY", TokenSpan(2, 3), "positive")
IMPLICIT_ASPECT = AbsaTuple(IMPLICIT, "FOOD#PRICES", TokenSpan(5, 6), "negative")
NO_POLARITY = AbsaTuple(CharSpan(0, 3), "SERVICE#GENERAL", IMPLICIT, None)
NO_ASPECT = AbsaTuple(None, "food", None, "neutral")


def test_the_subsets_of_four_fields_are_the_acos_scorers_15_in_its_order() -> None:
    expected = json.loads((FIXTURES / "peer" / "acos" / "case_1" / "expected.json").read_text())
    every = subsets("category", "sentiment", "aspect", "opinion")
    assert [u.name for u in every] == list(expected["subtasks"])
    assert all(u.fields == tuple(u.name.split()) and not u.complete and not u.explicit_only for u in every)


def test_subsets_of_fewer_fields_keep_the_order_and_the_flag() -> None:
    assert subsets("sentiment", "category") == (unit("category"), unit("sentiment"), unit("category", "sentiment"))
    assert [u.complete for u in subsets("aspect", complete=True)] == [True]


def test_a_unit_is_named_by_its_fields_in_acos_order_with_no_flag_by_default() -> None:
    assert unit("opinion", "aspect") == Unit("aspect opinion", ("aspect", "opinion"), False, False)
    assert unit("aspect", explicit_only=True, complete=False) == Unit("aspect", ("aspect",), True, False)


def test_a_tuple_enters_a_unit_with_every_field_of_it() -> None:
    """A unit value is the tuple of its fields (one field: a 1-tuple); a tuple missing one (None) is left out,
    unless the unit is complete; an implicit aspect is a value, left out only by an explicit-only unit."""
    tuples = [FISH, IMPLICIT_ASPECT, NO_POLARITY, NO_ASPECT]
    assert unit("aspect").project(tuples) == {(CharSpan(4, 8),), (IMPLICIT,), (CharSpan(0, 3),)}
    assert unit("category", "sentiment").project(tuples) == {
        ("FOOD#QUALITY", "positive"), ("FOOD#PRICES", "negative"), ("food", "neutral")}
    assert unit("aspect", "opinion").project(tuples) == {
        (CharSpan(4, 8), TokenSpan(2, 3)), (IMPLICIT, TokenSpan(5, 6)), (CharSpan(0, 3), IMPLICIT)}
    assert unit("sentiment", complete=True).project(tuples) == {("positive",), ("negative",), (None,), ("neutral",)}
    assert unit("category", "aspect", explicit_only=True).project(tuples) == {
        ("FOOD#QUALITY", CharSpan(4, 8)), ("SERVICE#GENERAL", CharSpan(0, 3))}


def test_the_type_of_a_tuple_is_its_explicit_or_implicit_aspect_and_opinion() -> None:
    assert [tuple_type(t) for t in (FISH, IMPLICIT_ASPECT, NO_POLARITY, AbsaTuple(IMPLICIT, None, IMPLICIT, None))] == [
        "EA&EO", "IA&EO", "EA&IO", "IA&IO"]
