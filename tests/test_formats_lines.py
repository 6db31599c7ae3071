"""The readers line by line: each bad line's whole message (``FILE:LINE: reason``, the reason written here
from the format's rules), the largest token indices still read, and each sentence's pairing key and line."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from aggregator.formats import semeval
from aggregator.formats.evaluate import evaluate, read_both
from aggregator.formats.lines import read_lines
from aggregator.formats.model import IMPLICIT, AbsaTuple, CharSpan, TokenSpan
from aggregator.formats.official import nikluge as official_nikluge
from aggregator.formats.registry import FORMATS
from aggregator.formats.tally import Tally
from scorecards.errors import BadLineError

if TYPE_CHECKING:
    from aggregator.formats.semeval import Edition

ASTE_GOOD = "a b c####[([0], [1], 'POS')]"
ASQP_GOOD = "a b c####[['a', 'food quality', 'positive', 'b']]"
ACOS_GOOD = "a b c\t0,1 FOOD#QUALITY 2 1,2"
NIKLUGE_GOOD = '{"id": "x1", "sentence_form": "기어 좋아요", "annotation": [["본품#품질", ["기어", 0, 2], "positive"]]}'
GOOD = {"aste": ASTE_GOOD, "asqp": ASQP_GOOD, "acos": ACOS_GOOD, "nikluge": NIKLUGE_GOOD}
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
    ("aste", "a b c####[([0], [1], 'pos')]", "unknown sentiment 'pos' (expected one of 'POS', 'NEG', 'NEU')"),
    # ASQP: a list of [aspect, category, sentiment, opinion] strings
    ("asqp", "a b c####'food'", "labels are not a list of quads"),
    ("asqp", "a b c", "expected one '####' between the sentence and its labels, found 0"),
    # ACOS: tab-separated 'a_s,a_e CATEGORY s o_s,o_e' quads
    ("acos", "a b c\t0,1 FOOD#QUALITY 2 1-2",
     "quad 0 opinion: expected start,end token offsets (at most 10 digits each) or -1,-1, got '1-2'"),
    # NIKLuge: a JSON object per line, ``annotation`` a list of [category, polarity] or [category, [term, s, e], polarity]
    ("nikluge", "[1, 2]", "not a JSON object"),
    ("nikluge", '{"id": "x2", "annotation": {}}', "`annotation` is not a list"),
    ("nikluge", '{"id": ["x"], "annotation": []}', "`id` is not a string: \"['x']\""),
    ("nikluge", '{"id": "x2", "annotation": [5]}',
     "annotation[0]: expected [category, polarity] or [category, [term, start, end], polarity], got '5'"),
    ("nikluge", '{"id": "x2", "annotation": [["본품#품질", 5]]}', "annotation[0]: polarity is not a string: '5'"),
    ("nikluge", '{"id": "x2", "annotation": [["본품#품질", "positive"], ["본품#품질", ["기어", 0], "positive"]]}',
     "annotation[1][1]: expected [term | null, start, end], got \"['기어', 0]\""),
    ("nikluge", '{"id": "x2", "annotation": [["본품#품질", ["기어", "0", 2], "positive"]]}',
     "annotation[0][1]: expected [term | null, start, end], got \"['기어', '0', 2]\""),
    ("nikluge", '{"id": "x2", "annotation": [["본품#품질", ["기어", 0, "2"], "positive"]]}',
     "annotation[0][1]: expected [term | null, start, end], got \"['기어', 0, '2']\""),
]


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("fmt", "line", "reason"), BAD_LINES)
def test_a_bad_line_is_its_file_line_and_reason(fmt: str, line: str, reason: str, tmp_path: Path) -> None:
    path = _write(tmp_path / "pred", [GOOD[fmt], line])
    with pytest.raises(BadLineError) as caught:
        FORMATS[fmt].read(path)
    assert str(caught.value) == f"{path}:2: {reason}"


@pytest.mark.parametrize(("data", "lines"), [
    (b"\xef\xbb\xbfa####[]\n", [(1, "a####[]")]),  # a byte-order mark is dropped
    (b"a####[]\r\nb c####[]\r\n", [(1, "a####[]"), (2, "b c####[]")]),  # CRLF
    (b"a####[]\nb####[]", [(1, "a####[]"), (2, "b####[]")]),  # no newline at the end
])
def test_lines_are_numbered_without_their_ends(data: bytes, lines: list[tuple[int, str]], tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(data)
    assert read_lines(tmp_path / "f") == lines


@pytest.mark.parametrize(("data", "message"), [
    (b"\na\nb\xff", "{}:3: invalid UTF-8 (byte 0xff)"),  # the line of the bad byte: the newlines before it, + 1
    (b"a####[]\n \t\n", "{}:2: blank line (sentences are paired by line; remove it)"),
])
def test_bad_bytes_and_blank_lines_name_their_line(data: bytes, message: str, tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(data)
    with pytest.raises(BadLineError) as caught:
        read_lines(tmp_path / "f")
    assert str(caught.value) == message.format(tmp_path / "f")


def test_token_indices_just_inside_2_to_the_31_are_read(tmp_path: Path) -> None:
    path = _write(tmp_path / "gold", ["a b####[([2147483647], [-2147483647], 'POS')]"])
    (sentence,) = FORMATS["aste"].read(path)
    assert [(t.aspect, t.opinion) for t in sentence.tuples] == [
        (TokenSpan(2147483647, 2147483648), TokenSpan(-2147483647, -2147483646))]


@pytest.mark.parametrize(("fmt", "lines", "keys"), [
    ("aste", [ASTE_GOOD, "d e####[]"], ["1", "2"]),  # by line
    ("asqp", [ASQP_GOOD, "d e####[]"], ["1", "2"]),
    ("acos", [ACOS_GOOD, "d e"], ["a b c", "d e"]),  # by text
    ("nikluge", [NIKLUGE_GOOD, '{"id": 7, "annotation": []}'], ["x1", "7"]),  # by id, a number as its digits
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


def test_nikluge_texts_and_aspects(tmp_path: Path) -> None:
    """``sentence_form`` is the text ("" when missing or not a string); [term, start, end] is the term's character
    offsets, or an implicit aspect when the term is null; a [category, polarity] prediction has no aspect."""
    path = _write(tmp_path / "gold", [
        '{"id": "a", "sentence_form": "기어 좋아요", "annotation": [["본품#품질", ["기어", 0, 2], "positive"], '
        '["제품 전체#일반", [null, 0, 0], "neutral"], ["본품#디자인", "negative"]]}',
        '{"id": "b", "annotation": []}', '{"id": "c", "sentence_form": 5, "annotation": []}'])
    first, *others = FORMATS["nikluge"].read(path)
    assert [t.aspect for t in first.tuples] == [CharSpan(0, 2), IMPLICIT, None]
    assert [first.text, *(s.text for s in others)] == ["기어 좋아요", "", ""]


def test_nikluge_predictions_in_the_gold_form_differ_by_their_term_where_repeats_are_dropped(tmp_path: Path) -> None:
    """With ``polarity_at_index_1`` the polarity of a 3-element prediction is its [term, start, end]: two of one
    category with other terms are two annotations, so without ``pred_repeats`` both are false positives
    (the category unit keeps one: a category repeats)."""
    gold = _write(tmp_path / "gold", [NIKLUGE_GOOD])
    pred = _write(tmp_path / "pred", ['{"id": "x1", "annotation": [["본품#품질", ["기어", 0, 2], "positive"], '
                                      '["본품#품질", ["좋아요", 3, 6], "positive"]]}'])
    tallies = official_nikluge.OFFICIAL.run(FORMATS["nikluge"].read(gold), FORMATS["nikluge"].read(pred),
                                            frozenset({"polarity_at_index_1"}))
    assert tallies[("category sentiment", "all")] == Tally(0, 2, 1)
    assert tallies[("category", "all")] == Tally(1, 0, 0)


def _xml(*sentences: str) -> str:
    """A SemEval file: the declaration on line 1, ``<sentences>`` on line 2, each sentence on a line of its own."""
    return '<?xml version="1.0"?>\n<sentences>\n' + "".join(s + "\n" for s in sentences) + "</sentences>\n"


FISH = '<sentence id="s1"><text>The fish</text>{}</sentence>'
BAD_XML = [  # (file text, edition, line, reason)
    (_xml(FISH.format('<aspectTerms><aspectTerm term="fish" from="x" to="8"/></aspectTerms>')), "2014", 3,
     "<aspectTerm>: `from` and `to` must be character offsets (decimal digits, at most 9), got 'x', '8'"),
    (_xml(FISH.format('<aspectTerms><aspectTerm term="fish" from="4"/></aspectTerms>')), "2014", 3,
     "<aspectTerm>: `from` and `to` must be character offsets (decimal digits, at most 9), got '4', 'None'"),
    (_xml(FISH.format('<Opinions><Opinion target="fish" category="FOOD#QUALITY" to="8"/></Opinions>')), "2016", 3,
     "<Opinion>: `from` and `to` must be character offsets (decimal digits, at most 9), got 'None', '8'"),
    (_xml(FISH.format('<aspectCategories><aspectCategory category="food" polarity="good"/></aspectCategories>')),
     "2014", 3, "unknown polarity 'good' (expected positive, negative, neutral or conflict)"),
    (_xml(FISH.format('<aspectCategories><aspectCategory polarity="positive"/></aspectCategories>')), "2014", 3,
     "<aspectCategory> has no `category`"),
    (_xml(FISH.format('<Opinions><Opinion target="NULL" polarity="positive"/></Opinions>')), "2016", 3,
     "<Opinion> has no `category`"),
    (_xml('<sentence id="s1"><text>a</text>', '<sentence id="s2"><text>b</text></sentence></sentence>'), "2014", 4,
     "<sentence> inside the <sentence> of line 3 (close that one first)"),
    (_xml(FISH.format(""), '<sentence><text>b</text></sentence>'), "2014", 4, "<sentence> has no `id`"),
    (_xml(FISH.format("")).removesuffix("</sentences>\n"), "2014", 4, "not well-formed XML: no element found"),
    (_xml(), "2014", 1, "no <sentence> element"),
    (_xml().replace('"1.0"', '"1.0" encoding="x-nope"'), "2014", 1,
     "the XML declares an encoding that cannot be read (unknown encoding: x-nope); save the file as UTF-8"),
]


@pytest.mark.parametrize(("text", "edition", "line", "reason"), BAD_XML)
def test_a_bad_semeval_element_is_its_file_line_and_reason(text: str, edition: Edition, line: int, reason: str,
                                                           tmp_path: Path) -> None:
    path = tmp_path / "gold.xml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(BadLineError) as caught:
        semeval.read(path, edition)
    assert str(caught.value) == f"{path}:{line}: {reason}"


SEMEVAL_BOTH = _xml(
    '<sentence id="s1">\n  <text>fish &amp; chips</text>\n'
    '  <aspectTerms><aspectTerm term="fish" polarity="positive" from="0" to="4"/></aspectTerms>\n'
    '  <aspectCategories><aspectCategory category="food" polarity="negative"/></aspectCategories>\n'
    '  <Opinions><Opinion target="chips" category="FOOD#QUALITY" polarity="neutral" from="12" to="17"/>'
    '<Opinion target="NULL" category="FOOD#PRICES" polarity="negative" from="0" to="0"/>'
    '<Opinion category="SERVICE#GENERAL" polarity="positive"/>'
    '<Opinion target="null" category="FOOD#STYLE" from="1" to="2"/></Opinions>\n</sentence>',
    '<sentence id="s2"><text>b</text></sentence>')


def test_semeval_editions_read_their_own_elements_and_the_text_only(tmp_path: Path) -> None:
    """2014 reads aspectTerm (offsets) and aspectCategory (name), and is the default edition; 2016 reads Opinion
    (target offsets; target NULL or none: implicit; "null" is a target like any other). The text is what
    ``<text>`` holds (an entity included), nothing of the whitespace around the elements."""
    path = tmp_path / "gold.xml"
    path.write_text(SEMEVAL_BOTH, encoding="utf-8")
    for sentences in (semeval.read(path), semeval.read(path, "2014")):
        assert [(s.key, s.line, s.text) for s in sentences] == [("s1", 3, "fish & chips"), ("s2", 9, "b")]
        assert sentences[0].tuples == (AbsaTuple(CharSpan(0, 4), None, None, "positive"),
                                       AbsaTuple(None, "food", None, "negative"))
    first = semeval.read(path, "2016")[0]
    assert first.tuples == (AbsaTuple(CharSpan(12, 17), "FOOD#QUALITY", None, "neutral"),
                            AbsaTuple(IMPLICIT, "FOOD#PRICES", None, "negative"),
                            AbsaTuple(IMPLICIT, "SERVICE#GENERAL", None, "positive"),
                            AbsaTuple(CharSpan(1, 2), "FOOD#STYLE", None, None))
    assert first.text == "fish & chips"


def test_semeval14_official_terms_compare_offsets_as_written(tmp_path: Path) -> None:
    """The 2014 scorer compares (from, to) as written: predictions from="04" and to="08" for gold 4 and 8 miss
    (the sound scorer reads the numbers and hits); categories match lower-cased."""
    gold, pred = tmp_path / "gold.xml", tmp_path / "pred.xml"

    def sentences(start: str, end: str, category: str) -> str:
        annotations = (f'<aspectTerms><aspectTerm term="fish" from="{{}}" to="{{}}"/></aspectTerms>'
                       f'<aspectCategories><aspectCategory category="{category}"/></aspectCategories>')
        return _xml(FISH.format(annotations.format(start, "8")), FISH.replace("s1", "s2").format(annotations.format("4", end)))

    gold.write_text(sentences("4", "8", "food"), encoding="utf-8")
    pred.write_text(sentences("04", "08", "Food"), encoding="utf-8")
    found = evaluate(gold, pred, "semeval14")
    assert found.official is not None
    assert found.official[("aspect", "all")] == Tally(0, 2, 2)
    assert found.official[("category", "all")] == Tally(2, 0, 0)
    assert found.sound.totals[("aspect", "all")] == Tally(2, 0, 0)
