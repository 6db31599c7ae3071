"""What ``aggregate convert`` writes, item by item, on hand-worked lines of every format.

The expected aspect text, spans (in ``aspect_ref``) and polarities are written here by reading the
test's own lines: token i of "The bread is top notch as well ." is the (i+1)-th word, a character
span [s, e) is ``text[s:e]`` of the literal sentence. No expectation is read from the tool.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aggregator.formats.convert import scorecard_rows
from aggregator.formats.evaluate import read_pairs
from aggregator.run.pipeline import evaluate_run

BREAD = "The bread is top notch as well ."  # tokens: 0 The, 1 bread, 2 is, 3 top, 4 notch, 5 as, 6 well, 7 .
ASTE = (f"{BREAD}####[([1], [3, 4], 'POS'), ([1, 2, 3], [5], 'NEG'), ([0, 2], [6], 'NEU'), ([4, 4], [6], 'POS'), "
        "([0, 2, 4], [3], 'NEG'), ([3, 1], [2], 'POS')]")
ASTE_ITEMS = [
    # contiguous [1] -> tokens [1, 2): "bread"; opinion [3, 4] -> [3, 5)
    ("aste#[[1,2],[3,5]]", "bread", "positive"),
    ("aste#[[1,4],[5,6]]", "bread is top", "negative"),  # contiguous run of three
    ("aste#[[0,3],[6,7]]", "The bread is", "neutral"),  # two endpoints [start, end]: tokens 0..2
    ('aste#[{"tokens":[4,4]},[6,7]]', "notch notch", "positive"),  # repeated: kept as written
    ('aste#[{"tokens":[0,2,4]},[3,4]]', "The is notch", "negative"),  # gapped: kept as written
    ('aste#[{"tokens":[3,1]},[2,3]]', "top bread", "positive"),  # reversed: kept as written
]
GROSS = "Gross food – Wow -"
ASQP = f"{GROSS}####[['food', 'food quality', 'negative', 'Gross'], ['NULL', 'restaurant general', 'neutral', 'Wow']]"
ASQP_ITEMS = [('asqp#["food quality","food","Gross"]', "food", "negative"),
              ('asqp#["restaurant general",null,"Wow"]', "", "neutral")]  # NULL aspect: implicit, no words
PORTIONS = "not the biggest portions but adequate ."  # tokens: 0 not, 1 the, 2 biggest, 3 portions, 4 but, 5 adequate
ACOS = f"{PORTIONS}\t3,4 FOOD#STYLE_OPTIONS 1 0,3\t-1,-1 FOOD#QUALITY 2 5,6\t1,4 FOOD#PRICES 0 5,6"
ACOS_ITEMS = [('acos#["FOOD#STYLE_OPTIONS",[3,4],[0,3]]', "portions", "neutral"),  # 0 negative, 1 neutral, 2 positive
              ('acos#["FOOD#QUALITY",null,[5,6]]', "", "positive"),
              ('acos#["FOOD#PRICES",[1,4],[5,6]]', "the biggest portions", "negative")]
GEAR = "기어 디자인이 예뻐요"
NIKLUGE = json.dumps({"id": "a1", "sentence_form": GEAR, "annotation": [
    ["본품#디자인", ["기어", 0, 2], "positive"], ["제품 전체#일반", [None, 0, 0], "neutral"],
    ["본품#품질", ["디자인", 3, 6], "negative"]]}, ensure_ascii=False)
NIKLUGE_ITEMS = [("본품#디자인", "기어", "positive"), ("제품 전체#일반", "", "neutral"), ("본품#품질", "디자인", "negative")]
FISH = "The fish was fresh but pricey"
SEMEVAL = ('<?xml version="1.0"?>\n<sentences><sentence id="s1"><text>' + FISH + "</text><aspectTerms>"
           '<aspectTerm term="fish" polarity="positive" from="4" to="8"/>'
           '<aspectTerm term="fresh but pricey" polarity="conflict" from="13" to="29"/></aspectTerms>'
           '<aspectCategories><aspectCategory category="food" polarity="conflict"/></aspectCategories></sentence></sentences>')
SEMEVAL_ITEMS = [("semeval14#[[4,8]]", "fish", "positive"),
                 ("semeval14#[[13,29]]", "fresh but pricey", "mixed")]  # conflict is the scorecards' mixed

CASES = {
    "aste": (ASTE, "txt", ASTE_ITEMS),
    "asqp": (ASQP, "txt", ASQP_ITEMS),
    "acos": (ACOS, "tsv", ACOS_ITEMS),
    "nikluge": (NIKLUGE, "jsonl", NIKLUGE_ITEMS),
    "semeval14": (SEMEVAL, "xml", SEMEVAL_ITEMS),
}


def test_the_hand_worked_lines_are_what_the_comments_say() -> None:
    tokens = BREAD.split()
    assert [tokens[1], " ".join(tokens[1:4]), " ".join(tokens[0:3])] == ["bread", "bread is top", "The bread is"]
    assert " ".join(PORTIONS.split()[1:4]) == "the biggest portions" and PORTIONS.split()[3] == "portions"
    assert (GEAR[0:2], GEAR[3:6]) == ("기어", "디자인")
    assert (FISH[4:8], FISH[13:29]) == ("fish", "fresh but pricey")


def convert(tmp_path: Path, fmt: str, gold: str, pred: str, ext: str) -> list[dict[str, object]]:
    gold_file, pred_file = tmp_path / f"gold.{ext}", tmp_path / f"pred.{ext}"
    gold_file.write_text(gold + "\n", encoding="utf-8")
    pred_file.write_text(pred + "\n", encoding="utf-8")
    spec, pairs = read_pairs(gold_file, pred_file, fmt)
    return list(scorecard_rows(spec, pairs, "r"))


@pytest.mark.parametrize("fmt", sorted(CASES))
def test_converted_items_carry_their_text_span_and_polarity(fmt: str, tmp_path: Path) -> None:
    line, ext, items = CASES[fmt]
    (row,) = convert(tmp_path, fmt, line, line, ext)
    want = [{"aspect_ref": ref, "aspect_term": term, "polarity": polarity} for ref, term, polarity in items]
    assert row["gold_tuples"] == want
    assert row["runtime"] == {"parsed_output": {"final_result": {"final_tuples": want}}}


NEAR_MISSES = [
    # gold ([1], [3, 4], POS) "bread"; predictions one token off, or another polarity, never match
    ("([1, 2], [3, 4], 'POS')", "aste#[[1,3],[3,5]]", "bread is", "positive"),
    ("([0, 1], [3, 4], 'POS')", "aste#[[0,2],[3,5]]", "The bread", "positive"),
    ("([2], [3, 4], 'POS')", "aste#[[2,3],[3,5]]", "is", "positive"),
    ("([1], [3], 'POS')", "aste#[[1,2],[3,4]]", "bread", "positive"),
    ("([1], [3, 4], 'NEG')", "aste#[[1,2],[3,5]]", "bread", "negative"),
]


@pytest.mark.parametrize(("written", "ref", "term", "polarity"), NEAR_MISSES)
def test_a_near_miss_span_is_its_own_item_and_counts_as_wrong(written: str, ref: str, term: str, polarity: str,
                                                               tmp_path: Path) -> None:
    (row,) = convert(tmp_path, "aste", f"{BREAD}####[([1], [3, 4], 'POS')]", f"{BREAD}####[{written}]", "txt")
    assert row["gold_tuples"] == [{"aspect_ref": "aste#[[1,2],[3,5]]", "aspect_term": "bread", "polarity": "positive"}]
    final = row["runtime"]["parsed_output"]["final_result"]["final_tuples"]  # type: ignore[index]
    assert final == [{"aspect_ref": ref, "aspect_term": term, "polarity": polarity}]
    scorecards = tmp_path / "run" / "scorecards.jsonl"
    scorecards.parent.mkdir()
    scorecards.write_text(json.dumps(row, ensure_ascii=False) + "\n", encoding="utf-8")
    table = evaluate_run(scorecards, workers=1).table
    assert table.select("refpol_s2_tp", "refpol_s2_fp", "refpol_s2_fn").row(0) == (0, 1, 1)
    assert table.get_column("refpol_s2_f1").to_list() == [0.0]
