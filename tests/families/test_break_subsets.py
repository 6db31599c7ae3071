"""Break-rate subsets (DIAGNOSTICS.md family 4): each refpol break in one class; the classes sum to break_rate."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.scorecard_rows import evaluate_rows, item, row

if TYPE_CHECKING:
    import polars as pl

REF = "본품#품질"
EXPLICIT, IMPLICIT = [item(REF, "맛", "positive")], [item(REF, "", "positive")]
WRONG = [item(REF, "맛", "negative")]
CLASSES = ("implicit", "negation", "simple")


def risks(*ids: str, stage: str = "stage1") -> list[dict[str, Any]]:
    return [{"stage": stage, "structural_risks": [{"risk_id": i} for i in ids]}]


def evaluate(tmp_path: Path, rows: list[dict[str, Any]]) -> tuple[dict[str, object], pl.DataFrame]:
    run = evaluate_rows(tmp_path / "run", rows, families=("break_subsets",))
    return run.metrics, run.table


def six_rows() -> list[dict[str, Any]]:
    return [
        # break (S1 right, S2 wrong under refpol); gold has an implicit tuple -> implicit, although nc = 1
        row("k1", gold=IMPLICIT, stage1=IMPLICIT, final=[item(REF, "", "negative")], validator=risks("NEGATION_SCOPE")),
        # break; explicit gold; "contrast_scope" upper-cased contains CONTRAST -> nc = 1 -> negation
        row("k2", gold=EXPLICIT, stage1=EXPLICIT, final=WRONG, validator=risks("contrast_scope", stage="stage2")),
        # break; explicit gold; a risk that is neither -> nc = 0 -> simple
        row("k3", gold=EXPLICIT, stage1=EXPLICIT, final=WRONG, validator=risks("OTHER")),
        row("k4", gold=EXPLICIT, stage1=EXPLICIT, final=EXPLICIT),  # keep
        row("k5", gold=EXPLICIT, stage1=WRONG, final=WRONG),  # still: in no denominator
        row("k6", stage1=EXPLICIT, final=WRONG, validator=risks("NEGATION")),  # no gold
    ]


def test_per_sample_class_inputs(tmp_path: Path) -> None:
    _, table = evaluate(tmp_path, six_rows())
    got = table.select("sample_key", "gold_has_empty_term", "nc", "refpol_transition").rows()
    assert got == [("k1", True, 1, "break"), ("k2", False, 1, "break"), ("k3", False, 0, "break"),
                   ("k4", False, 0, "keep"), ("k5", False, 0, "still"), ("k6", False, 1, "still")]


def test_rates(tmp_path: Path) -> None:
    metrics, _ = evaluate(tmp_path, six_rows())
    assert metrics["break_rate"] == pytest.approx(3 / 4)  # 3 breaks, 1 keep
    for kind in CLASSES:
        assert metrics[f"break_rate_{kind}"] == pytest.approx(1 / 4)  # one break of each class
        assert metrics[f"break_rate_{kind}_refpol"] == metrics[f"break_rate_{kind}"]


def test_gold_term_emptied_by_normalization_is_implicit(tmp_path: Path) -> None:
    gold = [item(REF, "()", "positive")]  # "()" normalizes to ""
    metrics, table = evaluate(tmp_path, [row("k1", gold=gold, stage1=gold, final=[item(REF, "()", "negative")])])
    assert table.get_column("gold_has_empty_term").to_list() == [True]
    assert (metrics["break_rate_implicit"], metrics["break_rate_negation"], metrics["break_rate_simple"]) == (1.0, 0.0, 0.0)


@pytest.mark.parametrize("rows", [[row("k1", gold=EXPLICIT, stage1=WRONG, final=WRONG)],  # only still: b + k = 0
                                  [row("k1", stage1=EXPLICIT, final=WRONG, validator=risks("NEGATION"))]])  # no gold
def test_blank_without_break_or_keep(tmp_path: Path, rows: list[dict[str, Any]]) -> None:
    metrics, _ = evaluate(tmp_path, rows)
    assert all(metrics[f"break_rate_{kind}{suffix}"] is None for kind in CLASSES for suffix in ("", "_refpol"))


SAMPLE = st.tuples(st.sampled_from([EXPLICIT, IMPLICIT, None]), st.sampled_from([EXPLICIT, IMPLICIT, WRONG]),
                   st.sampled_from([EXPLICIT, IMPLICIT, WRONG]), st.sampled_from([[], risks("NEGATION"), risks("X")]))


def expected_split(samples: list[Any]) -> tuple[dict[str, int], int]:
    """From the inputs alone: every gold is (REF, positive) under refpol (ref and polarity; EXPLICIT and
    IMPLICIT differ only in the term), so a stage is right unless it is WRONG; a break is right then
    wrong, a keep right twice; its class is implicit when the gold is IMPLICIT, else negation when a
    risk is NEGATION, else simple."""
    counts = dict.fromkeys(CLASSES, 0)
    keeps = 0
    for gold, s1, s2, validator in samples:
        if gold is None or s1 is WRONG:
            continue
        if s2 is not WRONG:
            keeps += 1
            continue
        kind = "implicit" if gold is IMPLICIT else "negation" if validator == risks("NEGATION") else "simple"
        counts[kind] += 1
    return counts, sum(counts.values()) + keeps


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(samples=st.lists(SAMPLE, min_size=1, max_size=6))
def test_classes_split_break_rate(tmp_path: Path, samples: list[Any]) -> None:
    rows = [row(f"k{i}", gold=g, stage1=s1, final=s2, validator=v) for i, (g, s1, s2, v) in enumerate(samples)]
    metrics, _ = evaluate(tmp_path, rows)
    counts, denominator = expected_split(samples)
    if not denominator:
        assert all(metrics[f"break_rate_{kind}"] is None for kind in CLASSES) and metrics["break_rate"] is None
        return
    for kind in CLASSES:
        assert metrics[f"break_rate_{kind}"] == pytest.approx(counts[kind] / denominator)
    assert metrics["break_rate"] == pytest.approx(sum(counts.values()) / denominator)
