"""Sound scoring of every format: order and repeats change nothing, F1 ≤ 1, gold against itself is 1,
every official scorer without its quirks is the sound scorer, a quirk that concerns nothing changes
nothing, and the compat report adds up."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aggregator.formats.compat import ladder
from aggregator.formats.evaluate import Evaluation, evaluate
from aggregator.formats.registry import FORMATS
from tests.format_strategies import corpus, lines, reshuffled

FORMATS_TESTED = ("nikluge", "aste", "asqp", "acos", "semeval14")
SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def score(fmt: str, gold: list[str], pred: list[str], compat: str = "official") -> Evaluation:
    with tempfile.TemporaryDirectory() as tmp:
        gold_path, pred_path = Path(tmp, "gold"), Path(tmp, "pred")
        gold_path.write_text("\n".join(gold) + "\n")
        pred_path.write_text("\n".join(pred) + "\n")
        return evaluate(gold_path, pred_path, fmt, compat)


def files(fmt: str, golds: list[Any], preds: list[Any]) -> tuple[list[str], list[str]]:
    return lines(fmt, list(enumerate(golds))), lines(fmt, list(enumerate(preds)))


@pytest.mark.parametrize("fmt", FORMATS_TESTED)
@SETTINGS
@given(data=st.data())
def test_order_and_repeats_change_no_sound_number(fmt: str, data: st.DataObject) -> None:
    golds, preds = data.draw(corpus(fmt))
    first = score(fmt, *files(fmt, golds, preds))
    again = score(fmt, *data.draw(reshuffled(fmt, golds, preds)))
    assert again.sound.totals == first.sound.totals


@pytest.mark.parametrize("fmt", FORMATS_TESTED)
@SETTINGS
@given(data=st.data())
def test_sound_scores_are_between_0_and_1(fmt: str, data: st.DataObject) -> None:
    evaluation = score(fmt, *files(fmt, *data.draw(corpus(fmt))))
    for tally in evaluation.sound.totals.values():
        assert tally.tp >= 0 and tally.fp >= 0 and tally.fn >= 0
        assert all(0 <= value <= 1 for value in tally.scores())


@pytest.mark.parametrize("fmt", FORMATS_TESTED)
@SETTINGS
@given(data=st.data())
def test_gold_against_itself_scores_1(fmt: str, data: st.DataObject) -> None:
    golds, _ = data.draw(corpus(fmt))
    gold_lines = lines(fmt, list(enumerate(golds)))
    evaluation = score(fmt, gold_lines, gold_lines)
    for tally in evaluation.sound.totals.values():
        assert tally.fp == tally.fn == 0
        assert tally.scores() == ((1.0, 1.0, 1.0) if tally.tp else (0.0, 0.0, 0.0))


@pytest.mark.parametrize(("fmt", "compat"), [(f, s.name) for f in FORMATS_TESTED for s in FORMATS[f].scorers])
@SETTINGS
@given(data=st.data())
def test_a_scorer_without_its_quirks_is_sound_and_the_report_adds_up(
    fmt: str, compat: str, data: st.DataObject
) -> None:
    golds, preds = data.draw(corpus(fmt))
    evaluation = score(fmt, *files(fmt, golds, preds), compat=compat)
    scorer, gold, pred = evaluation.scorer, evaluation.gold, evaluation.pred
    assert scorer is not None and evaluation.official is not None
    plain, sound = scorer.run(gold, pred, frozenset()), evaluation.sound.totals
    shared = plain.keys() & sound.keys()
    assert {(unit, "all") for unit in evaluation.spec.main.values()} <= shared
    assert {k: plain[k] for k in shared} == {k: sound[k] for k in shared}
    every_step = ladder(scorer, gold, pred, evaluation.spec.main, evaluation.sound.totals, skip_unused=False)
    assert every_step[0] == evaluation.official
    for quick, full in zip(evaluation.steps, every_step[1]):
        assert quick.count == full.count and (quick.count > 0 or not full.changed), quick.quirk.name
    for key, unit in evaluation.spec.main.items():
        official, sound = evaluation.official[(unit, "all")].scores(), evaluation.sound.totals[(unit, "all")].scores()
        for i in range(3):
            total = sum(step.effect[key][i] for step in evaluation.steps)
            assert official[i] - sound[i] == pytest.approx(total, abs=1e-12)
