"""Which unit a view leads with: the primary unit (Ref-F1), unless a warning makes it unmeasurable.

Every default view (the terminal summaries of ``aggregate RUN`` and ``aggregate compare``, the
headline cards, highlighted unit and sample table of ``report.html``, ``aggregate samples``
without ``--unit``, the first chart of ``comparison_report.html`` and the paper table's default
metrics) asks :func:`lead_unit` and nothing else. The rule: the first unit, in the order
Ref, Surface, Attr, whose final F1 (``tuple_f1_s2<suffix>``) no shown warning declared
``unmeasurable`` (:class:`~aggregator.run_warnings.declare.WarningCode`) marks in any of the runs;
when every unit is so marked, the primary. A unit passed over is named with the codes and how
many runs raised them, in one line (:meth:`Lead.reason`). A unit the user chose (``--unit``) is
obeyed as it is (:func:`chosen_unit`); its values keep their marks.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aggregator.run_warnings.declare import RaisedWarning

ORDER = ("refpol", "otepol", "attrpol")
SUFFIXES = {"refpol": "", "otepol": "_otepol", "attrpol": "_attrpol"}
NAMES = {"refpol": "Ref-F1", "otepol": "Surface-F1", "attrpol": "Attr-F1"}
UNIT_ALIASES = {"ref": "refpol", "surface": "otepol", "attr": "attrpol",
                "refpol": "refpol", "otepol": "otepol", "attrpol": "attrpol"}
"""What ``--unit`` accepts: the names the pages use (ref, surface, attr) and the column prefixes."""


@dataclass(frozen=True)
class Passed:
    """A unit passed over: the codes that make it unmeasurable, raised in ``raised`` of ``runs`` runs."""

    unit: str
    codes: tuple[str, ...]
    raised: int
    runs: int

    def text(self) -> str:
        where = ("this run" if self.runs == 1 else "these runs" if self.raised == self.runs
                 else f"{self.raised} of {self.runs} runs")
        return f"{NAMES[self.unit]} cannot be measured in {where} ({', '.join(self.codes)})"


@dataclass(frozen=True)
class Lead:
    """The unit a view leads with, and the units passed over on the way to it."""

    unit: str = "refpol"
    passed: tuple[Passed, ...] = ()

    @property
    def suffix(self) -> str:
        """The metric-name suffix of the unit (``""`` for Ref-F1)."""
        return SUFFIXES[self.unit]

    @property
    def name(self) -> str:
        return NAMES[self.unit]

    def metric(self, name: str) -> str:
        """``name`` (a Ref-F1 metric such as ``tuple_f1_s2``) for the lead unit."""
        return f"{name}{self.suffix}"

    def order(self) -> tuple[str, ...]:
        """The units, the lead first, then the others in their usual order."""
        return (self.unit, *(u for u in ORDER if u != self.unit))

    def reason(self) -> str | None:
        """One line saying why the view does not lead with Ref-F1 (None when it does, or was told to)."""
        if not self.passed:
            return None
        return "; ".join(p.text() for p in self.passed) + f": showing {self.name}"


def lead_unit(runs: Sequence[Iterable[RaisedWarning]]) -> Lead:
    """The lead unit over ``runs`` (each run's shown warnings); see the module doc."""
    shown = [tuple(warnings) for warnings in runs]
    passed: list[Passed] = []
    for unit in ORDER:
        column = f"tuple_f1_s2{SUFFIXES[unit]}"
        codes: dict[str, None] = {}
        raised = 0
        for warnings in shown:
            found = [w.code for w in warnings if w.unmeasurable and column in w.metrics]
            codes.update(dict.fromkeys(found))
            raised += bool(found)
        if not codes:
            return Lead(unit, tuple(passed))
        passed.append(Passed(unit, tuple(codes), raised, len(shown)))
    return Lead()


def chosen_unit(text: str) -> Lead:
    """The unit named by ``--unit`` (ref, surface, attr or refpol, otepol, attrpol), as chosen."""
    return Lead(UNIT_ALIASES[text.strip().lower()])
