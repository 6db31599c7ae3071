"""What ``aggregate RUN`` prints: a few headline lines and its warnings, or what ``--json`` shows of a run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from aggregator.outputs.cells import markdown_cell

if TYPE_CHECKING:
    from aggregator.run.pipeline import RunEvaluation

UNIT_ROWS = (("Ref-F1", ""), ("Surface-F1", "_otepol"), ("Attr-F1", "_attrpol"))


def summary_lines(evaluation: RunEvaluation) -> list[str]:
    """Run, rows, and per unit: F1 S1 -> S2 (ΔF1), fix and break rates; a unit whose final F1 a
    warning makes unreliable ends with the warning's code in brackets."""
    m = evaluation.metrics
    marks = evaluation.run_warnings.marks()
    lines = [f"{', '.join(evaluation.run_ids)}: {m['n']} rows, {m['N_gold']} with gold"]
    for label, suffix in UNIT_ROWS:
        delta = m[f"delta_f1{suffix}"]
        delta_text = "N/A" if delta is None else f"{delta:+.4f}"
        codes = marks.get(f"tuple_f1_s2{suffix}", [])
        lines.append(
            f"  {label:<11} S1 {markdown_cell(m[f'tuple_f1_s1{suffix}'])} -> S2 {markdown_cell(m[f'tuple_f1_s2{suffix}'])}"
            f"  (Δ {delta_text})  fix {markdown_cell(m[f'fix_rate{suffix}'])}"
            f"  break {markdown_cell(m[f'break_rate{suffix}'])}" + (f"  [{', '.join(codes)}]" if codes else "")
        )
    return lines


def warning_lines(evaluation: RunEvaluation) -> list[str]:
    """One line per shown warning: ``run: code: message``."""
    run = ", ".join(evaluation.run_ids)
    return [f"{run}: {w.code}: {w.message}" for w in evaluation.run_warnings.shown]


def metrics_payload(evaluation: RunEvaluation) -> dict[str, object]:
    """What ``--json`` shows of a run: ``{"run_ids", "input", "rows_aggregated", "rows_skipped",
    "warnings", "warnings_allowed", "absent_fields", "metrics", "intervals"}``; each warning ``{code,
    message, metrics, count}``; ``absent_fields``: the columns whose optional input field no row
    carries; ``intervals``: :func:`aggregator.run.intervals.intervals_payload`."""
    from aggregator.run.intervals import intervals_payload

    return {
        "run_ids": evaluation.run_ids,
        "input": str(evaluation.input_path),
        "rows_aggregated": evaluation.rows_aggregated,
        "rows_skipped": len(evaluation.skipped),
        "warnings": [w.to_dict() for w in evaluation.run_warnings.shown],
        "warnings_allowed": [w.to_dict() for w in evaluation.run_warnings.allowed],
        "absent_fields": [name for name in evaluation.metrics if name in evaluation.absent],
        "metrics": evaluation.metrics,
        "intervals": intervals_payload(evaluation),
    }
