"""``--diagnostics_dir`` and ``--sanity_check`` (LEGACY.md section 8): the B1 check and five files.

Every file is over all rows in legacy row order (LRO), from the triptych frame
(:func:`aggregator.legacy.triptych.triptych`) and the per-sample table beside it.
"""

from __future__ import annotations

import math

import polars as pl

from aggregator.legacy.values import delimited

SUMMARY = "drift_cause_summary.md"
FILES = ("tuple_source_coverage.csv", "inconsistency_flags.tsv", "drift_cause_breakdown.tsv", SUMMARY,
         "memory_usage_summary.csv")
B1_FAILURE = ("Sanity check FAIL: row {row} gold→gold F1=0.0 (expected 1.0)",
              "Sanity check FAIL: scoring/normalization/extraction path conflict. Aborting.")
B1_PASSED = "Sanity check passed: gold→gold, stage1→stage1, and final→final F1=1."


def b1_failure(rows: pl.DataFrame) -> int | None:
    """The index (in LRO) of the first row whose gold is non-empty but has no ref pair: its refpol
    self-F1 is 0. None when no row fails."""
    failing = (rows.get_column("has_gold") & (rows.get_column("legacy_gold_ref_pairs") == 0)).arg_true()
    return int(failing[0]) if len(failing) else None


def _share(count: int, total: int) -> float:
    return count / total


def coverage(table: pl.DataFrame, folder: str) -> bytes:
    """``tuple_source_coverage.csv``: one row for the input folder (IFN)."""
    n = table.height
    counts = [
        int((table.get_column("final_tuple_source") == "inputs.aspect_sentiments").sum()),
        int((table.get_column("stage1_tuple_source") == "trace_atsa").sum()),
        int((table.get_column("gold_tuple_source") == "").sum()),
    ]
    header = ["run_id", "n_total", "final_fallback_aspect_sentiments_rate", "stage1_fallback_trace_atsa_rate",
              "gold_missing_rate", "final_fallback_aspect_sentiments_count", "stage1_fallback_trace_atsa_count",
              "gold_missing_count"]
    return delimited(header, [[folder, n, *(_share(c, n) for c in counts), *counts]])


INCONSISTENCY = ["text_id", "flag_delta_nonzero_changed_zero", "flag_changed_one_delta_zero",
                 "flag_stage2_no_guided_unguided", "flag_risk_resolution_but_stage2_risk", "delta_pairs_count",
                 "stage1_to_final_changed", "stage_delta_changed", "guided_change", "unguided_drift",
                 "moderator_selected_stage", "risk_resolution", "stage2_structural_risk"]


def inconsistency_flags(trip: pl.DataFrame, rows: pl.DataFrame) -> bytes:
    """``inconsistency_flags.tsv``: the rows raising a flag; flag d can never be raised (quirk L15)."""
    changed = pl.col("stage1_to_final_changed") == 1
    frame = trip.with_columns(rows.get_column("legacy_sd_changed_raw").alias("stage_delta_changed")).select(
        "text_id",
        ((pl.col("delta_pairs_count") != 0) & ~changed).cast(pl.Int64).alias("flag_delta_nonzero_changed_zero"),
        (changed & (pl.col("drift_cause_tag") == "stage_delta_missing")).cast(pl.Int64)
        .alias("flag_changed_one_delta_zero"),
        ((pl.col("moderator_selected_stage").str.to_lowercase() == "stage2") & (pl.col("guided_change") == 0)
         & (pl.col("unguided_drift") == 0) & (pl.col("stage2_adopted_but_no_change") == 0)).cast(pl.Int64)
        .alias("flag_stage2_no_guided_unguided"),
        ((pl.col("risk_resolution") == 1) & (pl.col("stage2_structural_risk") == 1)).cast(pl.Int64)
        .alias("flag_risk_resolution_but_stage2_risk"),
        *INCONSISTENCY[5:],
    )
    raised = frame.filter(pl.sum_horizontal(INCONSISTENCY[1:5]) > 0)
    return delimited(INCONSISTENCY, raised.iter_rows(), "\t")


BREAKDOWN = ["text_id", "drift_cause_tag", "moderator_selected_stage", "stage1_to_final_changed_from_delta",
             "stage2_adopted_but_no_change", "guided_change", "unguided_drift", "memory_retrieved", "memory_used",
             "run_id"]


def drift_breakdown(trip: pl.DataFrame) -> bytes:
    """``drift_cause_breakdown.tsv``: the rows whose pairs changed; ``stage_delta_changed`` here is the
    0/1 truthiness (triptych column 25), not the raw value of the flags file (quirk L16)."""
    rows = trip.filter(pl.col("stage1_to_final_changed") == 1).select(BREAKDOWN)
    header = [*BREAKDOWN[:3], "stage_delta_changed", *BREAKDOWN[4:]]
    return delimited(header, rows.iter_rows(), "\t")


def drift_summary(trip: pl.DataFrame) -> bytes:
    """``drift_cause_summary.md``; the C2 block when the first row's run id contains ``c2`` (quirk L13)."""
    changed = trip.filter(pl.col("stage1_to_final_changed") == 1)
    tags = changed.get_column("drift_cause_tag")
    selected, same, missing = (int((tags == tag).sum())
                               for tag in ("stage2_selected", "same_stage_tuples_differ", "stage_delta_missing"))
    used = int(changed.get_column("memory_used").sum())
    retrieved = int(changed.get_column("memory_retrieved").sum())
    lines = [
        "# Drift cause decomposition (stage1_to_final_changed=1)",
        "",
        "| drift_cause_tag | 설명 | count |",
        "|-----------------|------|-------|",
        f"| **stage2_selected** | Stage2 선택으로 변경 (Moderator selected stage2) | {selected} |",
        f"| **same_stage_tuples_differ** | 동일 stage 선택인데 tuples 변경 (정규화/중복/추출경로 차이) | {same} |",
        f"| **stage_delta_missing** | stage_delta 미기록 (B-type inconsistency) | {missing} |",
        "",
        f"**Total samples with changed=1**: {changed.height}",
        "",
        "## Memory (retrieved vs injected)",
        "",
        "| metric | 설명 | count (changed=1) |",
        "|--------|------|------------------|",
        f"| drift_cause_memory_used_changed_n (==injected) | changed=1 이면서 memory_injected=1 | {used} |",
        "| drift_cause_memory_retrieved_changed_n | changed=1 이면서 memory_retrieved=1 (C3에서 크면: 검색은 하는데 "
        f"주입 없이 stage2 변화) | {retrieved} |",
    ]
    text = "".join(f"{line}\n" for line in lines)
    if "c2" in trip.get_column("run_id")[0].lower():
        c2 = ["## 메모리 주입 여부 (C2 run, changed=1)", "", "| memory_used (=injected) | count |",
              "|------------------------|-------|", f"| 1 (injected) | {used} |",
              f"| 0 (not injected) | {changed.height - used} |"]
        text += "\n" + "".join(f"{line}\n" for line in c2)
    return text.encode("utf-8")


def percentile(values: list[int], p: float) -> float:
    """Linear interpolation between closest ranks (numpy's default): h = p/100 × (n − 1)."""
    ordered = sorted(values)
    h = p / 100 * (len(ordered) - 1)
    lo = math.floor(h)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (h - lo) * (ordered[hi] - ordered[lo])


def memory_usage(trip: pl.DataFrame, folder: str) -> bytes:
    """``memory_usage_summary.csv``: one row for the input folder (IFN)."""
    n = trip.height
    k = trip.get_column("memory_retrieved_n").to_list()
    used = trip.filter(pl.col("memory_used") == 1)
    u = used.height
    unchanged = int((used.get_column("stage1_to_final_changed") == 0).sum())
    unresolved = int((used.get_column("risk_resolution") == 0).sum())
    header = ["run_id", "n_total", "retrieved_n_p50", "retrieved_n_p90", "memory_used_rate",
              "memory_used_but_changed_zero_rate", "memory_used_but_risk_resolution_zero_rate", "memory_used_count",
              "memory_used_changed_zero_count", "memory_used_risk_resolution_zero_count"]
    row = [folder, n, float(percentile(k, 50)), float(percentile(k, 90)), u / n,
           unchanged / u if u else None, unresolved / u if u else None, u, unchanged, unresolved]
    return delimited(header, [row])


def diagnostics_files(trip: pl.DataFrame, rows: pl.DataFrame, folder: str) -> dict[str, bytes]:
    """The five files of ``--diagnostics_dir``, by name, in the order the script writes them."""
    return {
        FILES[0]: coverage(trip, folder),
        FILES[1]: inconsistency_flags(trip, rows),
        FILES[2]: drift_breakdown(trip),
        FILES[3]: drift_summary(trip),
        FILES[4]: memory_usage(trip, folder),
    }
