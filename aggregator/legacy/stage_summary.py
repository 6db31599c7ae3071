"""``stage_summary.csv`` and ``stage_summary.md`` (LEGACY.md section 5), from the per-row stage-list
counts of the legacy columns (:mod:`aggregator.legacy.stage_lists`).

The condition and the stage set come from the first row in legacy row order only (quirk L9);
the counts are over all rows. Rates with no item (T = 0) are 0.0.
"""

from __future__ import annotations

from pathlib import PurePath

import polars as pl

from aggregator.legacy.values import delimited, f4, lf_text

COLUMNS = ("condition", "stage", "n_records", "n_tuples_total", "tuples_per_record_mean", "null_aspect_term_rate",
           "null_aspect_ref_rate", "invalid_polarity_rate", "implicit_invalid_pred_rate", "polarity_conflict_rate",
           "parse_fail_rate", "aggregation_order_signature")
STAGE_LIST = {"s0_final": "final", "pre_review": "pre_review", "post_review": "post_review", "final": "final"}
"""Which raw list each stage row reads (``s0_final`` and ``final`` both read FR.final_tuples)."""


def folder(outdir: str) -> PurePath:
    """Where the files go: the parent of ``--outdir`` when its last component is exactly ``metrics``."""
    path = PurePath(outdir)
    return path.parent if path.name == "metrics" else path


def condition(run_id: str) -> str:
    """S0, M1, M0 or unknown, from the first row's run id (``_m2_`` runs are unknown)."""
    lowered = run_id.lower()
    for name in ("s0", "m1", "m0"):
        if f"_{name}_" in lowered or lowered.startswith(f"{name}_"):
            return name.upper()
    return "unknown"


def _ratio(count: int, total: int) -> float:
    return count / total if total else 0.0


def stage_rows(rows: pl.DataFrame, signature: str) -> list[list[object]]:
    """One list of cell values per stage row."""
    first_run = rows.get_column("legacy_run_id")[0]
    cond = condition(first_run)
    single = cond == "S0" or bool(rows.get_column("legacy_skip_review")[0])
    stages = ("s0_final",) if single else ("pre_review", "post_review", "final")
    n = rows.height
    implicit = pl.col("implicit_eligible")
    parse_fail = int(rows.get_column("legacy_parse_fail").sum())
    out: list[list[object]] = []
    for stage in stages:
        p = f"legacy_{STAGE_LIST[stage]}"
        failing = implicit & (~pl.col(f"{p}_x_basic") | pl.col("legacy_parse_fail") | pl.col("implicit_null_fail"))
        sums = rows.select(
            pl.col(f"{p}_items").sum().alias("items"),
            pl.col(f"{p}_null_term").sum().alias("null_term"),
            pl.col(f"{p}_null_ref").sum().alias("null_ref"),
            pl.col(f"{p}_invalid_polarity").sum().alias("invalid"),
            implicit.sum().alias("eligible"),
            failing.sum().alias("failing"),
            pl.col(f"{p}_x_conflict").sum().alias("conflict"),
        ).row(0, named=True)
        items = int(sums["items"])
        out.append([cond, stage, n, items, items / n, _ratio(sums["null_term"], items), _ratio(sums["null_ref"], items),
                    _ratio(sums["invalid"], items), _ratio(sums["failing"], sums["eligible"]), sums["conflict"] / n,
                    parse_fail / n, signature])
    return out


def _md_cell(value: object) -> str:
    return f4(value) if isinstance(value, float) else str(value)


def stage_summary_files(rows: pl.DataFrame, signature: str) -> tuple[bytes, bytes]:
    """``stage_summary.csv`` (W-csv) and ``stage_summary.md`` (LF-text, floats F4)."""
    table = stage_rows(rows, signature)
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(_md_cell(v) for v in row) + " |" for row in table]
    return delimited(COLUMNS, table), lf_text(lines)
