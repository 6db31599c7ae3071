"""Placeholders never computed (DIAGNOSTICS.md family 2): always blank, marked as compatibility columns."""

from __future__ import annotations

from pathlib import Path

import pytest

from aggregator.metrics.placeholders import PLACEHOLDERS
from aggregator.metrics.structural import build_registry
from tests.scorecard_rows import evaluate_rows, item, row

NAMES = [name for name, *_ in PLACEHOLDERS]
GOLD = [item("본품#품질", "맛", "positive")]


def test_the_five_columns_are_declared_as_not_computed() -> None:
    registry = build_registry(("placeholders",))
    assert NAMES == ["generalized_f1_theta", "generalized_precision_theta", "generalized_recall_theta",
                     "conditional_improvement_gain_hf_disagree", "conditional_improvement_gain_hf_agree"]
    for name in NAMES:
        metric = registry[name]
        assert metric.family == "placeholders" and metric.compat and "not computed" in metric.compat


@pytest.mark.parametrize("gold", [GOLD, None])
def test_always_blank(tmp_path: Path, gold: list[dict[str, str]] | None) -> None:
    # with gold (a perfect sample, where any real F1 would be 1.0) and without gold: blank either way
    metrics = evaluate_rows(tmp_path, [row("k1", gold=gold, final=GOLD)], families=("placeholders",)).metrics
    assert [metrics[name] for name in NAMES] == [None] * 5
    assert metrics["tuple_f1_explicit"] == (1.0 if gold else None)  # the family's three other columns are the core's
