"""Units of METRICS.md: projections, matching, per-sample correctness and transitions."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

import polars as pl
import pytest

from aggregator.metrics.prf import prf
from aggregator.units.projection import (
    UNITS,
    Counts,
    attribute_units,
    gold_units,
    is_explicit,
    match_exact,
    match_surface,
    ref_copies_term,
    surface_key,
    surface_units,
)
from aggregator.units.sample_counts import COLUMN_NAMES, Column, _count_columns, input_text, sample_counts
from scorecards.normalize import norm_term
from scorecards.record import SampleRecord
from scorecards.schema import Meta, Row
from scorecards.tuples import EvalTuple
from tests.scorecard_rows import evaluate_rows, item, row


def t(ref: str, term: str = "", pol: str = "positive") -> EvalTuple:
    return EvalTuple(ref, term, pol)  # type: ignore[arg-type]


# --- projections ---------------------------------------------------------------------------------


def test_refpol_pairs_skip_empty_refs() -> None:
    tuples = [t("본품#품질", "a"), t("본품#품질", "b"), t("", "c"), t("본품", "", "negative")]
    assert gold_units(tuples) == {("본품#품질", "positive"), ("본품", "negative")}


def test_otepol_pairs_keep_empty_terms() -> None:
    tuples = [t("r#1", "a"), t("r#2", "a"), t("r#3", ""), t("", "", "neutral")]
    assert surface_units(tuples) == {("a", "positive"), ("", "positive"), ("", "neutral")}


@pytest.mark.parametrize(
    ("ref", "pairs"),
    [
        ("본품#품질", {("품질", "positive")}),
        ("제품 전체#  Quality. ", {("quality", "positive")}),
        ("a#b#c", {("b#c", "positive")}),
        ("a# (x) ", {("x", "positive")}),
        ("#가격", {("가격", "positive")}),
        ("a#", set()),
        ("a#   ", set()),
        ("a# . ", {("", "positive")}),
        ("본품", set()),
        ("", set()),
    ],
)
def test_attrpol_pairs(ref: str, pairs: set[tuple[str, str]]) -> None:
    assert attribute_units([t(ref, "term")]) == pairs


# --- matching --------------------------------------------------------------------------------------


def test_exact_matching_counts() -> None:
    gold = frozenset({("a", "positive"), ("b", "negative"), ("c", "neutral")})
    pred = frozenset({("a", "positive"), ("b", "positive"), ("d", "mixed")})
    assert match_exact(pred, gold) == Counts(1, 2, 2)
    assert match_exact(frozenset(), gold) == Counts(0, 0, 3)
    assert match_exact(pred, frozenset()) == Counts(0, 3, 0)


@pytest.mark.parametrize(
    ("pred", "gold", "counts"),
    [
        ({("x", "positive")}, {("", "positive")}, (1, 0, 0)),
        ({("x", "negative")}, {("", "positive")}, (0, 1, 1)),
        ({("", "positive")}, {("", "positive")}, (1, 0, 0)),
        ({("x", "positive"), ("y", "positive")}, {("", "positive")}, (1, 1, 0)),
        ({("x", "positive"), ("y", "negative")}, {("", "positive"), ("", "negative")}, (2, 0, 0)),
        ({("x", "positive")}, {("", "positive"), ("", "negative")}, (1, 0, 1)),
        ({("x", "positive")}, {("x", "positive"), ("", "positive")}, (1, 0, 1)),
        ({("x", "positive"), ("z", "positive")}, {("x", "positive"), ("", "positive")}, (2, 0, 0)),
        ({("x", "negative"), ("z", "positive")}, {("x", "positive"), ("", "positive")}, (1, 1, 1)),
        ({("x", "positive")}, {("x", "positive")}, (1, 0, 0)),
        (set(), {("", "positive")}, (0, 0, 1)),
    ],
)
def test_surface_matching_lets_implicit_gold_match_on_polarity(
    pred: set[tuple[str, str]], gold: set[tuple[str, str]], counts: tuple[int, int, int]
) -> None:
    assert match_surface(frozenset(pred), frozenset(gold)) == Counts(*counts)


def test_unit_table() -> None:
    assert list(UNITS) == ["refpol", "otepol", "attrpol"]
    assert [u.empty_gold_correct for u in UNITS.values()] == [False, False, True]
    assert [u.micro_needs_gold for u in UNITS.values()] == [False, False, True]
    assert UNITS["otepol"].match is match_surface
    assert UNITS["refpol"].counts([t("a#b")], [t("a#b"), t("a#c")]) == Counts(1, 0, 1)


def test_prf_zero_division_policy() -> None:
    assert prf(0, 0, 0) == (0.0, 0.0, 0.0)
    assert prf(0, 2, 0) == (0.0, 0.0, 0.0)
    assert prf(0, 0, 2) == (0.0, 0.0, 0.0)
    assert prf(1, 1, 0) == (0.5, 1.0, 2 / 3)
    assert prf(3, 0, 0) == (1.0, 1.0, 1.0)


# --- per-sample correctness and transitions ---------------------------------------------------------


def one_sample(tmp_path: Path, gold: list[Any], stage1: list[Any], final: list[Any]) -> dict[str, Any]:
    rows = [row("k", gold=gold, stage1=stage1, final=final), row("z", gold=[item("본품#일반", "x")])]
    table = evaluate_rows(tmp_path, rows).table
    return table.filter(pl.col("sample_key") == "k").row(0, named=True)


def test_correct_means_precision_and_recall_both_one(tmp_path: Path) -> None:
    gold = [item("본품#품질", "향"), item("본품#가격", "값", "negative")]
    s = one_sample(tmp_path, gold, stage1=gold[:1], final=gold)
    assert (s["refpol_s1_correct"], s["refpol_s2_correct"]) == (False, True)
    assert (s["refpol_s1_precision"], s["refpol_s1_recall"]) == (1.0, 0.5)
    assert s["refpol_s2_f1"] == s["otepol_s2_f1"] == s["attrpol_s2_f1"] == 1.0
    assert s["refpol_transition"] == s["otepol_transition"] == s["attrpol_transition"] == "fix"


@pytest.mark.parametrize(
    ("s1_ok", "s2_ok", "transition"),
    [(False, True, "fix"), (True, False, "break"), (True, True, "keep"), (False, False, "still")],
)
def test_transitions(tmp_path: Path, s1_ok: bool, s2_ok: bool, transition: str) -> None:
    gold = [item("본품#품질", "향")]
    wrong = [item("본품#품질", "향", "negative")]
    s = one_sample(tmp_path, gold, stage1=gold if s1_ok else wrong, final=gold if s2_ok else wrong)
    assert (s["refpol_s1_correct"], s["refpol_s2_correct"], s["refpol_transition"]) == (s1_ok, s2_ok, transition)


def test_changed_compares_evaltuple_sets(tmp_path: Path) -> None:
    gold = [item("본품#품질", "향")]
    same = one_sample(tmp_path, gold, stage1=[item(" 본품 # 품질", "향.")], final=[item("본품#품질", " 향")])
    other_term = one_sample(tmp_path, gold, stage1=[item("본품#품질", "향")], final=[item("본품#품질", "냄새")])
    assert (same["changed"], other_term["changed"]) == (False, True)
    assert other_term["refpol_transition"] == "keep"


@pytest.mark.parametrize("unit", ["refpol", "otepol"])
def test_empty_gold_pairs_are_never_correct_under_refpol_and_otepol(tmp_path: Path, unit: str) -> None:
    s = one_sample(tmp_path, gold=[], stage1=[], final=[])
    assert (s["has_gold"], s[f"{unit}_s1_correct"], s[f"{unit}_s2_correct"]) == (False, False, False)
    assert s[f"{unit}_s2_f1"] == 0.0


def test_gold_without_refs_is_never_refpol_correct(tmp_path: Path) -> None:
    s = one_sample(tmp_path, gold=[item(None, "향")], stage1=[item(None, "향")], final=[item(None, "향")])
    assert (s["refpol_s2_tp"], s["refpol_s2_fp"], s["refpol_s2_fn"]) == (0, 0, 0)
    assert (s["refpol_s2_correct"], s["otepol_s2_correct"]) == (False, True)


def test_attrpol_empty_gold_is_correct_exactly_when_prediction_is_empty(tmp_path: Path) -> None:
    gold = [item("본품", "향")]
    empty = one_sample(tmp_path, gold, stage1=[item("본품", "향")], final=[item("본품#품질", "향")])
    assert (empty["attrpol_s1_correct"], empty["attrpol_s2_correct"]) == (True, False)
    assert empty["attrpol_s1_f1"] == empty["attrpol_s2_f1"] == 0.0
    assert empty["attrpol_transition"] == "break"


def test_otepol_implicit_gold_in_a_sample(tmp_path: Path) -> None:
    gold = [item("본품#품질", ""), item("본품#가격", "값", "negative")]
    s = one_sample(tmp_path, gold, stage1=[item("r", "아무거나"), item("r", "값", "negative")],
                   final=[item("r", "값", "negative")])
    assert (s["otepol_s1_tp"], s["otepol_s1_fp"], s["otepol_s1_fn"]) == (2, 0, 0)
    assert s["otepol_s1_correct"] and not s["otepol_s2_correct"]
    assert (s["otepol_s2_tp"], s["otepol_s2_fp"], s["otepol_s2_fn"]) == (1, 0, 1)


def test_counts_add_up_to_set_sizes(tmp_path: Path) -> None:
    gold = [item("본품#품질", "향"), item("본품#가격", ""), item("", "x", "neutral")]
    final = [item("본품#품질", "향"), item("브랜드#인지도", "y"), item("본품#가격", "z", "negative")]
    s = one_sample(tmp_path, gold, stage1=[], final=final)
    assert s["refpol_s2_tp"] + s["refpol_s2_fn"] == 2
    assert s["refpol_s2_tp"] + s["refpol_s2_fp"] == 3
    assert s["otepol_s2_tp"] + s["otepol_s2_fn"] == 3
    assert s["attrpol_s2_tp"] + s["attrpol_s2_fn"] == 2


def test_a_term_is_its_own_surface_key_unless_whitespace_is_at_an_edge() -> None:
    """Only a term with whitespace at an edge is normalized again (docstring of ``surface_key``): the research
    tool lower-cases and strips those, and leaves every other term as the tuple holds it."""
    assert surface_key("Battery Life") == "Battery Life"
    assert surface_key("(x)") == "(x)"
    assert surface_key(" Battery") == "battery" and surface_key("Battery ") == "battery"
    assert surface_key(" x ") == "x" and surface_key(" ") == "" and surface_key("") == ""  # the tuple terms of
    # "( x )" and "(  )" (scorecards.normalize.norm_term at read time)
    spaces = [chr(c) for c in range(0x110000) if chr(c).isspace()]  # \u3000, \x1c, \x85 … count as edge whitespace
    assert all(surface_key(f"{space}A") == surface_key(f"A{space}") == norm_term("A") for space in spaces)
    assert all(surface_key(f"A{space}B") == f"A{space}B" for space in spaces)


def test_a_ref_copies_the_term_when_equal_once_normalized_as_a_term() -> None:
    assert ref_copies_term("향", "향") and ref_copies_term(" (향) ", "향")
    assert not ref_copies_term("본품#품질", "향") and not ref_copies_term("", "") and not ref_copies_term("", "향")


def test_a_tuple_is_explicit_when_its_surface_key_is_not_empty() -> None:
    assert is_explicit(EvalTuple("본품#품질", "향", "positive")) and is_explicit(EvalTuple("", "Battery", "negative"))
    assert not is_explicit(EvalTuple("본품#품질", "", "positive")) and not is_explicit(EvalTuple("본품#품질", " ", "neutral"))


# --- sample_counts: the per-sample row, column by column ------------------------------------------------


def record(gold: Iterable[EvalTuple] = (), stage1: Iterable[EvalTuple] = (), final: Iterable[EvalTuple] = (),
           decoded: Any = None) -> SampleRecord:
    return SampleRecord("r", "k", "", None, 1, frozenset(gold), frozenset(stage1), frozenset(final), "stage1_tuples",
                        "final_tuples", 0, 0, 0, 0, row=decoded)


def counts_of(rec: SampleRecord) -> dict[str, object]:
    values = sample_counts(rec)
    assert len(values) == len(COLUMN_NAMES)
    return dict(zip(COLUMN_NAMES, values, strict=True))


def test_count_columns_are_tp_fp_fn_integers_named_after_the_prefix() -> None:
    assert _count_columns("refpol_s2", "S2 under refpol") == [
        Column("refpol_s2_tp", "int", "true positives of S2 under refpol"),
        Column("refpol_s2_fp", "int", "false positives of S2 under refpol"),
        Column("refpol_s2_fn", "int", "false negatives of S2 under refpol"),
    ]


def test_implicit_gold_polarities_against_the_final_polarities() -> None:
    """Gold implicit polarities {positive, neutral} (the explicit negative is not one); final polarities
    {negative, positive} (mixed is not a basic polarity): tp 1 (positive), fp 1 (negative), fn 1 (neutral)."""
    gold = [t("본품#품질", "", "positive"), t("본품#가격", "값", "negative"), t("본품#일반", "", "neutral")]
    final = [t("본품#품질", "값", "negative"), t("본품#품질", "", "positive"), t("본품#일반", "향", "mixed")]
    c = counts_of(record(gold, final=final))
    assert c["implicit_eligible"] is True
    assert (c["implicit_polarity_tp"], c["implicit_polarity_fp"], c["implicit_polarity_fn"]) == (1, 1, 1)
    assert (c["n_gold"], c["n_gold_explicit"], c["n_gold_implicit"]) == (3, 1, 2)
    assert (c["n_s2"], c["s2_term_empty"]) == (3, 1)


def test_no_implicit_gold_is_not_eligible_and_counts_nothing() -> None:
    final = [t("본품#품질", "", "positive"), t("본품#가격", "값", "negative")]
    for gold in ([t("본품#가격", "값", "negative")], [t("본품#품질", "", "mixed")]):
        c = counts_of(record(gold, final=final))
        assert c["implicit_eligible"] is False
        assert (c["implicit_polarity_tp"], c["implicit_polarity_fp"], c["implicit_polarity_fn"]) == (0, 0, 0)


def test_ref_statistics_count_filled_valid_and_copied_refs_per_stage() -> None:
    """S1: refs 본품#품질 (valid), 향 (copies its term 향), "" (not filled); S2: 본품#가격 (valid), 값 (copies 값)
    and an implicit tuple with the valid 본품#일반."""
    stage1 = [t("본품#품질", "향"), t("향", "향"), t("", "맛")]
    final = [t("본품#가격", "값"), t("값", "값", "negative"), t("본품#일반", "")]
    c = counts_of(record(stage1=stage1, final=final))
    assert (c["s1_ref_filled"], c["s1_ref_valid"], c["s1_ref_copies_term"]) == (2, 1, 1)
    assert (c["s2_ref_filled"], c["s2_ref_valid"], c["s2_ref_copies_term"]) == (3, 2, 1)
    assert c["s2_term_empty"] == 1


def test_input_text_is_the_rows_meta_input_text_when_a_string() -> None:
    assert input_text(record(decoded=Row(meta=Meta(input_text="향이 좋아요")))) == "향이 좋아요"
    assert counts_of(record(decoded=Row(meta=Meta(input_text="향이 좋아요"))))["input_text"] == "향이 좋아요"
    for decoded in (Row(meta=Meta(input_text=5)), Row(meta=Meta()), Row(meta=None), None):  # None: once evaluated
        assert input_text(record(decoded=decoded)) == ""
