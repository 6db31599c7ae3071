"""What ``aggregate RUN`` prints: a few headline lines and its warnings, or what ``--json`` shows of a run."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from aggregator.outputs.cells import markdown_cell

if TYPE_CHECKING:
    from aggregator.run.pipeline import RunEvaluation



def summary_lines(evaluation: RunEvaluation) -> list[str]:
    """Run, rows, and per unit: F1 S1 -> S2 (ΔF1), fix and break rates, each with its count over its
    denominator (fix / (fix + still), break / (break + keep), samples with gold); a unit whose final
    F1 a warning makes unreliable ends with the warning's code in brackets. The unit the run leads
    with comes first (:mod:`aggregator.units.lead`), and a line says why when it is not Ref-F1."""
    from aggregator.metrics.exprs import transition_counts
    from aggregator.units.lead import NAMES, SUFFIXES

    m = evaluation.metrics
    moves = transition_counts(evaluation.table)
    marks = evaluation.run_warnings.marks()
    lead = evaluation.run_warnings.lead()
    lines = [f"{', '.join(evaluation.run_ids)}: {m['n']} rows, {m['N_gold']} with gold"]
    if lead.reason():
        lines.append(f"  {lead.reason()}")
    for unit, label, suffix in ((u, NAMES[u], SUFFIXES[u]) for u in lead.order()):
        delta = m[f"delta_f1{suffix}"]
        delta_text = "N/A" if delta is None else f"{delta:+.4f}"
        codes = marks.get(f"tuple_f1_s2{suffix}", [])
        fix, still, brk, keep = (moves[unit][k] for k in ("fix", "still", "break", "keep"))
        lines.append(
            f"  {label:<11} S1 {markdown_cell(m[f'tuple_f1_s1{suffix}'])} -> S2 {markdown_cell(m[f'tuple_f1_s2{suffix}'])}"
            f"  (Δ {delta_text})  fix {markdown_cell(m[f'fix_rate{suffix}'])} ({fix}/{fix + still})"
            f"  break {markdown_cell(m[f'break_rate{suffix}'])} ({brk}/{brk + keep})"
            + (f"  [{', '.join(codes)}]" if codes else "")
        )
    return lines


Raised = tuple[str, str, str]
"""A shown warning of a run: ``(run, code, message)``."""


def raised(evaluation: RunEvaluation) -> list[Raised]:
    """The run's shown warnings as ``(run, code, message)``."""
    run = ", ".join(evaluation.run_ids)
    return [(run, w.code, w.message) for w in evaluation.run_warnings.shown]


def warning_lines(evaluation: RunEvaluation) -> list[str]:
    """One line per shown warning: ``run: code: message``."""
    return batch_warning_lines([raised(evaluation)])


def batch_warning_lines(runs: Sequence[Sequence[Raised]], *, quiet: bool = False) -> list[str]:
    """The warnings of ``runs`` (each aggregated run's, in order), one line per code, in the order
    first raised: ``run: code: message`` for a code one run raised, ``code in K of N runs: message
    (first run; ...)`` for a code several raised (their messages differ only in their numbers), and
    with ``quiet`` the codes and counts only (``code in K of N runs``)."""
    by_code: dict[str, list[tuple[str, str]]] = {}
    for found in runs:
        for run, code, message in found:
            by_code.setdefault(code, []).append((run, message))
    total = f"{len(runs)} run" + ("s" if len(runs) != 1 else "")
    lines = []
    for code, hits in by_code.items():
        counted = f"{code} in {len(hits)} of {total}"
        first_run, first_message = hits[0]
        if quiet:
            lines.append(counted)
        elif len(hits) == 1:
            lines.append(f"{first_run}: {code}: {first_message}")
        else:
            lines.append(f"{counted}: {first_message} (numbers of {first_run}; each run's in its run_metadata.json)")
    return lines


def metrics_payload(evaluation: RunEvaluation) -> dict[str, object]:
    """What ``--json`` shows of a run: ``{"run_ids", "input", "rows_aggregated", "rows_skipped",
    "warnings", "warnings_allowed", "absent_fields", "lead_unit", "lead_reason", "metrics", "intervals"}``;
    each warning ``{code, message, metrics, count}``; ``absent_fields``: the columns whose optional input
    field no row carries; ``lead_unit`` / ``lead_reason``: the unit the default views lead with and why
    (:mod:`aggregator.units.lead`); ``intervals``: :func:`aggregator.run.intervals.intervals_payload`."""
    from aggregator.run.intervals import intervals_payload

    lead = evaluation.run_warnings.lead()
    return {
        "run_ids": evaluation.run_ids,
        "input": str(evaluation.input_path),
        "rows_aggregated": evaluation.rows_aggregated,
        "rows_skipped": len(evaluation.skipped),
        "warnings": [w.to_dict() for w in evaluation.run_warnings.shown],
        "warnings_allowed": [w.to_dict() for w in evaluation.run_warnings.allowed],
        "absent_fields": [name for name in evaluation.metrics if name in evaluation.absent],
        "lead_unit": lead.unit,
        "lead_reason": lead.reason(),
        "metrics": evaluation.metrics,
        "intervals": intervals_payload(evaluation),
    }
