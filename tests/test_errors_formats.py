"""``aggregate score --errors``: the anatomy of every shared peer case adds up to the sound tp/fp/fn,
generated files of every format too (and order and repeats change no class), and each format's
classes by hand: ASTE's opinion-term boundary, ASQP/ACOS category, NULL as implicit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aggregator.formats.errors import ASPECT_BOUNDARY, OPINION_BOUNDARY, Ladder, anatomy, classes_of, sentence_classes
from aggregator.formats.model import IMPLICIT, AbsaTuple, CharSpan, TokenSpan, Words
from aggregator.formats.units import unit
from aggregator.units.error_classes import CATEGORY, EXACT, MISSED, POLARITY, SPURIOUS
from aggregator.units.error_classes import IMPLICIT as IMPLICIT_CLASS
from tests.conftest import FIXTURES, run_cli
from tests.format_strategies import corpus, reshuffled
from tests.peer_expected import case_files
from tests.test_formats_properties import FORMATS_TESTED, SETTINGS, files, score

CASES = sorted(p for p in (FIXTURES / "peer").glob("*/case_*") if p.is_dir())


def _adds_up(block: dict[str, Any], tally: tuple[float, float, float]) -> None:
    tp, fp, fn = tally
    classes = block["classes"]
    assert classes[EXACT] == tp
    assert sum(n for c, n in classes.items() if c != SPURIOUS) == block["gold"] == tp + fn
    assert sum(n for c, n in classes.items() if c != MISSED) == block["pred"] == tp + fp


@pytest.mark.parametrize("case", CASES, ids=lambda p: p.parent.name)
def test_every_shared_case_adds_up_to_the_sound_counts(case: Path) -> None:
    gold, pred, fmt = case_files(case)
    done = run_cli("score", gold, pred, "--format", fmt, "--errors", "--json")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    rows = {r["unit"]: r for r in payload["units"]["sound"] if r["breakdown"] == "all"}
    assert payload["errors"]
    for block in payload["errors"].values():
        row = rows[block["unit"]]
        _adds_up(block, (row["tp"], row["fp"], row["fn"]))
        assert block["sound"] == {"tp": row["tp"], "fp": row["fp"], "fn": row["fn"]}
    text = run_cli("score", gold, pred, "--format", fmt, "--errors").stdout
    assert "error anatomy" in text and "missed" in text


def test_the_aste_case_has_opinion_term_boundaries() -> None:
    gold, pred, fmt = case_files(FIXTURES / "peer" / "aste" / "case_1")
    found = json.loads(run_cli("score", gold, pred, "--format", fmt, "--errors", "--json").stdout)["errors"]["triplet"]
    assert found["classes"][OPINION_BOUNDARY] > 0 and CATEGORY not in found["classes"]


@pytest.mark.parametrize("fmt", FORMATS_TESTED)
@SETTINGS
@given(data=st.data())
def test_generated_files_add_up_and_order_and_repeats_change_no_class(fmt: str, data: st.DataObject) -> None:
    golds, preds = data.draw(corpus(fmt))
    first = score(fmt, *files(fmt, golds, preds))
    found = anatomy(first)
    for block in found.values():
        _adds_up(block, first.sound.totals[(block["unit"], "all")])
    assert anatomy(score(fmt, *data.draw(reshuffled(fmt, golds, preds)))) == found
    itself = anatomy(score(fmt, *files(fmt, golds, golds)))
    assert all(n == 0 for b in itself.values() for c, n in b["classes"].items() if c != EXACT)


TRIPLET = unit("sentiment", "aspect", "opinion", complete=True)
QUAD = unit("category", "sentiment", "aspect", "opinion", complete=True)
PIPELINE = unit("category", "sentiment", complete=True)


def t(aspect: object = None, category: str | None = None, opinion: object = None, polarity: str = "positive") -> AbsaTuple:
    return AbsaTuple(aspect, category, opinion, polarity)  # type: ignore[arg-type]


def classes(u: Any, gold: list[AbsaTuple], pred: list[AbsaTuple]) -> tuple[list[str], list[str]]:
    return sentence_classes(Ladder(u, classes_of(u)), gold, pred)


def test_each_unit_has_the_classes_its_fields_allow() -> None:
    assert classes_of(TRIPLET) == (POLARITY, ASPECT_BOUNDARY, OPINION_BOUNDARY, IMPLICIT_CLASS)
    assert classes_of(QUAD) == (POLARITY, CATEGORY, ASPECT_BOUNDARY, OPINION_BOUNDARY, IMPLICIT_CLASS)
    assert classes_of(PIPELINE) == (POLARITY,) and classes_of(unit("category", complete=True)) == ()


@pytest.mark.parametrize(("u", "gold", "pred", "expected"), [
    (TRIPLET, [t(TokenSpan(1, 3), None, TokenSpan(4, 5))], [t(TokenSpan(1, 3), None, TokenSpan(4, 5), "negative")],
     POLARITY),
    (TRIPLET, [t(TokenSpan(1, 3), None, TokenSpan(4, 6))], [t(TokenSpan(1, 3), None, TokenSpan(5, 6))], OPINION_BOUNDARY),
    (TRIPLET, [t(TokenSpan(1, 3), None, TokenSpan(4, 6))], [t(TokenSpan(2, 3), None, TokenSpan(4, 6))], ASPECT_BOUNDARY),
    (QUAD, [t(Words("pasta"), "food quality", Words("great"))], [t(Words("pasta"), "food prices", Words("great"))],
     CATEGORY),
    (QUAD, [t(IMPLICIT, "food quality", Words("great"))], [t(Words("food"), "food quality", Words("great"))],
     IMPLICIT_CLASS),
    (QUAD, [t(Words("the pasta"), "food quality", Words("great"))],
     [t(Words("pasta"), "food prices", Words("great"), "neutral")], ASPECT_BOUNDARY),
    (PIPELINE, [t(CharSpan(0, 2), "본품#품질")], [t(None, "본품#품질", None, "negative")], POLARITY),
])
def test_one_example_of_each_format_class(u: Any, gold: list[AbsaTuple], pred: list[AbsaTuple], expected: str) -> None:
    assert classes(u, gold, pred) == ([expected], [expected])


def test_elements_that_share_less_than_half_are_missed_and_spurious() -> None:
    gold, pred = [t(TokenSpan(0, 5), None, TokenSpan(6, 7))], [t(TokenSpan(3, 9), None, TokenSpan(6, 7))]
    assert classes(TRIPLET, gold, pred) == ([MISSED], [SPURIOUS])  # 2 shared tokens of the shorter 5
    assert classes(TRIPLET, gold, [t(TokenSpan(2, 6), None, TokenSpan(6, 7))]) == ([ASPECT_BOUNDARY], [ASPECT_BOUNDARY])


def test_an_aspect_boundary_comes_before_an_opinion_boundary() -> None:
    gold = [t(TokenSpan(1, 3), None, TokenSpan(4, 6)), t(TokenSpan(1, 2), None, TokenSpan(4, 5))]
    pred = [t(TokenSpan(1, 2), None, TokenSpan(4, 6))]  # aspect boundary of the first, opinion boundary of the second
    assert classes(TRIPLET, gold, pred) == ([MISSED, ASPECT_BOUNDARY], [ASPECT_BOUNDARY])
