"""Provenance and run info (DIAGNOSTICS.md family 1): this tool's version, definitions hash, ordering signature,
the profile fallback and the unused final_aspects path."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

import pytest

from aggregator.metrics.provenance import ORDER_POLICY, policy_hash, policy_text
from aggregator.metrics.structural import build_registry
from aggregator.version import __version__
from tests.scorecard_rows import evaluate_rows, item, row

FINAL = [item("본품#품질", "맛", "positive")]
FAMILIES = ("provenance",)


def aspects_row(key: str, **top: Any) -> dict[str, Any]:
    """A row whose final set comes from final_result.final_aspects."""
    return {"meta": {"text_id": key}, "runtime": {"parsed_output": {"final_result": {"final_aspects": FINAL}}}, **top}


def test_run_info(tmp_path: Path) -> None:
    run = evaluate_rows(tmp_path, [row("k1", gold=FINAL, final=FINAL, profile="p")], families=FAMILIES)
    metrics = run.metrics
    assert metrics["eval_semver"] == __version__
    assert metrics["eval_policy_hash"] == hashlib.sha256(policy_text(run.registry).encode()).hexdigest()[:16]
    assert re.fullmatch(r"[0-9a-f]{16}", metrics["eval_policy_hash"])  # type: ignore[arg-type]
    assert metrics["aggregation_order_signature"] == hashlib.sha1(ORDER_POLICY.encode()).hexdigest()
    assert metrics["profile_filter"] is None  # no --profile
    assert metrics["final_pred_source_aspects_path_unused_flag"] is True  # the one row's final set is final_tuples


def test_policy_hash_follows_the_definitions_in_force() -> None:
    # one line "name: formula" per column, in CSV order: another selection is another text and hash
    provenance_only, with_conflict = build_registry(FAMILIES), build_registry(("provenance", "conflict"))
    assert policy_text(provenance_only).splitlines()[0] == f"n: {provenance_only['n'].formula}"
    assert "polarity_conflict_rate_raw: " in policy_text(with_conflict)
    assert policy_hash(provenance_only) != policy_hash(with_conflict)
    assert policy_hash(provenance_only) == policy_hash(build_registry(FAMILIES))


def test_profile_filter_only_under_the_fallback(tmp_path: Path) -> None:
    rows = [row("k1", final=FINAL, profile="smoke"), row("k2", final=FINAL, profile="paper_main")]
    matched = evaluate_rows(tmp_path / "a", rows, families=FAMILIES, profile="smoke")
    assert matched.metrics["profile_filter"] is None and matched.metrics["n"] == 1
    fallback = evaluate_rows(tmp_path / "b", rows, families=FAMILIES, profile="regression")
    assert fallback.profile_fallback and fallback.metrics["n"] == 2  # matched no row: every row aggregated
    assert fallback.metrics["profile_filter"] == "regression"


@pytest.mark.parametrize(("rows", "unused"), [
    ([row("k1", final=FINAL), aspects_row("k2")], False),  # k2's final set came from final_aspects
    ([row("k1", final=FINAL), {"meta": {"text_id": "k2"}, "inputs": {"aspect_sentiments": FINAL}}], True),
])
def test_final_aspects_path_flag(tmp_path: Path, rows: list[dict[str, Any]], unused: bool) -> None:
    metrics = evaluate_rows(tmp_path, rows, families=FAMILIES).metrics
    assert metrics["N_pred_final_aspects"] == (0 if unused else 1)
    assert metrics["final_pred_source_aspects_path_unused_flag"] is unused


def test_without_gold_every_column_is_filled(tmp_path: Path) -> None:
    metrics = evaluate_rows(tmp_path, [row("k1", final=FINAL)], families=FAMILIES).metrics
    for name in ("eval_semver", "eval_policy_hash", "aggregation_order_signature",
                 "final_pred_source_aspects_path_unused_flag"):
        assert metrics[name] is not None
