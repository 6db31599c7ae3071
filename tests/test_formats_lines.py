"""The readers line by line: each bad line's whole message (``FILE:LINE: reason``, the reason written here
from the format's rules), the largest token indices still read, and each sentence's pairing key and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from aggregator.formats.evaluate import read_both
from aggregator.formats.model import TokenSpan
from aggregator.formats.registry import FORMATS
from scorecards.errors import BadLineError

ASTE_GOOD = "a b c####[([0], [1], 'POS')]"
ASQP_GOOD = "a b c####[['a', 'food quality', 'positive', 'b']]"
ACOS_GOOD = "a b c\t0,1 FOOD#QUALITY 2 1,2"
INDEX_BEYOND = "a token index beyond ±2,147,483,648"
TRIPLET_SHAPE = "triplet 0: expected ([aspect idx], [opinion idx], 'POS'|'NEG'|'NEU')"
BAD_LINES = [
    # ASTE: one '####', a list of ([aspect idx], [opinion idx], tag), indices in (−2**31, 2**31)
    ("aste", "a b c", "expected one '####' between the sentence and its labels, found 0"),
    ("aste", "a####b####[]", "expected one '####' between the sentence and its labels, found 2"),
    ("aste", "a b c####5", "labels are not a list of triplets"),
    ("aste", "a b c####[([0], [1])]", TRIPLET_SHAPE),
    ("aste", "a b c####[7]", TRIPLET_SHAPE),
    ("aste", "a b c####[([0], [2147483648], 'POS')]", f"triplet 0 opinion: {INDEX_BEYOND}"),
    ("aste", "a b c####[([-2147483648], [1], 'POS')]", f"triplet 0 aspect: {INDEX_BEYOND}"),
    ("aste", "a b c####[([0], [1], 'POS'), ([0], 'x', 'NEG')]",
     "triplet 1 opinion: expected a non-empty list of token indices, got \"'x'\""),
    ("aste", "a b c####[([0], [], 'POS')]", "triplet 0 opinion: expected a non-empty list of token indices, got '[]'"),
    # ASQP: a list of [aspect, category, sentiment, opinion] strings
    ("asqp", "a b c####'food'", "labels are not a list of quads"),
    ("asqp", "a b c", "expected one '####' between the sentence and its labels, found 0"),
    # ACOS: tab-separated 'a_s,a_e CATEGORY s o_s,o_e' quads
    ("acos", "a b c\t0,1 FOOD#QUALITY 2 1-2",
     "quad 0 opinion: expected start,end token offsets (at most 10 digits each) or -1,-1, got '1-2'"),
]


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("fmt", "line", "reason"), BAD_LINES)
def test_a_bad_line_is_its_file_line_and_reason(fmt: str, line: str, reason: str, tmp_path: Path) -> None:
    good = {"aste": ASTE_GOOD, "asqp": ASQP_GOOD, "acos": ACOS_GOOD}[fmt]
    path = _write(tmp_path / "pred", [good, line])
    with pytest.raises(BadLineError) as caught:
        FORMATS[fmt].read(path)
    assert str(caught.value) == f"{path}:2: {reason}"


def test_token_indices_just_inside_2_to_the_31_are_read(tmp_path: Path) -> None:
    path = _write(tmp_path / "gold", ["a b####[([2147483647], [-2147483647], 'POS')]"])
    (sentence,) = FORMATS["aste"].read(path)
    assert [(t.aspect, t.opinion) for t in sentence.tuples] == [
        (TokenSpan(2147483647, 2147483648), TokenSpan(-2147483647, -2147483646))]


@pytest.mark.parametrize(("fmt", "lines", "keys"), [
    ("aste", [ASTE_GOOD, "d e####[]"], ["1", "2"]),  # by line
    ("asqp", [ASQP_GOOD, "d e####[]"], ["1", "2"]),
    ("acos", [ACOS_GOOD, "d e"], ["a b c", "d e"]),  # by text
])
def test_each_sentence_has_its_key_and_line(fmt: str, lines: list[str], keys: list[str], tmp_path: Path) -> None:
    sentences = FORMATS[fmt].read(_write(tmp_path / "gold", lines))
    assert [(s.key, s.line) for s in sentences] == [(keys[0], 1), (keys[1], 2)]


def test_acos_lines_of_one_text_are_one_sentence_with_all_their_quads(tmp_path: Path) -> None:
    """As the official scorer keys sentences by text: line 3 repeats line 1's text, so its quad joins line 1's."""
    gold = _write(tmp_path / "gold", [ACOS_GOOD, "x y", "a b c\t-1,-1 FOOD#PRICES 0 1,2"])
    sentences, _, notes = read_both(FORMATS["acos"], gold, gold)
    assert [(s.key, s.line, len(s.tuples), len(s.raw)) for s in sentences] == [("a b c", 1, 2, 2), ("x y", 2, 0, 0)]
    assert [t.category for t in sentences[0].tuples] == ["FOOD#QUALITY", "FOOD#PRICES"]
    assert notes == ["2 lines repeat an earlier sentence's text and were merged into it, "
                     "as the official scorer keys sentences by text"]
