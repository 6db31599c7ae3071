"""Guard over the metric registry (every metric declared and classified) and the column rules of METRICS.md."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, get_args

import polars as pl
import pytest

from aggregator.metrics.registry import AVERAGING_TEXT, Averaging, Metric, Registry, Section, UnknownMetric
from aggregator.metrics.structural import STRUCTURAL
from aggregator.metrics.values import Kind
from aggregator.outputs.markdown import SECTION_TITLES
from aggregator.run.pipeline import evaluate_run
from tests.conftest import CONFORMANCE, RUNS
from tests.scorecard_rows import evaluate_rows, item, row

FIXTURE_INPUTS = sorted(CONFORMANCE.glob("*/scorecards.jsonl")) + sorted(RUNS.glob("*/scorecards.jsonl"))

# Every metric belongs to exactly one family; a new metric fails test_every_metric_is_classified until added here.
FAMILIES: dict[str, tuple[str, float, float]] = {
    "count": (r"n|N_\w+|break_count|implicit_gold_sample_n|invalid_\w+_count_total|tuple_f1_s2_\w+_(tp|fp|fn)",
              0, float("inf")),
    "flag": (r"gold_available", 0, 1),
    "difference": (r"(delta_f1|net_gain)(_\w+)?", -1, 1),
    "share": (r"(tuple_f1_(?!\w+_(tp|fp|fn)$)\w+|triplet_f1_s[12]|(fix|break)_rate(_\w+)?|cda"
              r"|ref_(fill|valid|coverage)_rate(_s2)?|(precision|recall)_explicit|ote_null_rate)", 0, 1),
    "per_tuple": (r"invalid_\w+_rate", 0, float("inf")),
}
PYTHON_TYPES: dict[str, type] = {"int": int, "float": float, "bool": bool, "str": str}

# Diagnostic columns (metric families) whose values leave [0, 1]; every other float of a family is a share.
PER_ROW = {  # >= 0, can exceed 1 (counts per row, sums, means of counts)
    "severe_polarity_error_L3_rate", "negation_contrast_failure_rate", "guided_by_review_rate",
    "override_applied_negation_contrast_failure_rate", "override_skipped_conflict_negation_contrast_failure_rate",
    "risk_before_sum", "risk_after_sum", "risk_before_sum_mean", "risk_after_sum_mean",
    "memory_retrieval_mean_k", "memory_retrieval_std_k", "rq1_one_hot_sum", "override_hint_invalid_rate",
}
SIGNED = {"risk_delta_sum", "risk_delta_sum_mean", "mean_delta_pairs_count_given_stage2_selected"}
SIGNED_UNIT = {"override_applied_delta_f1_mean", "override_skipped_conflict_delta_f1_mean"}
DIAGNOSTIC_RANGES: dict[str, tuple[set[str], float, float]] = {
    "per_row": (PER_ROW, 0, float("inf")),
    "signed": (SIGNED, float("-inf"), float("inf")),
    "signed_unit": (SIGNED_UNIT, -1, 1),
}


def families_of(name: str) -> list[str]:
    """The value class of a metric: core columns by name pattern, family columns by the sets above or their kind."""
    metric = STRUCTURAL[name]
    if metric.family == "core":
        return [family for family, (pattern, _, _) in FAMILIES.items() if re.fullmatch(pattern, name)]
    if metric.alias_of is not None:
        return families_of(metric.alias_of)
    found = [cls for cls, (names, _, _) in DIAGNOSTIC_RANGES.items() if name in names]
    if metric.kind == "float":
        return found or ["share"]
    return found + [{"int": "count", "bool": "flag", "str": "text"}[metric.kind]]


def value_range(name: str) -> tuple[float, float]:
    cls = families_of(name)[0]
    if cls in DIAGNOSTIC_RANGES:
        return DIAGNOSTIC_RANGES[cls][1:]
    return FAMILIES[cls][1:] if cls in FAMILIES else (0, 1)


@pytest.fixture(scope="module")
def fixture_metrics() -> dict[str, dict[str, object]]:
    return {p.parent.name: evaluate_run(p, workers=1).metrics for p in FIXTURE_INPUTS}


# --- declarations --------------------------------------------------------------------------------


@pytest.mark.parametrize("metric", list(STRUCTURAL), ids=lambda m: m.name)
def test_every_metric_is_fully_declared(metric: Metric) -> None:
    assert re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", metric.name)
    for text in (metric.label, metric.meaning, metric.formula):
        assert text.strip() == text and text
    assert metric.kind in get_args(Kind)
    assert metric.averaging in get_args(Averaging) and metric.averaging in AVERAGING_TEXT
    assert metric.section in get_args(Section) and metric.section in SECTION_TITLES
    assert metric.higher_is_better in (True, False, None)
    assert isinstance(metric.expr, pl.Expr) != (metric.run_level is not None)
    if metric.kind == "bool":
        assert metric.averaging == "flag"
    if metric.averaging in ("macro", "micro", "pooled", "difference"):
        assert metric.kind == "float"
        assert metric.blank_when or not metric.requires_gold
    if metric.family == "core" and metric.averaging in ("macro", "micro", "pooled", "difference"):
        assert metric.blank_when and metric.requires_gold
    if metric.fixes is not None:
        assert metric.fixes in STRUCTURAL and STRUCTURAL[metric.fixes].compat


@pytest.mark.parametrize("metric", list(STRUCTURAL), ids=lambda m: m.name)
def test_every_metric_is_classified(metric: Metric) -> None:
    assert len(families_of(metric.name)) == 1, families_of(metric.name)


def test_aliases_point_to_earlier_declared_metrics() -> None:
    aliases = [m for m in STRUCTURAL if m.alias_of is not None]
    assert aliases
    for alias in aliases:
        target = STRUCTURAL[alias.alias_of]  # type: ignore[index]
        assert target.alias_of is None
        assert alias.expr.meta.eq(target.expr)
        assert (alias.kind, alias.averaging, alias.requires_gold) == (target.kind, target.averaging, target.requires_gold)
        assert alias.formula == target.formula and target.name in alias.meaning


def test_registry_names_are_unique_and_ordered() -> None:
    assert len(set(STRUCTURAL.names)) == len(STRUCTURAL) == len(list(STRUCTURAL))
    reference = [c.strip() for c in (CONFORMANCE / "columns_all.txt").read_text().splitlines() if c.strip()]
    assert STRUCTURAL.names[: len(reference)] == reference
    assert all(name in STRUCTURAL for name in STRUCTURAL.names)
    assert "no_such_metric" not in STRUCTURAL


def test_registry_refuses_duplicates() -> None:
    registry = Registry()
    metric = Metric("x", "X", "an x", "x", pl.len())
    registry.add(metric)
    with pytest.raises(ValueError, match="'x' is declared twice"):
        registry.add(metric)
    with pytest.raises(ValueError, match="'x' is declared twice"):
        registry.alias("x", "x")
    with pytest.raises(ValueError, match="'tuple_f1_s2' is declared twice"):
        STRUCTURAL.alias("tuple_f1_s2", "tuple_f1_s1")


@pytest.mark.parametrize(
    ("typo", "suggestion"),
    [("tuple_f1_s2_refpl", "tuple_f1_s2_refpol"), ("fixrate", "fix_rate"), ("N_gol", "N_gold"),
     ("tuple_f1_s2_attrpol_mikro", "tuple_f1_s2_attrpol_micro")],
)
def test_unknown_metric_suggests_the_closest_name(typo: str, suggestion: str) -> None:
    with pytest.raises(UnknownMetric, match=f"unknown metric '{typo}'; did you mean '{suggestion}'"):
        STRUCTURAL[typo]
    with pytest.raises(KeyError):
        STRUCTURAL.alias("new_name", typo)


def test_unknown_metric_without_a_close_name_has_no_hint() -> None:
    with pytest.raises(UnknownMetric) as caught:
        STRUCTURAL["zzzzzzzzzzzz"]
    assert "did you mean" not in str(caught.value)


# --- values on every vendored run --------------------------------------------------------------------


def test_values_have_the_declared_kind_and_family_range(fixture_metrics: dict[str, dict[str, object]]) -> None:
    for run, metrics in fixture_metrics.items():
        assert list(metrics) == STRUCTURAL.names
        for metric in STRUCTURAL:
            value = metrics[metric.name]
            if value is None:
                continue
            assert type(value) is PYTHON_TYPES[metric.kind], (run, metric.name, value)
            if metric.kind == "str":
                continue
            low, high = value_range(metric.name)
            assert low <= value <= high, (run, metric.name, value)  # type: ignore[operator]


def test_aliases_repeat_their_target(fixture_metrics: dict[str, dict[str, object]]) -> None:
    for metrics in fixture_metrics.values():
        for metric in STRUCTURAL:
            if metric.alias_of is not None:
                assert metrics[metric.name] == metrics[metric.alias_of]


def test_never_blank_metrics_are_never_blank(fixture_metrics: dict[str, dict[str, object]]) -> None:
    for run, metrics in fixture_metrics.items():
        for metric in STRUCTURAL:
            if not metric.requires_gold and not metric.blank_when:
                assert metrics[metric.name] is not None, (run, metric.name)


def test_fixtures_cover_both_gold_cases(fixture_metrics: dict[str, dict[str, object]]) -> None:
    assert {m["gold_available"] for m in fixture_metrics.values()} == {True, False}


# --- column rules of METRICS.md ---------------------------------------------------------------------


GOLD = [item("본품#품질", "향")]
WRONG = [item("본품#품질", "향", "negative")]
OTHER_WRONG = [item("본품#가격", "값")]


def test_without_gold_only_counts_are_filled(tmp_path: Path) -> None:
    rows = [row("a", stage1=GOLD, final=WRONG, meta={"invalid_target_count": 4, "invalid_ref_count": 2}),
            row("b", gold=[], final=GOLD + OTHER_WRONG)]
    metrics = evaluate_rows(tmp_path, rows).metrics
    assert metrics["gold_available"] is False
    for metric in STRUCTURAL:
        if metric.family == "core":
            assert (metrics[metric.name] is None) == metric.requires_gold, metric.name
        elif metric.requires_gold:
            assert metrics[metric.name] is None, metric.name
    assert metrics["break_count"] == metrics["implicit_gold_sample_n"] == metrics["invalid_target_count_total"] == 0
    assert (metrics["n"], metrics["N_gold"], metrics["N_gold_total_pairs"], metrics["N_pred_used"]) == (2, 0, 0, 3)
    assert metrics["N_pred_final_tuples"] == 2


def test_rows_without_gold_stay_out_of_means_but_count_as_rows(tmp_path: Path) -> None:
    rows = [row("a", gold=GOLD, stage1=WRONG, final=GOLD), row("b", final=WRONG + OTHER_WRONG, stage1=WRONG),
            row("c", gold=GOLD, stage1=GOLD, final=[item("본품#품질", "향"), item("본품#가격", "값")])]
    metrics = evaluate_rows(tmp_path, rows).metrics
    assert (metrics["n"], metrics["N_gold"], metrics["N_pred_used"]) == (3, 2, 5)
    assert metrics["tuple_f1_s1"] == 0.5
    assert metrics["tuple_f1_s2"] == (1.0 + 2 / 3) / 2
    assert metrics["tuple_f1_s2_refpol_fp"] == 1
    assert metrics["ref_fill_rate_s2"] == 1.0
    assert metrics["ref_valid_rate_s2"] == 1.0


def test_fix_break_rates_net_gain_and_cda(tmp_path: Path) -> None:
    rows = [
        row("fix", gold=GOLD, stage1=WRONG, final=GOLD),
        row("still_changed", gold=GOLD, stage1=WRONG, final=OTHER_WRONG),
        row("still_same", gold=GOLD, stage1=WRONG, final=WRONG),
        row("keep", gold=GOLD, stage1=GOLD, final=GOLD),
        row("break", gold=GOLD, stage1=GOLD, final=WRONG),
        row("no_gold", stage1=WRONG, final=GOLD),
    ]
    metrics = evaluate_rows(tmp_path, rows).metrics
    assert metrics["fix_rate"] == 1 / 3
    assert metrics["break_rate"] == 1 / 2
    assert metrics["net_gain"] == 0.0
    assert metrics["cda"] == 1 / 2
    assert metrics["break_count"] == 1


def test_rates_blank_on_zero_denominators(tmp_path: Path) -> None:
    metrics = evaluate_rows(tmp_path, [row("a", gold=GOLD, stage1=WRONG, final=WRONG)]).metrics
    assert (metrics["fix_rate"], metrics["break_rate"], metrics["cda"], metrics["net_gain"]) == (0.0, None, None, 0.0)
    metrics = evaluate_rows(tmp_path, [row("a", gold=GOLD, stage1=GOLD, final=GOLD)]).metrics
    assert (metrics["fix_rate"], metrics["break_rate"], metrics["cda"]) == (None, 0.0, None)


def test_empty_predictions_blank_the_per_tuple_rates(tmp_path: Path) -> None:
    rows = [row("a", gold=GOLD, meta={"invalid_ref_count": 3}), row("b", final=GOLD, meta={"invalid_ref_count": 5})]
    metrics = evaluate_rows(tmp_path, rows).metrics
    for name in ("ref_fill_rate", "ref_fill_rate_s2", "ref_valid_rate", "ref_valid_rate_s2", "invalid_ref_rate",
                 "ote_null_rate"):
        assert metrics[name] is None, name
    assert (metrics["invalid_ref_count_total"], metrics["ref_coverage_rate"], metrics["tuple_f1_s2"]) == (3, 0.0, 0.0)


def test_attrpol_micro_leaves_out_samples_without_gold_attribute_pairs(tmp_path: Path) -> None:
    rows = [row("a", gold=[item("본품", "향")], final=[item("본품#품질", "향")]),
            row("b", gold=GOLD, final=GOLD)]
    metrics = evaluate_rows(tmp_path, rows).metrics
    counts = [metrics[f"tuple_f1_s2_attrpol_{c}"] for c in ("tp", "fp", "fn")]
    assert counts == [1, 0, 0] and metrics["tuple_f1_s2_attrpol_micro"] == 1.0
    assert [metrics[f"tuple_f1_s2_refpol_{c}"] for c in ("tp", "fp", "fn")] == [1, 1, 1]
    assert metrics["tuple_f1_s2_refpol_micro"] == 0.5
    assert metrics["tuple_f1_s2_attrpol"] == 0.5


def test_micro_is_blank_when_all_sums_are_zero(tmp_path: Path) -> None:
    metrics = evaluate_rows(tmp_path, [row("a", gold=[item("본품", "향")], final=[item("", "향")])]).metrics
    assert [metrics[f"tuple_f1_s2_attrpol_{c}"] for c in ("tp", "fp", "fn", "micro")] == [0, 0, 0, None]
    assert metrics["tuple_f1_s2_refpol_micro"] == 0.0


def test_explicit_and_implicit_only_scores(tmp_path: Path) -> None:
    rows = [
        row("a", gold=[item("본품#품질", "향"), item("본품#가격", "", "negative")],
            final=[item("본품#품질", "향"), item("본품#가격", "비싸", "negative"), item("x", "y", "mixed")]),
        row("b", gold=[item("본품#일반", "", "mixed")], final=[item("본품#일반", "z", "mixed")]),
    ]
    metrics = evaluate_rows(tmp_path, rows).metrics
    assert metrics["implicit_gold_sample_n"] == 1
    assert metrics["tuple_f1_s2_implicit_only"] == 2 / 3
    assert metrics["tuple_f1_s2_explicit_only"] == 0.5
    assert metrics["tuple_f1_explicit"] == metrics["tuple_f1_s2_otepol_explicit_only"] == 0.5
    assert (metrics["precision_explicit"], metrics["recall_explicit"]) == (1 / 3, 1.0)
    metrics = evaluate_rows(tmp_path, rows[1:]).metrics
    for name in ("tuple_f1_s2_explicit_only", "tuple_f1_explicit", "precision_explicit", "tuple_f1_s2_implicit_only"):
        assert metrics[name] is None, name


def test_final_source_counts(tmp_path: Path) -> None:
    rows: list[dict[str, Any]] = [
        row("a", final=GOLD),
        {"meta": {"text_id": "b"}, "runtime": {"parsed_output": {"final_result": {"final_aspects": GOLD}}}},
        {"meta": {"text_id": "c"}, "inputs": {"aspect_sentiments": GOLD}},
        row("d"),
    ]
    metrics = evaluate_rows(tmp_path, rows).metrics
    assert [metrics[f"N_pred_{s}"] for s in ("final_tuples", "final_aspects", "inputs_aspect_sentiments")] == [1, 1, 2]
    assert metrics["N_agg_fallback_used"] == 3


@pytest.mark.parametrize("path", [RUNS / "cr_n50_m1_v2__seed42" / "scorecards.jsonl", CONFORMANCE / "nogold" / "scorecards.jsonl"])
def test_a_registry_of_some_metrics_computes_their_values_alone(path: Path) -> None:
    """``Registry.only`` (what a comparison's subsets compute): the same values for the names asked, expression,
    run-level and alias metrics alike, in registry order, and no other metric."""
    table = evaluate_run(path).table
    every = STRUCTURAL.compute(table)
    run_level = next(m.name for m in STRUCTURAL if m.run_level is not None)
    alias = next(m.name for m in STRUCTURAL if m.alias_of is not None)
    names = ["tuple_f1_s2", "fix_rate_otepol", run_level, alias, "N_gold_total_pairs"]
    some = STRUCTURAL.only(names)
    assert some.names == [m.name for m in STRUCTURAL if m.name in names]
    assert some.compute(table) == {name: every[name] for name in some.names}
    assert STRUCTURAL.only(reversed(names)) is some  # made once: its expressions are built once


def test_a_registry_of_some_metrics_follows_later_declarations() -> None:
    registry = Registry()
    registry.add(Metric("a", "A", "a", "a", pl.lit(1), requires_gold=False))
    before = registry.only(["a", "b"])
    registry.add(Metric("b", "B", "b", "b", pl.lit(2), requires_gold=False))
    assert before.names == ["a"] and registry.only(["a", "b"]).names == ["a", "b"]
