"""The coded warnings of a comparison: which runs raise each code, and which values they cover.

Each run is checked as ``aggregate RUN`` checks it (:func:`aggregator.run_warnings.check_run`,
on the run's per-sample table and metrics; codes in ``allow`` are silenced). From them:

- the notes: one per code, naming how many runs raise it, in which conditions (how many of each
  one's runs; "every condition" when every run does) and the message of the first such run. They
  are the comparison's first notes, so ``comparison.md``, the report and ``--json`` all carry them;
- the marks: a condition's value of a metric carries the codes any of its runs raises for that
  metric, a contrast's those of both conditions (the ``warnings`` column of ``conditions.csv``,
  ``paired.csv``, ``subsets.csv`` and ``paper.csv``; ⚠ in the readable tables and charts);
- the unit the comparison's default views lead with (:func:`aggregator.units.lead.lead_unit`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import polars as pl

from aggregator.run_warnings import RaisedWarning, check_run
from aggregator.units.lead import Lead, lead_unit

if TYPE_CHECKING:
    from aggregator.compare.runs import Run

WARNINGS_COLUMN = "warnings"
CONDITIONS_LISTED = 5
"""A code raised in some conditions only names this many of them in its note."""


@dataclass(frozen=True)
class ConditionWarning:
    """A code raised in ``raised`` of a condition's ``runs`` runs; ``first`` is the first run's warning."""

    condition: str
    code: str
    raised: int
    runs: int
    first: RaisedWarning


def run_warnings(run: Run, allow: Iterable[str] = ()) -> tuple[RaisedWarning, ...]:
    counts = {"polarity_defaulted": int(run.table.get_column("polarity_defaulted").sum())}
    return check_run(run.table, run.metrics, counts, allow).shown


@dataclass(frozen=True)
class ComparisonWarnings:
    """The shown warnings of each run (in the order of ``runs``) and the codes covering each value."""

    runs: Sequence[Run]
    shown: Sequence[tuple[RaisedWarning, ...]]
    _marks: dict[str, dict[str, list[str]]] = field(default_factory=dict, repr=False)

    @classmethod
    def check(cls, runs: Sequence[Run], allow: Iterable[str] = ()) -> ComparisonWarnings:
        allowed = tuple(allow)
        shown = [run_warnings(run, allowed) for run in runs]
        marks: dict[str, dict[str, list[str]]] = {}
        for run, warnings in zip(runs, shown):
            mine = marks.setdefault(run.condition, {})
            for warning in warnings:
                for metric in warning.metrics:
                    codes = mine.setdefault(metric, [])
                    if warning.code not in codes:
                        codes.append(warning.code)
        return cls(runs, shown, marks)

    def codes(self, condition: str, metric: str) -> list[str]:
        """The codes covering ``condition``'s value of ``metric``."""
        return list(self._marks.get(condition, {}).get(metric, []))

    def pair_codes(self, a: str, b: str, metric: str) -> list[str]:
        """The codes covering a contrast of ``b`` against ``a``: those of either condition."""
        return list(dict.fromkeys(self.codes(a, metric) + self.codes(b, metric)))

    def lead(self) -> Lead:
        return lead_unit(self.shown)

    def raised(self) -> list[dict[str, object]]:
        """Every shown warning of every run: ``{run_id, condition, code, message, count}``."""
        return [{"run_id": run.run_id, "condition": run.condition, "code": w.code, "message": w.message,
                 "count": w.count} for run, warnings in zip(self.runs, self.shown) for w in warnings]

    def notes(self) -> list[str]:
        """One note per code raised, with how many runs raise it in all and in which conditions (a code every
        run raises: "every condition"), and the message of its first run. Codes that make a unit
        unmeasurable come first."""
        found = condition_warnings(self.runs, self.shown)
        conditions = len({run.condition for run in self.runs})
        notes: list[tuple[bool, str]] = []
        for code in dict.fromkeys(w.code for w in found):
            mine = [w for w in found if w.code == code]
            raised = sum(w.raised for w in mine)
            if raised == len(self.runs):
                where = "every condition"
            else:
                listed = [f"{w.condition}: {w.raised} of {w.runs}" for w in mine[:CONDITIONS_LISTED]]
                more = len(mine) - CONDITIONS_LISTED
                where = "; ".join(listed) + (f"; and {more} more of the {conditions} conditions" if more > 0 else "")
            notes.append((not mine[0].first.unmeasurable,
                          f"Warning {code} in {raised} of {len(self.runs)} runs ({where}); in {mine[0].condition}: "
                          f"{mine[0].first.message} (docs/warnings.md)."))
        return [text for _, text in sorted(notes, key=lambda n: n[0])]

    def with_column(self, frame: pl.DataFrame, kind: str) -> pl.DataFrame:
        """``frame`` (``conditions``, ``subsets`` or ``paired``) with its ``warnings`` column: the codes
        covering each row's value (for a contrast, or a subset row with a Δ, those of both conditions)."""
        if kind == "paired":
            keys = frame.select("condition_a", "condition_b", "metric").iter_rows()
            codes = [self.pair_codes(a, b, m) for a, b, m in keys]
        elif kind == "subsets":
            keys = frame.select("condition", "baseline", "metric").iter_rows()
            codes = [self.pair_codes(c, base, m) if base else self.codes(c, m) for c, base, m in keys]
        else:
            codes = [self.codes(c, m) for c, m in frame.select("condition", "metric").iter_rows()]
        return frame.with_columns(pl.Series(WARNINGS_COLUMN, codes, dtype=pl.List(pl.String)))


def condition_warnings(runs: Sequence[Run], shown: Sequence[tuple[RaisedWarning, ...]]) -> list[ConditionWarning]:
    """Per condition (in the order of ``runs``) and code (in declaration order), the runs raising it."""
    sizes: dict[str, int] = {}
    found: dict[tuple[str, str], list[RaisedWarning]] = {}
    for run, warnings in zip(runs, shown):
        sizes[run.condition] = sizes.get(run.condition, 0) + 1
        for warning in warnings:
            found.setdefault((run.condition, warning.code), []).append(warning)
    return [ConditionWarning(condition, code, len(ws), sizes[condition], ws[0]) for (condition, code), ws in found.items()]
