"""``--sanity-mode gold_gold | pred_pred | ref_split`` (LEGACY.md section 9.2): ``sanity_checks.md`` only.

The subset is the first t = min(n, N_rows) rows in legacy row order (a negative t: all rows but
the last |t|, quirk L17); row indices count from 0 in the subset. ref_split visits a sample's gold
tuples in ascending (ref, term, polarity) order, where the script's order depended on the hash
seed (quirk L18).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from aggregator.legacy.snapshot import sliced
from aggregator.legacy.values import lf_text
from scorecards.normalize import norm_ref

if TYPE_CHECKING:
    import polars as pl

MODES = ("gold_gold", "pred_pred", "ref_split")
REF_CAP = 20


def _gold_gold(subset: pl.DataFrame) -> tuple[list[str], bool]:
    lines = []
    rows = subset.select("has_gold", "legacy_gold_ref_pairs", "attrpol_s2_tp", "attrpol_s2_fn").iter_rows()
    for i, (has_gold, ref_pairs, attr_tp, attr_fn) in enumerate(rows):
        if not has_gold:
            continue
        ref, attr = (1.0 if ref_pairs else 0.0), (1.0 if attr_tp + attr_fn else 0.0)
        if not ref or not attr:
            lines.append(f"FAIL row {i}: ref-pol F1={ref}, ote-pol F1=1.0, attr-pol F1={attr}")
    return lines, not lines


def _ref_split(subset: pl.DataFrame) -> tuple[list[str], bool]:
    refs: list[str] = []
    for gold in subset.get_column("gold_tuples"):
        refs += [ref for ref, _, _ in json.loads(gold) if ref and "#" in ref]
        if len(refs) >= REF_CAP:
            break
    lines, passed = [], True
    for ref in refs[:REF_CAP]:
        norm = norm_ref(ref)
        left, _, right = norm.partition("#")
        left, right = left.strip(), right.strip()
        rejoin = f"{left}#{right}" if right else left
        passed &= rejoin == norm
        lines.append(f"  {ref!r} -> {norm!r} -> rejoin={rejoin!r} {'OK' if rejoin == norm else 'MISMATCH'}")
    return lines, passed


VERDICTS = {
    "gold_gold": "PASS: gold→gold ref-pol/ote-pol/attr-pol F1=1.0",
    "pred_pred": "PASS: pred→pred F1=1.0, delta=0",
    "ref_split": "PASS: ref split/join-back identity",
}


def sanity_checks(rows: pl.DataFrame, mode: str, n: int) -> tuple[bytes, bool]:
    """``sanity_checks.md`` of a mode over its subset, and whether it passed."""
    t = min(n, rows.height)
    subset = sliced(rows, t)
    if mode == "gold_gold":
        lines, passed = _gold_gold(subset)
    elif mode == "ref_split":
        lines, passed = _ref_split(subset)
    else:
        lines, passed = [], True
    verdict = VERDICTS[mode] if passed else "FAIL: see above"
    return lf_text([f"# Sanity Mode: {mode}", "", f"Sample n={t}", "", *lines, verdict]), passed
