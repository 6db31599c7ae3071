"""Run ids -> (condition, seed), and how inputs are turned into runs."""

from __future__ import annotations

import pytest

from aggregator.compare.runs import RunNaming
from scorecards.errors import InputError


@pytest.mark.parametrize(
    ("run_id", "expected"),
    [
        ("cr_n50_m1_v2__seed42_proposed", ("cr_n50_m1_v2", 42)),
        ("cr_n50_m1_v2__seed42", ("cr_n50_m1_v2", 42)),
        ("cr_n50_m0_v2_proposed", ("cr_n50_m0_v2", None)),
        ("plain", ("plain", None)),
        ("a__seed1__seed2", ("a__seed1", 2)),
        ("x_proposed_proposed", ("x_proposed", None)),
        ("x__seedling", ("x__seedling", None)),
    ],
)
def test_default_naming(run_id: str, expected: tuple[str, int | None]) -> None:
    assert RunNaming().parse(run_id) == expected


def test_condition_pattern_with_seed_group() -> None:
    naming = RunNaming.from_text(r"(?P<condition>m\d)_.*_s(?P<seed>\d+)")
    assert naming.parse("cr_m2_x_s7") == ("m2", 7)


def test_condition_pattern_without_seed_group_gives_no_seed() -> None:
    assert RunNaming.from_text(r"^(?P<condition>[a-z]+)").parse("abc123") == ("abc", None)


@pytest.mark.parametrize(
    ("pattern", "message"),
    [("(", "not a regular expression"), ("(?P<cond>x)", "needs a named group"), ("(?P<condition>x)", "does not match")],
)
def test_bad_condition_patterns_are_input_errors(pattern: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        RunNaming.from_text(pattern).parse("abc")


def test_non_numeric_seed_is_an_input_error() -> None:
    with pytest.raises(InputError, match="not a whole number"):
        RunNaming.from_text(r"(?P<condition>\w+)-(?P<seed>\w+)").parse("a-b")
