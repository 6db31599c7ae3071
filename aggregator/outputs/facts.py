"""The facts a run's outputs state beside its metrics: which run, from which input, how many rows.

Assembled once here, from the :class:`~aggregator.run.pipeline.RunEvaluation`, and rendered by
both the Markdown table (:mod:`aggregator.outputs.markdown`) and the HTML report
(:mod:`aggregator.report.run_report`). Names that come from the input are kept apart from
the tool's own words, so that each format escapes them its own way (:mod:`aggregator.text`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from aggregator.text import shown_path

if TYPE_CHECKING:
    from aggregator.run.pipeline import RunEvaluation


@dataclass(frozen=True)
class Fact:
    """``label: names note``: ``names`` come from the input (shown as code), ``note`` is the tool's."""

    label: str
    names: tuple[str, ...] = ()
    note: str = ""


def run_facts(evaluation: RunEvaluation) -> list[Fact]:
    """Run ids, input file, rows aggregated (with gold), profile and skipped lines when there are any."""
    facts = [
        Fact("Run", tuple(evaluation.run_ids)),
        Fact("Input", (shown_path(evaluation.input_path.name),), "(SHA-256 in run_metadata.json)"),
        Fact("Rows aggregated", note=f"{evaluation.rows_aggregated}; with gold: {evaluation.metrics['N_gold']}"),
    ]
    if evaluation.profile:
        fallback = "(matched no row: every row aggregated, as the research tool did)"
        facts.append(Fact("Profile", (evaluation.profile,), fallback if evaluation.profile_fallback else ""))
    facts += [Fact("Side file", (name,), "read" if used else "absent") for name, used in evaluation.side_files.items()]
    if evaluation.skipped:
        facts.append(Fact("Bad lines skipped", note=f"{len(evaluation.skipped)} (see run_metadata.json)"))
    return facts
