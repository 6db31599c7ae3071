"""The coded warnings of a comparison, per condition: which of its runs raise each code.

Each run is checked as ``aggregate RUN`` checks it (:func:`aggregator.run_warnings.check_run`,
on the run's per-sample table and metrics); a condition's line names the code, in how many
of its runs it is raised, and the message of the first such run. They are the comparison's
first notes, so the summary, ``comparison.md``, the report and ``--json`` all carry them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from aggregator.run_warnings import RaisedWarning, check_run

if TYPE_CHECKING:
    from aggregator.compare.runs import Run


@dataclass(frozen=True)
class ConditionWarning:
    """A code raised in ``raised`` of a condition's ``runs`` runs; ``first`` is the first run's warning."""

    condition: str
    code: str
    raised: int
    runs: int
    first: RaisedWarning

    def note(self) -> str:
        return (f"Warning {self.code} in {self.raised} of {self.runs} run(s) of {self.condition}: "
                f"{self.first.message} (docs/warnings.md).")


def run_warnings(run: Run) -> tuple[RaisedWarning, ...]:
    counts = {"polarity_defaulted": int(run.table.get_column("polarity_defaulted").sum())}
    return check_run(run.table, run.metrics, counts).shown


def condition_warnings(runs: Sequence[Run]) -> list[ConditionWarning]:
    """Per condition (in the order of ``runs``) and code (in declaration order), the runs raising it."""
    raised = [(run, run_warnings(run)) for run in runs]
    sizes: dict[str, int] = {}
    found: dict[tuple[str, str], list[RaisedWarning]] = {}
    for run, warnings in raised:
        sizes[run.condition] = sizes.get(run.condition, 0) + 1
        for warning in warnings:
            found.setdefault((run.condition, warning.code), []).append(warning)
    return [ConditionWarning(condition, code, len(ws), sizes[condition], ws[0]) for (condition, code), ws in found.items()]


def warning_notes(runs: Sequence[Run]) -> list[str]:
    """One note per condition and code raised; a code every run of every condition raises is one note."""
    found = condition_warnings(runs)
    conditions = {run.condition for run in runs}
    everywhere = {
        code for code in dict.fromkeys(w.code for w in found)
        if {w.condition for w in found if w.code == code and w.raised == w.runs} == conditions
    }
    notes = []
    for warning in found:
        if warning.code not in everywhere:
            notes.append(warning.note())
        elif warning.condition == runs[0].condition or len(conditions) == 1:
            notes.append(f"Warning {warning.code} in all {len(runs)} run(s) of every condition; in {warning.condition}: "
                         f"{warning.first.message} (docs/warnings.md).")
    return notes
