"""Normalization rules of SCORECARDS.md: aspect_term, aspect_ref, polarity."""

from __future__ import annotations

import pytest

from aggregator.units.taxonomy import is_valid_ref
from scorecards.normalize import TERM_EDGE_PUNCTUATION, UnknownPolarity, norm_polarity, norm_ref, norm_term

SPEC_EDGE_CHARACTERS = ".,;:!?\"'`()[]{}"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("  Battery  Life ", "battery life"),
        ("( x )", " x "),
        ("  (  x  )  ", " x "),
        ('"Screen".', "screen"),
        ("[{(x)}]", "x"),
        ("'`x`'", "x"),
        ("x!?;:,", "x"),
        ("...", ""),
        ("", ""),
        ("   ", ""),
        ("a.b (c)", "a.b (c"),
        ("x\t\n\r\f\v y", "x y"),
        ("\u3000가격\u3000", "가격"),
        ("가\u00a0\u2003격", "가 격"),
        ("ÄÖÜ ẞ", "äöü ß"),
        ("“화면”", "“화면”"),
        ("（x）", "（x）"),
        ("-x-", "-x-"),
    ],
)
def test_norm_term(raw: str, expected: str) -> None:
    assert norm_term(raw) == expected


def test_term_edge_set_is_exactly_the_spec_list() -> None:
    assert set(TERM_EDGE_PUNCTUATION) == set(SPEC_EDGE_CHARACTERS)
    for char in SPEC_EDGE_CHARACTERS:
        assert norm_term(f"{char}{char}x{char}") == "x"


@pytest.mark.parametrize("char", list("-_/#@*<>~&%$+=|\\^"))
def test_other_ascii_punctuation_is_kept(char: str) -> None:
    assert norm_term(f"{char}x{char}") == f"{char}x{char}"


def test_edge_punctuation_is_stripped_after_collapsing_whitespace() -> None:
    assert norm_term(" .  X  . ") == " x "


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("패키지/구성품#가격", "패키지·구성품#가격"),
        (" 패키지/구성품 # 일반 ", "패키지·구성품#일반"),
        (" 본품 #  품질 ", "본품#품질"),
        ("제품  전체#일반", "제품 전체#일반"),
        ("제품\t전체 #\u3000일반", "제품 전체#일반"),
        ("a # b # c", "a#b # c"),
        ("#", "#"),
        (" # ", "#"),
        ("# x", "#x"),
        ("x #", "x#"),
        ("본품", "본품"),
        ("  본품  ", "본품"),
        ("", ""),
        ("BRAND#Quality", "BRAND#Quality"),
        ("(본품#품질).", "(본품#품질)."),
    ],
)
def test_norm_ref(raw: str, expected: str) -> None:
    assert norm_ref(raw) == expected


@pytest.mark.parametrize(
    ("raw", "valid"),
    [("패키지/구성품#가격", True), (" 패키지/구성품 #  디자인", True), ("패키지/구성품#인지도", False), ("본품 # 인지도", True),
     ("브랜드#편의성", False), ("제품  전체#다양성", True), ("본품#", False), ("본품", False), ("", False)],
)
def test_validity_of_normalized_refs(raw: str, valid: bool) -> None:
    assert is_valid_ref(norm_ref(raw)) is valid


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("positive", "positive"),
        ("negative", "negative"),
        ("neutral", "neutral"),
        ("mixed", "mixed"),
        ("pos", "positive"),
        ("neg", "negative"),
        ("neu", "neutral"),
        (" POS ", "positive"),
        ("Negative", "negative"),
        ("\tNeU\n", "neutral"),
        ("MIXED", "mixed"),
    ],
)
def test_norm_polarity_known_values(raw: str, expected: str) -> None:
    assert norm_polarity(raw) == (expected, False)


@pytest.mark.parametrize("raw", [None, "", "   ", "\t"])
def test_norm_polarity_defaults_to_neutral(raw: str | None) -> None:
    assert norm_polarity(raw) == ("neutral", True)


@pytest.mark.parametrize("raw", ["good", "positve", "1", "mix", "posi tive", "긍정", "p"])
def test_norm_polarity_rejects_unknown_values(raw: str) -> None:
    with pytest.raises(UnknownPolarity, match="unknown polarity"):
        norm_polarity(raw)
