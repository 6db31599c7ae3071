"""Property tests: normalization, unit extraction and the whole pipeline on generated scorecards."""

from __future__ import annotations

import functools
import json
import random
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aggregator.metrics.prf import prf
from aggregator.metrics.structural import STRUCTURAL
from aggregator.units.projection import UNITS, Unit, is_explicit, match_exact, match_surface
from aggregator.units.sample_counts import _explicit_pairs, _implicit_polarity
from scorecards.normalize import TERM_EDGE_PUNCTUATION, norm_polarity, norm_ref, norm_term
from scorecards.tuples import EvalTuple
from tests.scorecard_rows import evaluate_rows
from tests.strategies import fuzz_budgets
from tests.test_registry import value_range

if TYPE_CHECKING:
    from aggregator.run.pipeline import RunEvaluation

FAST = settings(max_examples=200, deadline=None)
PIPELINE = functools.partial(fuzz_budgets, 25, 100)
"""Whole-pipeline properties: 25 examples in ``make test``, 100 in the slow tier (``make test-all``)."""

# --- strategies ---------------------------------------------------------------------------------------

TEXT = st.text(st.one_of(st.sampled_from(list(" \t\n\u3000\xa0.,;:!?\"'`()[]{}#/·가격패키지구성품AbİẞΣ")), st.characters()))
REFS = ["본품#품질", " 본품 # 품질 ", "제품 전체#일반", "제품  전체 #일반", "패키지/구성품#가격", "패키지·구성품#가격",
        "브랜드#인지도", "본품", "BRAND#Quality", "x#", "#y", "a#b#c", "본품#  Quality."]
TERMS = ["", " ", "향", "Battery", " battery.", "(BATTERY)", "Screen  Size", "“화면”", "가격", "()"]
POLARITIES = ["positive", "negative", "neutral", "mixed", "pos", "NEG", " Neu ", "Mixed"]

polarity_text = st.sampled_from(POLARITIES)
term_value = st.one_of(st.sampled_from(TERMS), st.builds(lambda t: {"term": t, "span": [0, 1]}, st.sampled_from(TERMS)),
                       st.just({"term": None}))
tuple_item = st.fixed_dictionaries(
    {},
    optional={
        "aspect_ref": st.one_of(st.none(), st.sampled_from(["", *REFS])),
        "term": st.sampled_from(REFS),
        "aspect_term": st.one_of(st.none(), term_value),
        "opinion_term": st.one_of(st.sampled_from(TERMS), st.builds(lambda t: {"term": t}, st.sampled_from(TERMS))),
        "polarity": st.one_of(st.none(), st.just(""), polarity_text),
        "label": polarity_text,
        "is_implicit": st.booleans(),
    },
)
tuple_list = st.lists(tuple_item, max_size=4)
eval_tuple = st.builds(EvalTuple, st.sampled_from(["", *map(norm_ref, REFS)]),
                       st.sampled_from(sorted(set(map(norm_term, TERMS)))),
                       st.sampled_from(["positive", "negative", "neutral", "mixed"]))
tuple_set = st.frozensets(eval_tuple, max_size=6)
sample_keys = st.lists(st.text("ab가😀9 ", min_size=1, max_size=3), min_size=1, max_size=6, unique=True)


@st.composite
def scorecard_row(draw: st.DrawFn, key: str) -> dict[str, Any]:
    """A row with gold, stage 1 and final in any of their contract locations (or absent)."""
    value: dict[str, Any] = {"meta": {"text_id": key, "invalid_ref_count": draw(st.integers(0, 3))}}
    gold_at = draw(st.sampled_from(["gold_tuples", "inputs.gold_tuples", "gold_triplets", "inputs.gold_triplets", None]))
    if gold_at:
        section, _, name = gold_at.rpartition(".")
        (value.setdefault(section, {}) if section else value)[name] = draw(tuple_list)
    final_result: dict[str, Any] = {}
    for name in ("stage1_tuples", "final_tuples", "final_aspects"):
        if draw(st.booleans()):
            final_result[name] = draw(tuple_list)
    value["runtime"] = {"parsed_output": {"final_result": final_result}}
    if draw(st.booleans()):
        value["process_trace"] = [{"stage": "stage1", "agent": "ATSA", "output": {"aspect_sentiments": draw(tuple_list)}}]
    if draw(st.booleans()):
        value.setdefault("inputs", {})["aspect_sentiments"] = draw(tuple_list)
    return value


@st.composite
def scorecard_rows(draw: st.DrawFn) -> list[dict[str, Any]]:
    return [draw(scorecard_row(key)) for key in draw(sample_keys)]


TUPLE_LISTS = {"gold_tuples", "gold_triplets", "stage1_tuples", "final_tuples", "final_aspects", "aspect_sentiments"}


def map_tuple_lists(value: Any, change: Any) -> Any:
    """A copy of a row with ``change`` applied to every tuple list (trace entry order is kept)."""
    if isinstance(value, list):
        return [map_tuple_lists(v, change) for v in value]
    if isinstance(value, dict):
        return {k: change(v) if k in TUPLE_LISTS and isinstance(v, list) else map_tuple_lists(v, change)
                for k, v in value.items()}
    return value


def evaluate(factory: pytest.TempPathFactory, rows: list[dict[str, Any]], **options: Any) -> RunEvaluation:
    return evaluate_rows(factory.mktemp("example") / "run", rows, **options)


CORE = {"families": ("core",)}
"""Tuple order and duplicates inside a list change no core number; some diagnostics follow the
list as the research tool did (the first final tuple of RQ1, review tuple ids t0..t(m-1))."""
NOT_ADDITIVE = {"n_trials", "override_hint_invalid_total", "override_hint_repair_total"}
"""Integer columns that are not sums over rows: the largest group, values copied from the side file."""


# --- normalization ---------------------------------------------------------------------------------------


@FAST
@given(TEXT)
def test_norm_term_output_is_a_fixed_point_unless_edge_whitespace_remains(text: str) -> None:
    out = norm_term(text)
    assert out == out.lower() and "  " not in out
    assert all(c == " " or not c.isspace() for c in out)
    assert not out or (out[0] not in TERM_EDGE_PUNCTUATION and out[-1] not in TERM_EDGE_PUNCTUATION)
    if out == out.strip():
        assert norm_term(out) == out


@FAST
@given(TEXT)
def test_norm_ref_is_idempotent(text: str) -> None:
    out = norm_ref(text)
    assert norm_ref(out) == out
    assert out == out.strip() and "패키지/구성품" not in out


@FAST
@given(st.sampled_from(["positive", "negative", "neutral", "mixed", "pos", "neg", "neu"]),
       st.sampled_from(["", " ", "\t"]), st.booleans())
def test_norm_polarity_is_idempotent(polarity: str, pad: str, upper: bool) -> None:
    out, defaulted = norm_polarity(pad + (polarity.upper() if upper else polarity) + pad)
    assert not defaulted
    assert norm_polarity(out) == (out, False)


# --- units on generated tuple sets ----------------------------------------------------------------------


@FAST
@given(tuple_set)
def test_a_set_scored_against_itself_is_correct(tuples: frozenset[EvalTuple]) -> None:
    for unit in UNITS.values():
        pairs = unit.project(tuples)
        counts = unit.counts(tuples, tuples)
        assert counts == (len(pairs), 0, 0)
        if pairs:
            assert prf(*counts) == (1.0, 1.0, 1.0)


@FAST
@given(tuple_set, tuple_set)
def test_counts_are_consistent_with_set_sizes(pred: frozenset[EvalTuple], gold: frozenset[EvalTuple]) -> None:
    for unit in UNITS.values():
        tp, fp, fn = unit.counts(pred, gold)
        assert tp + fn == len(unit.project(gold))
        assert tp + fp == len(unit.project(pred))
        assert 0 <= tp <= min(len(unit.project(pred)), len(unit.project(gold)))
        assert all(0.0 <= v <= 1.0 for v in prf(tp, fp, fn))


@FAST
@given(tuple_set, tuple_set)
def test_the_matched_pairs_are_the_true_positives(pred: frozenset[EvalTuple], gold: frozenset[EvalTuple]) -> None:
    for unit in UNITS.values():
        pred_pairs, gold_pairs = unit.project(pred), unit.project(gold)
        pred_matched, gold_matched = unit.matched(pred_pairs, gold_pairs)
        assert pred_matched <= pred_pairs and gold_matched <= gold_pairs
        assert len(pred_matched) == len(gold_matched) == unit.counts(pred, gold).tp


@FAST
@given(tuple_set, tuple_set)
def test_duplicated_input_order_is_irrelevant_to_units(pred: frozenset[EvalTuple], gold: frozenset[EvalTuple]) -> None:
    for unit in UNITS.values():
        assert unit.counts(list(pred) * 2, sorted(gold, reverse=True) * 3) == unit.counts(pred, gold)


edged_term = st.sampled_from(sorted({norm_term(t) for t in [*TERMS, "( x )", "(  )", "( 가격)"]}))
edged_set = st.frozensets(st.builds(EvalTuple, st.sampled_from(["", "본품#품질"]), edged_term,
                                    st.sampled_from(["positive", "negative", "neutral", "mixed"])), max_size=6)
"""Tuple sets whose terms may keep edge whitespace (``"( x )"`` is the term ``" x "``, surface key ``"x"``)."""


@FAST
@given(edged_set, edged_set)
def test_the_explicit_counts_read_off_the_surface_pairs_equal_those_of_the_explicit_tuples(
    gold: frozenset[EvalTuple], final: frozenset[EvalTuple]
) -> None:
    surface = UNITS["otepol"]
    gold_explicit, final_explicit = frozenset(filter(is_explicit, gold)), frozenset(filter(is_explicit, final))
    assert _explicit_pairs(surface.project(gold)) == surface.project(gold_explicit)
    assert (match_exact(_explicit_pairs(surface.project(final)), _explicit_pairs(surface.project(gold)))
            == match_surface(surface.project(final_explicit), surface.project(gold_explicit)))
    implicit_gold = {t.polarity for t in gold if t.polarity != "mixed" and not is_explicit(t)}
    predicted = {t.polarity for t in final if t.polarity != "mixed"}
    tp = len(implicit_gold & predicted)
    expected = (True, (tp, len(predicted) - tp, len(implicit_gold) - tp)) if implicit_gold else (False, (0, 0, 0))
    assert _implicit_polarity(surface.project(gold), final) == expected


# --- the whole pipeline on generated files ------------------------------------------------------------


def unit_pairs(unit: Unit, tuples_text: str) -> int:
    return len(unit.project(EvalTuple(*t) for t in json.loads(tuples_text)))


def assert_same_numbers(a: RunEvaluation, b: RunEvaluation) -> None:
    assert a.metrics == b.metrics
    assert a.table.drop("line").equals(b.table.drop("line"))


def check_shuffling_lines_and_tuples_changes_no_number(
    tmp_path_factory: pytest.TempPathFactory, rows: list[dict[str, Any]], seed: int
) -> None:
    rnd = random.Random(seed)
    lines = rnd.sample(rows, len(rows))
    assert_same_numbers(evaluate(tmp_path_factory, rows), evaluate(tmp_path_factory, lines))
    shuffled = [map_tuple_lists(r, lambda items: rnd.sample(items, len(items))) for r in lines]
    assert_same_numbers(evaluate(tmp_path_factory, rows, **CORE), evaluate(tmp_path_factory, shuffled, **CORE))


test_shuffling_lines_and_tuples_changes_no_number, test_shuffling_lines_and_tuples_changes_no_number_slow = PIPELINE(
    rows=scorecard_rows(), seed=st.integers(0, 2**32 - 1)
)(check_shuffling_lines_and_tuples_changes_no_number)


def check_duplicate_tuples_change_nothing(tmp_path_factory: pytest.TempPathFactory, rows: list[dict[str, Any]]) -> None:
    doubled = [map_tuple_lists(r, lambda items: items + items[::-1]) for r in rows]
    once, twice = evaluate(tmp_path_factory, rows, **CORE), evaluate(tmp_path_factory, doubled, **CORE)
    assert once.metrics == twice.metrics
    assert once.table.drop("polarity_defaulted").equals(twice.table.drop("polarity_defaulted"))


test_duplicate_tuples_change_nothing, test_duplicate_tuples_change_nothing_slow = PIPELINE(
    rows=scorecard_rows()
)(check_duplicate_tuples_change_nothing)


def check_per_sample_counts_and_scores_are_consistent(
    tmp_path_factory: pytest.TempPathFactory, rows: list[dict[str, Any]]
) -> None:
    evaluation = evaluate(tmp_path_factory, rows)
    for sample in evaluation.table.iter_rows(named=True):
        for unit in UNITS.values():
            gold_pairs = unit_pairs(unit, sample["gold_tuples"])
            for stage, tuples in (("s1", "stage1_tuples"), ("s2", "final_tuples")):
                prefix = f"{unit.name}_{stage}"
                assert sample[f"{prefix}_tp"] + sample[f"{prefix}_fn"] == gold_pairs
                assert sample[f"{prefix}_tp"] + sample[f"{prefix}_fp"] == unit_pairs(unit, sample[tuples])
                tp, fp, fn = (sample[f"{prefix}_{c}"] for c in ("tp", "fp", "fn"))
                assert sample[f"{prefix}_precision"] == pytest.approx(tp / (tp + fp) if tp + fp else 0.0, abs=1e-15)
                assert sample[f"{prefix}_recall"] == pytest.approx(tp / (tp + fn) if tp + fn else 0.0, abs=1e-15)
                assert sample[f"{prefix}_f1"] == pytest.approx(2 * tp / (2 * tp + fp + fn) if tp else 0.0, abs=1e-15)
    gold = [sample for sample in evaluation.table.iter_rows(named=True) if sample["has_gold"]]
    for unit, macro in (("refpol", "tuple_f1_s2"), ("otepol", "tuple_f1_s2_otepol")):
        f1s = [sample[f"{unit}_s2_f1"] for sample in gold]
        assert evaluation.metrics[macro] == (pytest.approx(sum(f1s) / len(f1s), abs=1e-12) if gold else None)
        tp, fp, fn = (sum(sample[f"{unit}_s2_{c}"] for sample in gold) for c in ("tp", "fp", "fn"))
        micro = evaluation.metrics[f"tuple_f1_s2_{unit}_micro"]
        assert micro == (pytest.approx(2 * tp / (2 * tp + fp + fn), abs=1e-12) if tp + fp + fn else None)
    for metric in STRUCTURAL:
        value = evaluation.metrics[metric.name]
        if metric.kind == "str":
            continue
        low, high = value_range(metric.name)
        assert value is None or low <= value <= high, (metric.name, value)  # type: ignore[operator]


test_per_sample_counts_and_scores_are_consistent, test_per_sample_counts_and_scores_are_consistent_slow = PIPELINE(
    rows=scorecard_rows()
)(check_per_sample_counts_and_scores_are_consistent)


def check_gold_as_prediction_scores_one_under_every_unit_with_pairs(
    tmp_path_factory: pytest.TempPathFactory, rows: list[list[dict[str, Any]]]
) -> None:
    scorecards = [{"meta": {"text_id": f"k{i}"}, "gold_tuples": items,
                   "runtime": {"parsed_output": {"final_result": {"stage1_tuples": items, "final_tuples": items}}}}
                  for i, items in enumerate(rows)]
    evaluation = evaluate(tmp_path_factory, scorecards)
    for sample in evaluation.table.iter_rows(named=True):
        assert sample["gold_tuples"] == sample["stage1_tuples"] == sample["final_tuples"]
        assert sample["stage1_source"] == "stage1_tuples" and not sample["changed"]
        for unit in UNITS.values():
            if unit_pairs(unit, sample["gold_tuples"]):
                assert sample[f"{unit.name}_s2_f1"] == 1.0 and sample[f"{unit.name}_s2_correct"]
                assert sample[f"{unit.name}_transition"] == "keep"
    metrics = evaluation.metrics
    assert metrics["tuple_f1_s2_otepol"] == metrics["tuple_f1_s2_otepol_micro"] == 1.0
    assert metrics["delta_f1"] == metrics["break_count"] == metrics["net_gain"] == 0


test_gold_as_prediction_scores_one_under_every_unit_with_pairs, test_gold_as_prediction_scores_one_under_every_unit_with_pairs_slow = PIPELINE(
    rows=st.lists(st.lists(st.fixed_dictionaries({"aspect_ref": st.sampled_from(REFS),
                                                      "aspect_term": st.sampled_from(TERMS),
                                                      "polarity": polarity_text}), min_size=1, max_size=4),
                     min_size=1, max_size=5)
)(check_gold_as_prediction_scores_one_under_every_unit_with_pairs)


def check_counts_add_up_over_a_split_of_the_rows(
    tmp_path_factory: pytest.TempPathFactory, rows: list[dict[str, Any]], cut: int
) -> None:
    whole = evaluate(tmp_path_factory, rows).metrics
    parts = [evaluate(tmp_path_factory, part).metrics for part in (rows[:cut], rows[cut:]) if part]
    for metric in STRUCTURAL:
        if metric.kind == "int" and metric.name not in NOT_ADDITIVE:
            assert (whole[metric.name] or 0) == sum(p[metric.name] or 0 for p in parts), metric.name  # type: ignore[misc]


test_counts_add_up_over_a_split_of_the_rows, test_counts_add_up_over_a_split_of_the_rows_slow = PIPELINE(
    rows=scorecard_rows(), cut=st.integers(0, 6)
)(check_counts_add_up_over_a_split_of_the_rows)
