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


def test_a_converted_run_carries_its_dataset_taxonomy_so_ref_f1_is_measured(tmp_path: Path) -> None:
    gold, pred, fmt = case_files(FIXTURES / "peer" / "acos" / "case_1")
    run = tmp_path / "acos_case"
    done = run_cli("convert", gold, pred, "--format", fmt, "--out", run / "scorecards.jsonl")
    assert done.returncode == 0, done.stderr
    taxonomy = json.loads((run / "taxonomy.json").read_text(encoding="utf-8"))
    assert taxonomy["name"] == "acos: the unit keys of gold.tsv and pred.tsv" and len(taxonomy["refs"]) > 100
    assert done.stdout.splitlines() == [
        f"wrote {run / 'scorecards.jsonl'} (300 rows, run id case_1_gold) and {run / 'taxonomy.json'} (its taxonomy: "
        f"{len(taxonomy['refs'])} refs, {taxonomy['name']}); next: aggregate {run}"]
    aggregated = run_cli(run, "--outdir", tmp_path / "out")
    assert aggregated.returncode == 0, aggregated.stderr
    assert "ref_unmeasurable" not in aggregated.stdout + aggregated.stderr
    lines = aggregated.stdout.splitlines()
    assert lines[0] == "case_1_gold: 300 rows, 300 with gold" and lines[1].startswith("  Ref-F1      S1 0.3991")
    metadata = json.loads((tmp_path / "out" / "run_metadata.json").read_text(encoding="utf-8"))
    assert metadata["taxonomy"]["source"] == str(run / "taxonomy.json")
    assert metadata["taxonomy"]["refs"] == len(taxonomy["refs"])
    markdown = (tmp_path / "out" / "structural_metrics_table.md").read_text(encoding="utf-8")
    assert "| Ref-F1 S2 (`tuple_f1_s2`) | 0.3991 |" in markdown  # unmarked
    given = run_cli(run, "--outdir", tmp_path / "given", "--taxonomy", tmp_path / "none.json")
    assert given.returncode == 2 and "none.json: cannot read the taxonomy" in given.stderr  # --taxonomy wins


def test_a_category_format_records_the_categories_of_its_gold(tmp_path: Path) -> None:
    gold, pred, fmt = case_files(FIXTURES / "peer" / "nikluge_sa_2022" / "case_1")
    done = run_cli("convert", gold, pred, "--format", fmt, "--out", tmp_path / "run" / "scorecards.jsonl",
                   "--run-id", "mine")
    assert done.returncode == 0, done.stderr
    taxonomy = json.loads((tmp_path / "run" / "taxonomy.json").read_text(encoding="utf-8"))
    spec, pairs = read_pairs(gold, pred, fmt)
    categories = {t["aspect_ref"] for row in scorecard_rows(spec, pairs, "x") for t in row["gold_tuples"]}
    assert taxonomy["refs"] == sorted(categories) and taxonomy["name"].startswith("nikluge: the categories of ")
    assert "run id mine" in done.stdout


def test_the_run_is_named_after_the_dataset() -> None:
    from aggregator.formats.convert import dataset_name

    assert dataset_name(Path("data/rest16_test.tsv")) == "rest16_test"
    assert dataset_name(Path("data/rest16/test.tsv")) == "rest16_test"
    assert dataset_name(Path("cases/case_1/gold.jsonl")) == "case_1_gold"


def test_convert_to_stdout_says_what_it_wrote_on_stderr() -> None:
    gold, pred, fmt = case_files(FIXTURES / "peer" / "aste" / "case_1")
    done = run_cli("convert", gold, pred, "--format", fmt)
    assert done.returncode == 0 and done.stdout.count("\n") > 10
    assert done.stderr.splitlines() == [
        f"aggregate: wrote {done.stdout.count(chr(10))} rows (run id case_1_gold) to stdout; the run's taxonomy is "
        "written only with --out (beside the scorecards, as taxonomy.json)"]
