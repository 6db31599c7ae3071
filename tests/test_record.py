"""Row -> SampleRecord: identity, where each tuple set is read from, fallbacks and sources."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scorecards.reader import read_scorecards
from scorecards.record import BadRow
from scorecards.tuples import EvalTuple
from tests.conftest import run_cli
from tests.scorecard_rows import evaluate_rows, item, record_of, row, write_rows

GOLD = [item("본품#품질", "향", "positive")]


def t(ref: str, term: str, pol: str = "positive") -> EvalTuple:
    return EvalTuple(ref, term, pol)  # type: ignore[arg-type]


def trace_entry(tuples: Any, stage: str = "stage1", agent: str = "atsa") -> dict[str, Any]:
    return {"stage": stage, "agent": agent, "output": {"aspect_sentiments": tuples}}


# --- identity -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("meta", "runtime", "expected"),
    [
        ({"text_id": "t", "uid": "u", "case_id": "c"}, {"uid": "r"}, "t"),
        ({"text_id": "", "uid": "u", "case_id": "c"}, {"uid": "r"}, "u"),
        ({"text_id": None, "uid": "", "case_id": "c"}, {"uid": "r"}, "c"),
        ({"case_id": ""}, {"uid": "r"}, "r"),
        ({}, {"uid": 17}, "17"),
        ({"text_id": 0}, {}, "0"),
    ],
)
def test_sample_key_is_the_first_non_empty_field(meta: dict[str, Any], runtime: dict[str, Any], expected: str) -> None:
    assert record_of({"meta": meta, "runtime": runtime}).sample_key == expected


@pytest.mark.parametrize("value", [{}, {"meta": {"text_id": "", "uid": None}, "runtime": {"uid": ""}}])
def test_row_without_sample_key_is_bad(value: dict[str, Any]) -> None:
    with pytest.raises(BadRow, match="no sample key"):
        record_of(value)


@pytest.mark.parametrize(
    ("top", "meta", "expected"),
    [
        ({"run_id": "top"}, {"run_id": "meta"}, "top"),
        ({"run_id": ""}, {"run_id": "meta"}, "meta"),
        ({"run_id": None}, {"run_id": ""}, "run_dir"),
        ({}, {}, "run_dir"),
    ],
)
def test_run_id_field_order(top: dict[str, Any], meta: dict[str, Any], expected: str) -> None:
    assert record_of({**top, "meta": {"text_id": "k", **meta}}).run_id == expected


@pytest.mark.parametrize(
    ("top", "meta", "expected"),
    [({"profile": "smoke"}, {"profile": "paper_main"}, "smoke"), ({"profile": ""}, {"profile": "paper_main"}, "paper_main"),
     ({}, {}, None)],
)
def test_profile_field_order(top: dict[str, Any], meta: dict[str, Any], expected: str | None) -> None:
    assert record_of({**top, "meta": {"text_id": "k", **meta}}).profile == expected


def test_run_id_falls_back_to_the_run_directory_name(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "cr_seed7" / "scorecards.jsonl", [row("a"), row("b", run_id="given")])
    for source in (path.parent, path):
        read = read_scorecards(source, workers=1)
        assert [r.run_id for r in read.items] == ["cr_seed7", "given"]


@pytest.mark.parametrize(
    ("value", "expected"),
    [(3, 3), (0, 0), (None, 0), ("3", 0), (2.0, 0), (True, 0), ([1], 0)],
)
def test_meta_invalid_counts_take_integers_only(value: Any, expected: int) -> None:
    meta = {"invalid_ref_count": value, "invalid_language_count": value, "invalid_target_count": value}
    record = record_of(row(meta=meta))
    assert (record.invalid_ref_count, record.invalid_language_count, record.invalid_target_count) == (expected,) * 3


# --- gold ---------------------------------------------------------------------------------------

TOP, INNER = [item("a#b", "top")], [item("a#b", "inner")]
TRIP, INNER_TRIP = [{"aspect_ref": "a#b", "opinion_term": {"term": "trip"}, "label": "pos"}], [item("a#b", "inner_trip")]


@pytest.mark.parametrize(
    ("sections", "term"),
    [
        ({"gold_tuples": TOP, "inputs": {"gold_tuples": INNER}, "gold_triplets": TRIP}, "top"),
        ({"gold_tuples": [], "inputs": {"gold_tuples": INNER}, "gold_triplets": TRIP}, "inner"),
        ({"gold_tuples": None, "inputs": {"gold_tuples": INNER, "gold_triplets": INNER_TRIP}}, "inner"),
        ({"gold_tuples": [], "inputs": {"gold_tuples": [], "gold_triplets": INNER_TRIP}, "gold_triplets": TRIP}, "trip"),
        ({"inputs": {"gold_triplets": INNER_TRIP}}, "inner_trip"),
        ({"gold_triplets": [], "inputs": {"gold_triplets": INNER_TRIP}}, "inner_trip"),
    ],
)
def test_gold_path_order(sections: dict[str, Any], term: str) -> None:
    record = record_of({"meta": {"text_id": "k"}, **sections})
    assert record.gold == {t("a#b", term)}


def test_no_gold_anywhere_is_an_empty_set() -> None:
    assert record_of(row(gold=[])).gold == frozenset()
    assert record_of(row()).gold == frozenset()


def test_gold_is_read_by_reader_a_with_the_gold_rules() -> None:
    record = record_of(row(gold=[item(" 본품 # 품질 "), item("브랜드#인지도", ""), {"term": "제품 전체#일반", "label": "neg"},
                                 item("본품#가격", "값", "pos", is_implicit=True)]))
    assert record.gold == {
        t("본품#품질", "본품 # 품질"),
        t("브랜드#인지도", ""),
        t("제품 전체#일반", "제품 전체#일반", "negative"),
        t("본품#가격", "값"),
    }


# --- final --------------------------------------------------------------------------------------


def final_row(final_result: Any, aspect_sentiments: list[Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"meta": {"text_id": "k"}, "runtime": {"parsed_output": {"final_result": final_result}}}
    if aspect_sentiments is not None:
        out["inputs"] = {"aspect_sentiments": aspect_sentiments}
    return out


INPUTS = [item("x#y", "from_inputs")]


@pytest.mark.parametrize(
    ("final_result", "source", "term"),
    [
        ({"final_tuples": [item("x#y", "ft")], "final_aspects": [item("x#y", "fa")]}, "final_tuples", "ft"),
        ({"final_tuples": [], "final_aspects": [item("x#y", "fa")]}, "final_aspects", "fa"),
        ({"final_tuples": None, "final_aspects": [item("x#y", "fa")]}, "final_aspects", "fa"),
        ({"final_tuples": [], "final_aspects": []}, "inputs_aspect_sentiments", "from_inputs"),
        ({}, "inputs_aspect_sentiments", "from_inputs"),
        (None, "inputs_aspect_sentiments", "from_inputs"),
    ],
)
def test_final_source_order(final_result: Any, source: str, term: str) -> None:
    record = record_of(final_row(final_result, INPUTS))
    assert (record.final_source, record.final) == (source, {t("x#y", term)})


def test_final_sources_use_reader_a() -> None:
    for name in ("final_tuples", "final_aspects"):
        record = record_of(final_row({name: [{"term": " 본품 #가격", "polarity": "neg"}, item(pol="neu"),
                                              item("r#a", "X", is_implicit=True)]}))
        assert record.final == {t("본품#가격", "", "negative"), t("", "", "neutral"), t("r#a", "")}
    record = record_of(final_row(None, [{"term": "r#b", "aspect_term": "Y"}]))
    assert record.final == {t("r#b", "y", "neutral")}


def test_inputs_aspect_sentiments_keep_only_items_with_a_term() -> None:
    record = record_of(final_row({}, [item("r#a", "kept"), item("r#b"), item("r#c", ""), item("r#d", "()"),
                                     item("r#e", "implicit", is_implicit=True), item("r#f", {"term": None})]))
    assert (record.final_source, record.final) == ("inputs_aspect_sentiments", {t("r#a", "kept")})


def test_no_final_tuple_anywhere_counts_as_inputs_aspect_sentiments() -> None:
    for value in (final_row({}), final_row({}, [item("r#b")]), {"meta": {"text_id": "k"}}):
        record = record_of(value)
        assert (record.final_source, record.final) == ("inputs_aspect_sentiments", frozenset())


@pytest.mark.parametrize("parsed", ["not json", ["final_result"], 3, None, True])
def test_parsed_output_that_is_not_an_object_is_absent(parsed: Any) -> None:
    value = {"meta": {"text_id": "k"}, "inputs": {"aspect_sentiments": INPUTS},
             "runtime": {"parsed_output": parsed, "process_trace": [trace_entry([item("s#1", "t")])]}}
    record = record_of(value)
    assert (record.final_source, record.final) == ("inputs_aspect_sentiments", {t("x#y", "from_inputs")})
    assert (record.stage1_source, record.stage1) == ("process_trace", {t("s#1", "t")})


# --- stage 1 ------------------------------------------------------------------------------------


def stage1_row(stage1: list[Any] | None = None, *, runtime_trace: Any = None, top_trace: Any = None,
               parsed_trace: Any = None, final: list[Any] | None = None) -> dict[str, Any]:
    parsed: dict[str, Any] = {"final_result": {"stage1_tuples": stage1, "final_tuples": final or [item("f#1", "final")]}}
    runtime: dict[str, Any] = {"parsed_output": parsed}
    out: dict[str, Any] = {"meta": {"text_id": "k"}, "runtime": runtime}
    for where, key, value in ((runtime, "process_trace", runtime_trace), (out, "process_trace", top_trace),
                              (parsed, "process_trace", parsed_trace)):
        if value is not None:
            where[key] = value
    return out


def test_stage1_tuples_are_read_by_reader_b() -> None:
    record = record_of(stage1_row([item("본품 #품질", "A"), item(pol="neg"), {"term": "r#x", "aspect_term": "B"},
                                   item("r#y", "C", is_implicit=True)], runtime_trace=[trace_entry([item("s#1")])]))
    assert record.stage1_source == "stage1_tuples"
    assert record.stage1 == {t("본품#품질", "a"), t("", "b", "neutral"), t("r#y", "c")}


def test_stage1_tuples_yielding_nothing_fall_back_to_the_trace() -> None:
    record = record_of(stage1_row([item(pol="neg"), item(" ", "()")], runtime_trace=[trace_entry([item("s#1")])]))
    assert (record.stage1_source, record.stage1) == ("process_trace", {t("s#1", "")})


def test_trace_is_read_by_reader_a() -> None:
    trace = [trace_entry([item(pol="neg"), {"term": "r#x", "polarity": "pos"}, item("r#y", "Z", is_implicit=True)])]
    record = record_of(stage1_row(runtime_trace=trace))
    assert record.stage1 == {t("", "", "negative"), t("r#x", ""), t("r#y", "")}


@pytest.mark.parametrize(
    ("traces", "expected"),
    [
        ({"runtime_trace": "R", "top_trace": "T", "parsed_trace": "P"}, "R"),
        ({"runtime_trace": [], "top_trace": "T", "parsed_trace": "P"}, "T"),
        ({"top_trace": "T", "parsed_trace": "P"}, "T"),
        ({"runtime_trace": [], "top_trace": [], "parsed_trace": "P"}, "P"),
        ({"runtime_trace": {}, "top_trace": "", "parsed_trace": "P"}, "P"),
        ({"runtime_trace": 0, "top_trace": None, "parsed_trace": "P"}, "P"),
        ({"runtime_trace": False, "top_trace": [], "parsed_trace": "P"}, "P"),
    ],
)
def test_process_trace_is_the_first_non_empty_list(traces: dict[str, Any], expected: str) -> None:
    chosen = {k: [trace_entry([item(f"{v}#a")])] if isinstance(v, str) and len(v) == 1 else v for k, v in traces.items()}
    record = record_of(stage1_row(**chosen))
    assert (record.stage1_source, record.stage1) == ("process_trace", {t(f"{expected}#a", "")})


@pytest.mark.parametrize("first", [{"stage": "stage1"}, "stage1", 3, True])
def test_a_non_empty_trace_that_is_not_a_list_hides_later_locations(first: Any) -> None:
    """As in the research tool: the first non-empty value is the trace; not a list means no trace."""
    record = record_of(stage1_row(runtime_trace=first, top_trace=[trace_entry([item("T#a")])]))
    assert (record.stage1_source, record.stage1) == ("final", {t("f#1", "final")})


def test_only_the_first_non_empty_trace_is_searched() -> None:
    record = record_of(stage1_row(runtime_trace=[trace_entry([item("R#a")], stage="stage2")],
                                  top_trace=[trace_entry([item("T#a")])]))
    assert (record.stage1_source, record.stage1) == ("final", {t("f#1", "final")})


@pytest.mark.parametrize(("stage", "agent"), [("STAGE1", "ATSA"), ("Stage1", "Atsa"), ("stage1", "atsa")])
def test_trace_entry_match_is_case_insensitive(stage: str, agent: str) -> None:
    record = record_of(stage1_row(runtime_trace=[trace_entry([item("s#1")], stage=stage, agent=agent)]))
    assert record.stage1 == {t("s#1", "")}


def test_first_matching_trace_entry_with_non_empty_aspect_sentiments_wins() -> None:
    trace = [
        trace_entry([item("wrong#stage")], stage="stage2"),
        trace_entry([item("wrong#agent")], agent="ate"),
        trace_entry([]),
        trace_entry(None),
        {"stage": "stage1", "agent": "atsa", "output": "text"},
        {"stage": "stage1", "agent": "atsa"},
        {"stage": None, "agent": 3, "output": {"aspect_sentiments": [item("wrong#types")]}},
        trace_entry([item("right#one")]),
        trace_entry([item("later#one")]),
    ]
    record = record_of(stage1_row(runtime_trace=trace))
    assert record.stage1 == {t("right#one", "")}


def test_stage1_falls_back_to_the_final_set() -> None:
    final = [item("f#1", "a"), item("f#2", "b", "pos")]
    for value in (stage1_row(final=final), stage1_row([], runtime_trace=[trace_entry([])], final=final)):
        record = record_of(value)
        assert (record.stage1_source, record.stage1) == ("final", record.final)
        assert record.final == {t("f#1", "a"), t("f#2", "b")}


# --- polarity_defaulted --------------------------------------------------------------------------


def test_polarity_defaulted_counts_the_items_read_once() -> None:
    record = record_of(row(gold=[item("g#1", "a", None)], final=[item("f#1", "b", ""), item("f#2", "c", None)]))
    assert record.stage1_source == "final"
    assert record.polarity_defaulted == 3


def test_polarity_defaulted_is_a_warning_in_run_metadata(tmp_path: Path) -> None:
    rows = [row("a", gold=[item("g#1", "a", None)], final=[item("f#1", "b", "")]),
            row("b", gold=[item("g#1", "a")], stage1=[{"aspect_ref": "s#1", "label": None}], final=[item("f#1", "b")])]
    path = write_rows(tmp_path / "run" / "scorecards.jsonl", rows)
    done = run_cli(path, "--outdir", tmp_path / "out", "--quiet")
    assert done.returncode == 0, done.stderr
    metadata = json.loads((tmp_path / "out" / "run_metadata.json").read_text())
    assert metadata["counts"]["polarity_defaulted"] == 3
    [warning] = [w for w in metadata["warnings"] if w["code"] == "polarity_defaulted"]
    assert warning["count"] == 3


# --- order, duplicates, profiles ----------------------------------------------------------------


KEYS = ["b", "a", "\U0001f600", "\uff5e", "B", "10", "9", "가", "a ", "é", "e\u0301"]


def test_rows_are_aggregated_in_code_point_order_of_the_sample_key(tmp_path: Path) -> None:
    evaluation = evaluate_rows(tmp_path, [row(k, gold=GOLD) for k in KEYS])
    assert evaluation.table.get_column("sample_key").to_list() == sorted(KEYS)
    assert sorted(KEYS).index("\uff5e") < sorted(KEYS).index("\U0001f600")


def test_ties_of_a_merged_file_are_ordered_by_run_id(tmp_path: Path) -> None:
    """Ties (one sample key in several runs) go by run id, not file order, so that shuffled
    lines give the same row order and the same float sums to the last bit."""
    rows = [row("k", run_id="run_z"), row("j", run_id="run_z"), row("k", run_id="run_a"), row("k", run_id="run_m")]
    table = evaluate_rows(tmp_path, rows).table
    assert table.select("sample_key", "run_id").rows() == [("j", "run_z"), ("k", "run_a"), ("k", "run_m"), ("k", "run_z")]
    shuffled = evaluate_rows(tmp_path / "shuffled", rows[::-1]).table
    assert shuffled.drop("line").equals(table.drop("line"))


def test_same_sample_key_in_different_runs_is_fine(tmp_path: Path) -> None:
    rows = [row("k", run_id="r1"), row("k", meta={"run_id": "r2"}), row("k")]
    evaluation = evaluate_rows(tmp_path / "r3", rows)
    assert evaluation.run_ids == ["r1", "r2", "r3"]


def test_profile_filters_rows(tmp_path: Path) -> None:
    rows = [row("a", gold=GOLD, profile="smoke"), row("b", gold=GOLD, meta={"profile": "paper_main"}),
            row("c", gold=GOLD, profile="paper_main", meta={"profile": "smoke"}), row("d", gold=GOLD)]
    everything = evaluate_rows(tmp_path, rows)
    main = evaluate_rows(tmp_path, rows, profile="paper_main")
    assert everything.metrics["n"] == 4
    assert main.metrics["n"] == main.metrics["N_gold"] == 2
    assert main.table.get_column("sample_key").to_list() == ["b", "c"]
    assert evaluate_rows(tmp_path, rows, profile="smoke").table.get_column("sample_key").to_list() == ["a"]


def test_profile_without_rows_aggregates_every_row_as_the_research_tool_did(tmp_path: Path) -> None:
    """SCORECARDS.md: --profile that keeps no row falls back to all rows and says so in profile_filter."""
    rows = [row("a", gold=GOLD, final=GOLD, profile="smoke"), row("b", gold=GOLD)]
    plain = evaluate_rows(tmp_path, rows)
    fallback = evaluate_rows(tmp_path, rows, profile="paper_main")
    assert fallback.profile_fallback and not plain.profile_fallback
    assert fallback.metrics["n"] == 2 and fallback.metrics["tuple_f1_s2"] == plain.metrics["tuple_f1_s2"] == 0.5
    assert fallback.metrics["profile_filter"] == "paper_main"
    assert "profile_filter" in plain.metrics and plain.metrics["profile_filter"] is None


def test_one_text_id_under_two_splits_is_two_samples(tmp_path: Path) -> None:
    """The real run test_small has this shape: meta.text_id repeated under meta.split valid and test."""
    rows = [row("k", gold=GOLD, final=GOLD, meta={"split": "valid"}), row("k", gold=GOLD, meta={"split": "test"})]
    evaluation = evaluate_rows(tmp_path, rows)
    assert evaluation.metrics["n"] == evaluation.metrics["N_gold"] == 2
    assert evaluation.table.select("split", "sample_key").rows() == [("test", "k"), ("valid", "k")]
    assert evaluation.metrics["tuple_f1_s2"] == 0.5


def test_a_repeated_run_split_and_key_is_still_a_duplicate(tmp_path: Path) -> None:
    path = write_rows(tmp_path / "run" / "scorecards.jsonl",
                      [row("k", meta={"split": "test"}), row("k", meta={"split": "valid"}), row("k", meta={"split": "test"})])
    done = run_cli(path, "--outdir", tmp_path / "out")
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"aggregate: error: {path}:3: duplicate sample key 'k' in split 'test' of run 'run' (first at line 1)"]
    assert not (tmp_path / "out").exists()


def test_a_split_that_is_not_a_string_is_compared_as_its_json_text() -> None:
    assert record_of(row("k", meta={"split": 1})).split == "1"
    assert record_of(row("k", meta={"split": None})).split == record_of(row("k")).split == ""


def test_empty_objects_are_skipped_except_in_gold_tuples() -> None:
    """As in the research tool: `{}` is no item in final, trace or gold_triplets lists; in gold_tuples it is."""
    final_empty = record_of({"meta": {"text_id": "k"}, "gold_tuples": [{}],
                             "runtime": {"parsed_output": {"final_result": {"final_tuples": [{}, { }]}}},
                             "inputs": {"aspect_sentiments": [{ }, item("r#1", "t")]}})
    assert final_empty.gold == {t("", "", "neutral")}
    assert (final_empty.final_source, final_empty.final) == ("inputs_aspect_sentiments", {t("r#1", "t")})
    triplets = record_of({"meta": {"text_id": "k"}, "gold_triplets": [{}], "inputs": {"gold_triplets": [item("g#1")]}})
    assert triplets.gold == frozenset()
    keyed = record_of(stage1_row(final=[{"confidence": 0.5}]))
    assert keyed.final == {t("", "", "neutral")}


def test_a_chosen_trace_entry_of_empty_objects_gives_an_empty_stage1() -> None:
    record = record_of(stage1_row(runtime_trace=[trace_entry([{}]), trace_entry([item("s#2")])]))
    assert (record.stage1_source, record.stage1) == ("process_trace", frozenset())
