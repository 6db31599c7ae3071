"""What the CLI prints: a few headline lines, or the metrics as JSON."""

from __future__ import annotations

import json

from aggregator.outputs.cells import markdown_cell
from aggregator.pipeline import RunEvaluation

UNIT_ROWS = (("Ref-F1", ""), ("Surface-F1", "_otepol"), ("Attr-F1", "_attrpol"))


def summary_lines(evaluation: RunEvaluation) -> list[str]:
    """Run, rows, and per unit: F1 S1 -> S2 (ΔF1), fix and break rates."""
    m = evaluation.metrics
    lines = [f"{', '.join(evaluation.run_ids)}: {m['n']} rows, {m['N_gold']} with gold"]
    for label, suffix in UNIT_ROWS:
        delta = m[f"delta_f1{suffix}"]
        delta_text = "N/A" if delta is None else f"{delta:+.4f}"
        lines.append(
            f"  {label:<11} S1 {markdown_cell(m[f'tuple_f1_s1{suffix}'])} -> S2 {markdown_cell(m[f'tuple_f1_s2{suffix}'])}"
            f"  (Δ {delta_text})  fix {markdown_cell(m[f'fix_rate{suffix}'])}"
            f"  break {markdown_cell(m[f'break_rate{suffix}'])}"
        )
    return lines


def metrics_json(evaluation: RunEvaluation) -> str:
    """``{"run_ids": [...], "input": ..., "metrics": {name: value or null}}``."""
    payload = {
        "run_ids": evaluation.run_ids,
        "input": str(evaluation.input_path),
        "rows_aggregated": evaluation.rows_aggregated,
        "rows_skipped": len(evaluation.skipped),
        "metrics": evaluation.metrics,
    }
    return json.dumps(payload, ensure_ascii=False, indent=2)
