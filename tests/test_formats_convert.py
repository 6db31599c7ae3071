"""``aggregate convert``: any format as scorecards, on which ``aggregate RUN`` gives the numbers of
``aggregate score``."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aggregator.formats.convert import scorecard_rows
from aggregator.formats.evaluate import evaluate, read_pairs
from aggregator.formats.tally import Tally
from aggregator.run.pipeline import evaluate_run
from tests.conftest import FIXTURES, run_cli
from tests.format_strategies import corpus, lines
from tests.peer_expected import case_files

FORMATS_TESTED = ("nikluge", "aste", "asqp", "acos", "semeval14")


def _convert_and_compare(gold: Path, pred: Path, fmt: str, tmp: Path) -> None:
    spec, pairs = read_pairs(gold, pred, fmt)
    scorecards = tmp / "scorecards.jsonl"
    rows = scorecard_rows(spec, pairs, "r")
    scorecards.write_text("".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
    run = evaluate_run(scorecards, workers=1)
    scored = evaluate(gold, pred, fmt)
    index = [u.name for u in scored.sound.units].index(spec.scorecard_unit)
    expected = {pair.key: tallies[index] for pair, tallies in scored.sound.rows}
    table = run.table.select("sample_key", "has_gold", "refpol_s2_tp", "refpol_s2_fp", "refpol_s2_fn")
    got = {key: Tally(tp, fp, fn) for key, _, tp, fp, fn in table.iter_rows()}
    assert got == expected
    with_gold = [tally for key, has_gold, *_ in table.iter_rows() if has_gold for tally in [expected[key]]]
    summed = Tally(sum(t.tp for t in with_gold), sum(t.fp for t in with_gold), sum(t.fn for t in with_gold))
    micro = run.metrics["tuple_f1_s2_refpol_micro"]
    assert micro == (pytest.approx(summed.scores().f1, abs=1e-12) if sum(summed) else None)


@pytest.mark.parametrize("fmt", FORMATS_TESTED)
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_converting_then_aggregating_gives_the_sound_score(fmt: str, data: st.DataObject) -> None:
    golds, preds = data.draw(corpus(fmt))
    with tempfile.TemporaryDirectory() as tmp:
        gold, pred = Path(tmp, "gold"), Path(tmp, "pred")
        gold.write_text("\n".join(lines(fmt, list(enumerate(golds)))) + "\n")
        pred.write_text("\n".join(lines(fmt, list(enumerate(preds)))) + "\n")
        _convert_and_compare(gold, pred, fmt, Path(tmp))


@pytest.mark.parametrize("case", sorted((FIXTURES / "peer").glob("*/case_*")), ids=lambda c: c.parent.name)
def test_each_shared_case_converts_to_its_sound_score(case: Path, tmp_path: Path) -> None:
    _convert_and_compare(*case_files(case), tmp_path)


def test_convert_writes_scorecards_that_aggregate_reads(tmp_path: Path) -> None:
    gold, pred, fmt = case_files(FIXTURES / "peer" / "aste" / "case_1")
    done = run_cli("convert", gold, pred, "--format", fmt, "--out", tmp_path / "run" / "scorecards.jsonl")
    assert done.returncode == 0, done.stderr
    aggregated = run_cli(tmp_path / "run", "--json", "--quiet")
    assert aggregated.returncode == 0, aggregated.stderr
    scored = run_cli("score", gold, pred, "--format", fmt, "--json")
    micro = json.loads(aggregated.stdout)["runs"][0]["metrics"]["tuple_f1_s2_refpol_micro"]
    assert micro == json.loads(scored.stdout)["sound"]["f1"]
    stdout = run_cli("convert", gold, pred, "--format", fmt)
    assert stdout.stdout.encode() == (tmp_path / "run" / "scorecards.jsonl").read_bytes()
