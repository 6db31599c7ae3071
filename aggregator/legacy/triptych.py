"""The per-sample triptych table and its risk details (LEGACY.md sections 6 and 7).

:func:`triptych` builds the 72 columns (then ``text``, ``rq1_bucket``, ``evidence_rationale``)
for every row in legacy row order from the per-sample table: the core's counts and tuple
sources, the families' per-sample values and the ``legacy_*`` columns. The diagnostics files
(:mod:`aggregator.legacy.diagnostics`) read the same frame. Yes/no columns are written 0 / 1.
"""

from __future__ import annotations

import polars as pl

from aggregator.legacy.values import delimited

STAGE1_LABELS = {"stage1_tuples": "stage1_tuples", "process_trace": "trace_atsa", "final": "final_tuples"}
"""The S1 label of each stage-1 source (the fallback to the final set is ``final_tuples`` whatever fed it, L6)."""
FINAL_LABELS = {"final_tuples": "final_tuples", "final_aspects": "final_aspects",
                "inputs_aspect_sentiments": "inputs.aspect_sentiments"}
"""The S2 label of each final source (no final tuple at all: ``inputs.aspect_sentiments``, L6)."""
GUIDED = ("guided", "guided_by_review")
TEXT, DEBUG = ("text",), ("rq1_bucket", "evidence_rationale")


def _flag(expr: pl.Expr) -> pl.Expr:
    return expr.fill_null(False).cast(pl.Int64)


def _labels(column: str, labels: dict[str, str]) -> pl.Expr:
    return pl.col(column).cast(pl.String).replace_strict(labels, return_dtype=pl.String)


def _stripped(column: str) -> pl.Expr:
    """Python's ``str.strip`` of a label column (its few distinct values), null as ``""``."""
    return pl.col(column).cast(pl.String).fill_null("").map_elements(str.strip, return_dtype=pl.String,
                                                                     skip_nulls=False)


def _columns() -> list[pl.Expr]:
    gold = pl.col("has_gold")
    pairs_changed = pl.col("pairs_changed")
    sd_changed = pl.col("sd_changed")
    ctype = pl.col("change_type").cast(pl.String)
    guided = sd_changed & ctype.is_in(GUIDED)
    unguided = (sd_changed & (ctype == "unguided")) | (pairs_changed & ~guided)
    resolved = pl.col("validator_cleared")
    memory_used = pl.col("memory_k") > 0
    gold_type = pl.when(pl.col("n_gold_implicit") > 0).then(pl.lit("implicit")).when(gold).then(pl.lit("explicit")) \
        .otherwise(pl.lit(""))
    otepol = gold & (pl.col("n_s2") > 0)
    tp = pl.col("otepol_s2_tp")
    run_id = pl.col("legacy_run_id").str.to_lowercase()
    return [
        pl.col("legacy_text_id").alias("text_id"),
        pl.col("legacy_uid").alias("uid"),
        pl.col("legacy_run_id").alias("run_id"),
        _stripped("profile").alias("profile"),
        gold_type.alias("gold_type"),
        pl.when(gold_type == "implicit").then(pl.lit("not evaluated for explicit F1")).otherwise(pl.lit(""))
        .alias("f1_eval_note"),
        _labels("stage1_source", STAGE1_LABELS).alias("stage1_tuple_source"),
        pl.col("n_s1").alias("stage1_n_pairs"),
        pl.col("legacy_stage1_pairs").alias("stage1_pairs"),
        _labels("final_source", FINAL_LABELS).alias("final_tuple_source"),
        pl.col("n_s2").alias("final_n_pairs"),
        pl.col("legacy_final_pairs").alias("final_pairs"),
        pl.col("n_s2").alias("final_n_pairs_raw"),
        pl.col("legacy_final_pairs").alias("final_pairs_raw"),
        pl.lit(0, dtype=pl.Int64).alias("final_n_pairs_after_rep"),
        pl.lit("").alias("final_pairs_after_rep"),
        pl.col("legacy_gold_source").cast(pl.String).alias("gold_tuple_source"),
        pl.col("legacy_gold_ref_pairs").alias("gold_n_pairs"),
        pl.col("legacy_gold_pairs").alias("gold_pairs"),
        pl.col("n_gold_explicit").alias("gold_n_explicit_pairs"),
        pl.col("n_gold_implicit").alias("gold_n_implicit_pairs"),
        gold_type.alias("gold_audit_verdict"),
        (pl.col("n_s2") - pl.col("n_s1")).alias("delta_pairs_count"),
        _flag(pairs_changed).alias("stage1_to_final_changed"),
        _flag(sd_changed).alias("stage1_to_final_changed_from_delta"),
        _flag(pairs_changed).alias("drift_any_change"),
        _flag(pl.col("drift_conflict_relevant")).alias("drift_conflict_relevant_change"),
        _flag(guided).alias("guided_change"),
        _flag(unguided).alias("unguided_drift"),
        pl.col("refpol_s1_tp").alias("matches_stage1_vs_gold"),
        pl.col("refpol_s2_tp").alias("matches_final_vs_gold"),
        pl.when(otepol).then(tp).alias("matches_final_vs_gold_otepol"),
        pl.when(otepol).then(tp + pl.col("otepol_s2_fn")).alias("gold_n_pairs_otepol"),
        pl.when(otepol).then(tp + pl.col("otepol_s2_fp")).alias("final_n_pairs_otepol"),
        _flag(gold & (pl.col("refpol_transition") == "fix")).alias("fix_flag"),
        _flag(gold & (pl.col("refpol_transition") == "break")).alias("break_flag"),
        _flag(pl.col("s1_ref_filled") == pl.col("s1_ref_valid")).alias("stage1_schema_valid_flag"),
        _flag(pl.col("s2_ref_filled") == pl.col("s2_ref_valid")).alias("final_schema_valid_flag"),
        _flag(pl.col("implicit_invalid")).alias("implicit_invalid_flag"),
        pl.col("legacy_new_correct").alias("new_correct_in_final"),
        pl.col("refpol_s2_fp").alias("new_wrong_in_final"),
        _flag(pl.col("risk_flagged")).alias("risk_flagged"),
        _flag(pl.col("stage1_risk")).alias("stage1_structural_risk"),
        _flag(pl.col("stage2_risk")).alias("stage2_structural_risk"),
        _flag(resolved).alias("risk_resolution"),
        _flag(pl.col("polarity_conflict")).alias("polarity_conflict_raw"),
        _flag(pl.col("polarity_conflict")).alias("polarity_conflict_after_rep"),
        _flag(pl.col("stage_mismatch")).alias("stage_mismatch"),
        _flag(pl.col("unsupported_polarity_legacy")).alias("unsupported_polarity"),
        _flag(pl.col("legacy_ate_hallucination")).alias("aspect_hallucination"),
        pl.col("alignment_failure_drops").alias("alignment_failure_count"),
        pl.col("legacy_s1_risk_ids").alias("validator_s1_risk_ids"),
        pl.col("legacy_s2_risk_ids").alias("validator_s2_risk_ids"),
        pl.col("moderator_stage").cast(pl.String).alias("moderator_selected_stage"),
        pl.col("legacy_moderator_rules").alias("moderator_rules"),
        pl.when(pairs_changed).then(pl.col("drift_cause").cast(pl.String)).otherwise(pl.lit("")).alias("drift_cause_tag"),
        _flag(pl.col("legacy_stage2_adopted_no_change")).alias("stage2_adopted_but_no_change"),
        _flag(pairs_changed & guided & resolved).alias("episodic_memory_effect"),
        _flag(run_id.str.contains("c2", literal=True) | run_id.str.contains("c3", literal=True) | memory_used)
        .alias("memory_enabled"),
        _flag(memory_used).alias("memory_retrieved"),
        _flag(pl.col("memory_injected")).alias("memory_injected"),
        _flag(pl.col("legacy_memory_exposed")).alias("memory_exposed_to_debate"),
        pl.col("memory_k").alias("memory_retrieved_n"),
        _flag(memory_used).alias("memory_used"),
        pl.col("legacy_memory_chars").alias("memory_injected_chars"),
        pl.col("legacy_memory_ids").alias("memory_ids_or_hash"),
        pl.col("legacy_memory_blocked_episode_n").alias("memory_blocked_episode_n"),
        pl.col("legacy_memory_blocked_advisory_n").alias("memory_blocked_advisory_n"),
        pl.col("legacy_memory_block_reason").alias("memory_block_reason"),
        pl.col("sev1").alias("risk_before_sum"),
        pl.col("sev2").alias("risk_after_sum"),
        (pl.col("sev2") - pl.col("sev1")).alias("risk_delta_sum"),
        pl.col("legacy_text").alias("text"),
        pl.col("rq1").cast(pl.String).alias("rq1_bucket"),
        pl.col("legacy_evidence").alias("evidence_rationale"),
    ]


def triptych(rows: pl.DataFrame) -> pl.DataFrame:
    """Every triptych column (the 72, then ``text`` and the two debug columns) of ``rows``, in their order."""
    return rows.select(_columns())


def first(frame: pl.DataFrame, limit: int) -> pl.DataFrame:
    """The first ``limit`` rows; all rows when ``limit`` ≤ 0 (quirk L17)."""
    return frame if limit <= 0 else frame.head(limit)


def triptych_file(frame: pl.DataFrame, *, as_csv: bool, include_text: bool, include_debug: bool) -> bytes:
    """The triptych as CSV or TSV (W-csv): the 72 columns, ``text`` when asked, then the debug columns."""
    dropped = (*(() if include_text else TEXT), *(() if include_debug else DEBUG))
    shown = frame.drop(dropped)
    return delimited(shown.columns, shown.iter_rows(), "," if as_csv else "\t")


def risk_details(rows: pl.DataFrame) -> bytes:
    """``triptych_risk_details.jsonl``: one JSON line per row, each ending with LF."""
    lines = rows.get_column("legacy_risk_details").to_list()
    return "".join(f"{line}\n" for line in lines).encode("utf-8")
