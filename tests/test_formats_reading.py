"""Strict reading of every format (a bad line is ``file:line: reason``, exit 2) and official scorers that crash."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from aggregator.formats.evaluate import evaluate
from aggregator.formats.payload import payload
from scorecards.errors import BadLineError, InputError
from tests.conftest import run_cli

GOOD = {
    "aste": "a b c####[([0], [1], 'POS')]",
    "asqp": "a b c####[['a', 'food quality', 'positive', 'b']]",
    "acos": "a b c\t0,1 FOOD#QUALITY 2 1,2",
    "nikluge": json.dumps({"id": "x1", "sentence_form": "a",
                           "annotation": [["본품#품질", [None, 0, 0], "positive"]]}),
}
BAD = [
    ("aste", "a b c[([0], [1], 'POS')]", "expected one '####'"),
    ("aste", "a b c####[([0], [1], 'POSITIVE')]", "unknown sentiment 'POSITIVE'"),
    ("aste", "a b c####[([], [1], 'POS')]", "triplet 0 aspect: expected a non-empty list"),
    ("aste", "a b c####[([0], [1], 'POS')", "not a Python literal"),
    ("asqp", "a b c####[['a', 'food quality', 'good', 'b']]", "unknown sentiment 'good'"),
    ("asqp", "a b c####[['a', 'food quality', 'positive']]", "quad 0: expected [aspect, category, sentiment, opinion]"),
    ("acos", "a b c\t0-1 FOOD#QUALITY 2 1,2", "quad 0 aspect: expected start,end"),
    ("acos", "a b c\t0,1 FOOD#QUALITY 3 1,2", "unknown sentiment '3'"),
    ("acos", "a b c\t0,1 FOOD#QUALITY 2", "quad 0: expected 'a_s,a_e CATEGORY s o_s,o_e'"),
    ("nikluge", '{"id": "x2", "annotation": [["본품#품질"]]}', "annotation[0]: expected [category, polarity]"),
    ("nikluge", '{"id": "x2", "annotation": [["본품#품질", "good"]]}', "unknown sentiment 'good'"),
    ("nikluge", '{"id": "x2", "annotation": ', "not valid JSON"),
    ("nikluge", '{"id": ["x"], "annotation": []}', "`id` is not a string"),
    ("nikluge", GOOD["nikluge"], "sentence 'x1' repeats line 1"),
]


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(("fmt", "line", "reason"), BAD)
def test_a_bad_second_line_names_file_line_and_reason(fmt: str, line: str, reason: str, tmp_path: Path) -> None:
    gold = _write(tmp_path / "gold", [GOOD[fmt], GOOD[fmt].replace("x1", "x3")])
    pred = _write(tmp_path / "pred", [GOOD[fmt], line])
    with pytest.raises(BadLineError) as caught:
        evaluate(gold, pred, fmt)
    assert str(caught.value).startswith(f"{pred}:2: ")
    assert reason in str(caught.value)


@pytest.mark.parametrize(("content", "reason"), [
    (b"a b####[]\n\na b####[]\n", ":2: blank line"),
    (b"a b####[]\na \xff####[]\n", ":2: invalid UTF-8"),
])
def test_blank_lines_and_bad_bytes_are_bad_lines(content: bytes, reason: str, tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(content)
    with pytest.raises(BadLineError, match=reason):
        evaluate(tmp_path / "f", tmp_path / "f", "aste")


def test_the_command_exits_2_with_one_line(tmp_path: Path) -> None:
    gold = _write(tmp_path / "gold.txt", [GOOD["aste"]])
    pred = _write(tmp_path / "pred.txt", ["a b c####[([0], [1], 'pos')]"])
    for args in ([gold, pred, "--format", "aste"], [gold, tmp_path / "missing.txt", "--format", "aste"],
                 [gold, gold, "--format", "aste", "--compat", "nope"]):
        done = run_cli("score", *args)
        assert done.returncode == 2
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("aggregate: error: "), done.stderr
        assert "Traceback" not in done.stderr
    assert f"{pred}:1: unknown sentiment 'pos'" in run_cli("score", gold, pred, "--format", "aste").stderr


def test_semeval_xml_errors_name_their_line(tmp_path: Path) -> None:
    path = tmp_path / "g.xml"
    path.write_text('<sentences>\n<sentence id="1"><text>a</text>\n<aspectTerms><aspectTerm term="a" from="x" to="1"/>'
                    "</aspectTerms></sentence>\n</sentences>\n")
    with pytest.raises(BadLineError, match=r"g.xml:3: <aspectTerm>: `from` and `to`"):
        evaluate(path, path, "semeval14")
    path.write_text("<sentences>\n<sentence id='1'>\n</sentences>\n")
    with pytest.raises(BadLineError, match=r"g.xml:3: not well-formed XML"):
        evaluate(path, path, "semeval14")


def test_an_empty_file_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "empty").write_text("")
    with pytest.raises(InputError, match="empty file"):
        evaluate(tmp_path / "empty", tmp_path / "empty", "asqp")


CRASHES = [
    ("nikluge", [GOOD["nikluge"]], [json.dumps({"id": "x1", "annotation": [["브랜드#인지도", "positive"]]})],
     "ZeroDivisionError", (0.0, 0.0, 0.0)),
    ("acos", [GOOD["acos"]], [GOOD["acos"], "other text\t0,1 FOOD#QUALITY 2 1,2"], "KeyError", (0.5, 1.0, 2 / 3)),
    ("aste", [GOOD["aste"]], [GOOD["aste"], GOOD["aste"]], "AssertionError", (0.5, 1.0, 2 / 3)),
    ("asqp", [GOOD["asqp"]], [GOOD["asqp"].replace("positive", "Positive")], "KeyError: 'Positive'", (1.0, 1.0, 1.0)),
]


@pytest.mark.parametrize(("fmt", "gold", "pred", "error", "sound"), CRASHES, ids=[c[0] for c in CRASHES])
def test_a_crashing_official_scorer_is_named_and_the_sound_number_given(
    fmt: str, gold: list[str], pred: list[str], error: str, sound: tuple[float, float, float], tmp_path: Path
) -> None:
    body = payload(evaluate(_write(tmp_path / "g", gold), _write(tmp_path / "p", pred), fmt))
    assert body["official"] is None and error in body["official_crash"]
    main = body["sound"] if "f1" in body["sound"] else body["sound"]["pipeline"]
    assert (main["precision"], main["recall"], main["f1"]) == pytest.approx(sound)


def test_nikluge_files_without_ids_pair_by_line(tmp_path: Path) -> None:
    gold = _write(tmp_path / "g", [GOOD["nikluge"], GOOD["nikluge"].replace("x1", "x2")])
    pred = _write(tmp_path / "p", ['{"annotation": [["본품#품질", "positive"]]}', '{"annotation": []}'])
    body = payload(evaluate(gold, pred, "nikluge"))
    assert body["sound"]["pipeline"] == pytest.approx({"precision": 1.0, "recall": 0.5, "f1": 2 / 3})
    assert body["official"]["pipeline"] == body["sound"]["pipeline"]
    assert body["notes"][0] == "sentences pair by line: a line has no id"


def test_gas_fixed_crashes_when_the_first_prediction_is_empty(tmp_path: Path) -> None:
    gold = _write(tmp_path / "g", [GOOD["aste"], GOOD["aste"]])
    pred = _write(tmp_path / "p", ["a b c####[]", GOOD["aste"]])
    fixed = payload(evaluate(gold, pred, "aste", "aste-gas-fixed"))
    assert fixed["official"] is None and fixed["official_crash"].startswith("UnboundLocalError")
    raw = payload(evaluate(gold, pred, "aste", "aste-gas"))
    assert raw["official"] == pytest.approx({"precision": 0.5, "recall": 0.5, "f1": 0.5})
    assert raw["sound"] == pytest.approx({"precision": 1.0, "recall": 0.5, "f1": 2 / 3})
    assert [step["quirk"] for step in raw["compat_report"]] == ["empty_junk"]
