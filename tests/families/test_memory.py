"""Memory (DIAGNOSTICS.md family 15): hand-worked scorecards, blank-vs-0 and laws."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aggregator.metrics.structural import build_registry
from tests.scorecard_rows import evaluate_rows, item, row

if TYPE_CHECKING:
    import polars as pl

POS = [item("본품#품질", "맛", "positive")]
FAMILIES = ("memory",)


def evaluate(tmp_path: Path, rows: list[dict[str, Any]]) -> tuple[dict[str, object], pl.DataFrame]:
    run = evaluate_rows(tmp_path / "run", rows, families=FAMILIES)
    return run.metrics, run.table


def mem(**fields: Any) -> dict[str, Any]:
    return fields


def five_rows() -> list[dict[str, Any]]:
    return [
        # k = 2; injected (exposed, 10 chars); trigger " Conflict " -> conflict; stage_delta changed
        row("k1", final=POS, memory=mem(retrieved_k=2, exposed_to_debate=True, prompt_injection_chars=10,
                                        injection_trigger_reason=" Conflict "), stage_delta={"changed": True}),
        # top-level memory {} is falsy -> meta.memory; retrieved_k 0 -> k = len(retrieved_ids) = 3;
        # exposed 1 (truthy), chars "5" -> 5 > 0: injected; not changed
        row("k2", final=POS, memory={}, meta={"memory": mem(retrieved_k=0, retrieved_ids=["a", "b", "c"],
                                                            exposed_to_debate=1, prompt_injection_chars="5",
                                                            injection_trigger_reason="validator")}),
        # retrieved_k "x" -> 0, retrieved_ids not a list -> 0: k = 0; 0 chars: not injected, so its
        # trigger "alignment" is not counted
        row("k3", final=POS, memory=mem(retrieved_k="x", retrieved_ids="ab", exposed_to_debate=True,
                                        prompt_injection_chars=0, injection_trigger_reason="alignment")),
        # retrieved_k 1.9 truncated -> 1; injected; trigger upper case; changed
        row("k4", final=POS, memory=mem(retrieved_k=1.9, exposed_to_debate=True, prompt_injection_chars=3,
                                        injection_trigger_reason="EXPLICIT_GROUNDING_FAILURE"),
            stage_delta={"changed": True}),
        # no memory at all; a truthy memory that is not an object reads as {} (meta.memory not consulted)
        row("k5", final=POS, memory=[1], meta={"memory": mem(retrieved_k=9)}),
    ]


def test_per_sample_building_blocks(tmp_path: Path) -> None:
    _, table = evaluate(tmp_path, five_rows())
    got = table.select("sample_key", "memory_k", "memory_used", "memory_injected", "memory_trigger").rows()
    assert got == [
        ("k1", 2, True, True, "conflict"),
        ("k2", 3, True, True, "validator"),
        ("k3", 0, False, False, None),
        ("k4", 1, True, True, "explicit_grounding_failure"),
        ("k5", 0, False, False, None),
    ]


def test_rates_and_counts(tmp_path: Path) -> None:
    metrics, _ = evaluate(tmp_path, five_rows())
    assert metrics["memory_used_rate"] == pytest.approx(3 / 5)  # k1, k2, k4
    assert metrics["memory_retrieval_mean_k"] == pytest.approx(6 / 5)  # (2 + 3 + 0 + 1 + 0) / 5
    # deviations from 1.2: 0.8, 1.8, -1.2, -0.2, -1.2 -> squares sum 6.8 -> / 5 = 1.36
    assert metrics["memory_retrieval_std_k"] == pytest.approx(math.sqrt(1.36))
    assert metrics["memory_used_changed_rate"] == pytest.approx(2 / 3)  # injected k1, k2, k4; changed k1, k4
    assert metrics["injection_trigger_conflict_n"] == 1
    assert metrics["injection_trigger_validator_n"] == 1
    assert metrics["injection_trigger_alignment_n"] == 0  # k3 is not injected
    assert metrics["injection_trigger_explicit_grounding_failure_n"] == 1


def test_no_memory_gives_zeros_and_one_blank(tmp_path: Path) -> None:
    metrics, _ = evaluate(tmp_path, [row("k1", final=POS, memory=mem(retrieved_k=4, exposed_to_debate=False,
                                                                     prompt_injection_chars=9))])
    assert metrics["memory_used_rate"] == 1.0
    assert metrics["memory_retrieval_mean_k"] == 4.0
    assert metrics["memory_retrieval_std_k"] == 0.0  # one row
    assert metrics["memory_used_changed_rate"] is None  # no injected row
    assert metrics["injection_trigger_conflict_n"] == 0
    metrics, _ = evaluate(tmp_path, [row("k1", final=POS), row("k2", final=POS)])
    assert (metrics["memory_used_rate"], metrics["memory_retrieval_mean_k"], metrics["memory_retrieval_std_k"]) == (0.0, 0.0, 0.0)


MEM = st.fixed_dictionaries({}, optional={
    "retrieved_k": st.sampled_from([0, 1, 3, "2", None, 2.5]),
    "retrieved_ids": st.sampled_from([[], ["a"], ["a", "b"], None, "x"]),
    "exposed_to_debate": st.sampled_from([True, False, 1, None]),
    "prompt_injection_chars": st.sampled_from([0, 5, "7", None]),
    "injection_trigger_reason": st.sampled_from(["conflict", "Validator", "alignment", "", None, 3]),
})


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(samples=st.lists(st.tuples(MEM, st.booleans(), st.booleans()), min_size=1, max_size=6))
def test_rates_are_shares_of_per_sample_flags(tmp_path: Path, samples: list[Any]) -> None:
    rows = [row(f"k{i}", final=POS, stage_delta={"changed": changed}, **({"memory": m} if top else {"meta": {"memory": m}}))
            for i, (m, top, changed) in enumerate(samples)]
    metrics, table = evaluate(tmp_path, rows)
    n, k = table.height, table.get_column("memory_k")
    assert metrics["memory_used_rate"] == pytest.approx((k > 0).sum() / n)
    assert metrics["memory_retrieval_mean_k"] == pytest.approx(k.mean())
    assert metrics["memory_retrieval_std_k"] == pytest.approx(k.std(ddof=0))
    injected = table.get_column("memory_injected")
    both = (injected & table.get_column("sd_changed")).sum()
    assert metrics["memory_used_changed_rate"] == (pytest.approx(both / injected.sum()) if injected.sum() else None)
    assert 0.0 <= metrics["memory_used_rate"] <= 1.0  # type: ignore[operator]
    triggers = sum(metrics[f"injection_trigger_{t}_n"] for t in ("conflict", "validator", "alignment",  # type: ignore[misc]
                                                                  "explicit_grounding_failure"))
    assert triggers <= injected.sum() <= n


def test_absent_memory_is_reported(tmp_path: Path) -> None:
    _, table = evaluate(tmp_path, [row("k1", final=POS), row("k2", final=POS, memory=[1])])
    assert {"memory_used_rate", "injection_trigger_conflict_n"} <= set(build_registry(FAMILIES).absent_fields(table))
    _, table = evaluate(tmp_path, [row("k1", final=POS, meta={"memory": mem(retrieved_k=0)})])
    assert "memory_used_rate" not in build_registry(FAMILIES).absent_fields(table)
