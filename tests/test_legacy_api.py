"""The four functions research code imports from the research script (LEGACY.md section 12), on the
shapes the scorecard writer passes: ``{"runtime": {"parsed_output": <pipeline output>}}`` and whole rows."""

from __future__ import annotations

import copy
import json

import pytest

from aggregator.legacy import (
    _extract_final_tuples,
    _extract_stage1_tuples,
    has_stage1_structural_risk,
    has_stage2_structural_risk,
)
from aggregator.legacy.run import FAMILIES
from aggregator.run.pipeline import evaluate_run
from tests.conftest import RUNS
from tests.scorecard_rows import item

REAL = RUNS / "cr_n50_m1_v2__seed42" / "scorecards.jsonl"
BETA = RUNS.parent / "conformance" / "beta_n50_c2__seed123" / "scorecards.jsonl"


def pipeline_output(**final_result: object) -> dict[str, object]:
    return {"runtime": {"parsed_output": {"final_result": final_result}}}


def as_tuples(text: str) -> set[tuple[str, str, str]]:
    return {tuple(t) for t in json.loads(text)}


def test_the_writer_shape_reads_stage1_and_final_tuples() -> None:
    record = pipeline_output(
        stage1_tuples=[item("본품#품질", "맛", "pos"), {}, item("", "", "negative")],
        final_tuples=[item("본품 # 품질", "( 맛 )", "positive"), {"term": "브랜드#인지도", "aspect_term": "향", "polarity": "negative"}],
    )
    assert _extract_stage1_tuples(record) == {("본품#품질", "맛", "positive")}
    assert _extract_final_tuples(record) == {("본품#품질", " 맛 ", "positive"), ("브랜드#인지도", "향", "negative")}
    assert all(type(t) is tuple for t in _extract_final_tuples(record))


def test_lenient_where_the_command_is_strict() -> None:
    record = pipeline_output(final_tuples=[item("본품#품질", "맛", "good"), {}, item("본품#가격", "값", None)])
    assert _extract_final_tuples(record) == {("본품#품질", "맛", "neutral"), ("본품#가격", "값", "neutral")}
    assert _extract_stage1_tuples(record) == _extract_final_tuples(record)  # no stage 1: the final set
    assert _extract_stage1_tuples({}) == set() and _extract_final_tuples({}) == set()
    assert has_stage1_structural_risk({}) is False and has_stage2_structural_risk({}) is False


def test_stage1_falls_back_to_the_trace_entry() -> None:
    trace = [{"stage": "stage1", "agent": "ATSA", "output": {"aspect_sentiments": [item("", "배송", "negative")]}}]
    record = {"runtime": {"parsed_output": {"final_result": {"final_tuples": [item("", "배송", "positive")]},
                                            "process_trace": trace}}}
    assert _extract_stage1_tuples(record) == {("", "배송", "negative")}


def test_pure_and_deterministic() -> None:
    record = pipeline_output(final_tuples=[item("본품#품질", "맛", "positive"), item("본품#품질", "향", "negative")])
    record["stage1_structural_risk"] = False
    before = copy.deepcopy(record)
    first = (_extract_final_tuples(record), has_stage1_structural_risk(record), has_stage2_structural_risk(record))
    assert record == before
    assert first == (_extract_final_tuples(record), has_stage1_structural_risk(record), has_stage2_structural_risk(record))


def test_risks_are_computed_never_read() -> None:
    conflict = pipeline_output(final_tuples=[item("본품#품질", "맛", "positive"), item("본품#품질", "향", "negative")])
    assert has_stage1_structural_risk({**conflict, "stage1_structural_risk": False}) is True  # polarity conflict
    calm = pipeline_output(final_tuples=[item("본품#품질", "맛", "positive")])
    assert has_stage1_structural_risk({**calm, "stage1_structural_risk": True}) is False
    risks = {"validator": [{"stage": "stage2", "structural_risks": [{"risk_id": "NEGATION_SCOPE"}]}]}
    assert has_stage2_structural_risk({**calm, **risks, "stage2_structural_risk": False}) is True
    assert has_stage1_structural_risk({**calm, **risks}) is False
    dropped = {"inputs": {"ate_debug": {"filtered": [{"action": "drop", "drop_reason": "alignment_failure"}] * 2}}}
    assert has_stage1_structural_risk({**calm, **dropped}) is True  # AF ≥ 2


def test_shapes_the_script_could_not_read_raise() -> None:
    with pytest.raises(Exception):  # noqa: B017 - any exception, as the script's
        _extract_final_tuples(pipeline_output(final_tuples=[item("본품#품질", "맛", 5)]))


@pytest.mark.parametrize("path", [REAL, BETA], ids=["cr_v2", "beta"])
def test_real_rows_agree_with_the_command(path) -> None:
    table = evaluate_run(path, families=FAMILIES, workers=1).table.sort("line")
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for values, row in zip(table.iter_rows(named=True), rows):
        assert _extract_stage1_tuples(row) == as_tuples(values["stage1_tuples"])
        assert _extract_final_tuples(row) == as_tuples(values["final_tuples"])
        s1r = (values["r1"] > 0 or values["polarity_conflict"] or values["nc1"] > 0
               or values["alignment_failure_drops"] >= 2 or values["rq1"] == "explicit_failure")
        assert has_stage1_structural_risk(row) is s1r
        assert has_stage2_structural_risk(row) is (values["r2"] > 0 or values["nc2"] > 0)
        parsed_only = {"runtime": {"parsed_output": row["runtime"]["parsed_output"]}}
        if values["final_source"] != "inputs_aspect_sentiments":
            assert _extract_final_tuples(parsed_only) == as_tuples(values["final_tuples"])
