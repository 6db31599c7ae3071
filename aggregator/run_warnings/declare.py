"""How a warning code is declared, and what a raised warning is.

A :class:`WarningCode` holds, in one place, the code a user types after ``--allow``, what it
means, the threshold that raises it, what to do about it, the metrics whose values it makes
unreliable, and the check itself. ``docs/warnings.md`` is generated from the declarations.
Nothing here imports Polars: the command line validates ``--allow`` before its worker
processes are forked, and those must fork before Polars is loaded.
"""

from __future__ import annotations

import difflib
import fnmatch
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl

    from aggregator.metrics.registry import Registry
    from aggregator.metrics.values import MetricValue
    from aggregator.units.lead import Lead


@dataclass(frozen=True)
class CheckInput:
    """What a check reads: the per-sample table after ``--profile``, the run's metrics, the
    oddities the reader counted (e.g. ``polarity_defaulted``) and the ``--profile`` that matched
    no row (``profile_unmatched``; every row was then aggregated)."""

    table: pl.DataFrame
    metrics: Mapping[str, MetricValue]
    counts: Mapping[str, int] = field(default_factory=dict)
    profile_unmatched: str | None = None


@dataclass(frozen=True)
class Finding:
    """A check's verdict when it raises its code: one sentence with the numbers, and how many
    samples (or tuple items) it concerns, when that is one number."""

    message: str
    count: int | None = None


Check = Callable[[CheckInput], Finding | None]


@dataclass(frozen=True)
class WarningCode:
    """One warning, declared once.

    ``metrics``: names or shell-style patterns (``delta_f1*``) of the columns whose values the
    warning makes unreliable; their aliases follow. ``gold_metrics``: every column that needs gold.
    ``unmeasurable``: the marked values are not measurements at all (0 by construction), so a view
    leads with a unit the warning leaves alone (:mod:`aggregator.units.lead`).
    """

    code: str
    title: str
    meaning: str
    threshold: str
    advice: str
    check: Check
    metrics: tuple[str, ...] = ()
    gold_metrics: bool = False
    family: str = "core"
    unmeasurable: bool = False

    def affected(self, registry: Registry) -> list[str]:
        """The registered columns this warning marks, aliases included, in CSV order."""
        chosen = {
            m.name for m in registry if m.alias_of is None
            and ((self.gold_metrics and m.requires_gold) or any(fnmatch.fnmatchcase(m.name, p) for p in self.metrics))
        }
        return [m.name for m in registry if m.name in chosen or m.alias_of in chosen]


@dataclass(frozen=True)
class RaisedWarning:
    """A warning raised for one run: ``{code, message, metrics, count}`` in every output."""

    code: str
    message: str
    metrics: tuple[str, ...]
    count: int | None = None
    unmeasurable: bool = False

    def to_dict(self) -> dict[str, object]:
        return {"code": self.code, "message": self.message, "metrics": list(self.metrics), "count": self.count}


@dataclass(frozen=True)
class RunWarnings:
    """A run's warnings: those ``shown`` and those raised but silenced by ``--allow`` (``allowed``)."""

    shown: tuple[RaisedWarning, ...] = ()
    allowed: tuple[RaisedWarning, ...] = ()

    def marks(self) -> dict[str, list[str]]:
        """``{metric: [codes of the shown warnings that mark it]}``."""
        marked: dict[str, list[str]] = {}
        for warning in self.shown:
            for name in warning.metrics:
                marked.setdefault(name, []).append(warning.code)
        return marked

    def lead(self) -> Lead:
        """The unit this run's default views lead with (:func:`aggregator.units.lead.lead_unit`)."""
        from aggregator.units.lead import lead_unit

        return lead_unit([self.shown])


class UnknownWarningCode(KeyError):
    """A code given to ``--allow`` that no warning declares."""

    def __str__(self) -> str:
        return str(self.args[0])


class WarningRegistry:
    """Warning codes in declaration order; refuses a code declared twice."""

    def __init__(self) -> None:
        self._codes: dict[str, WarningCode] = {}

    def add(self, code: WarningCode) -> WarningCode:
        if code.code in self._codes:
            raise ValueError(f"warning code {code.code!r} is declared twice")
        self._codes[code.code] = code
        return code

    def extend(self, codes: Iterable[WarningCode]) -> None:
        for code in codes:
            self.add(code)

    def __getitem__(self, code: str) -> WarningCode:
        try:
            return self._codes[code]
        except KeyError:
            close = difflib.get_close_matches(code, self._codes, n=1)
            hint = f"; did you mean {close[0]!r}?" if close else f" (codes: {', '.join(self._codes)})"
            raise UnknownWarningCode(f"unknown warning code {code!r}{hint}") from None

    def __iter__(self) -> Iterator[WarningCode]:
        return iter(self._codes.values())

    def __len__(self) -> int:
        return len(self._codes)

    @property
    def codes(self) -> list[str]:
        return list(self._codes)

    def check(self, run: CheckInput, registry: Registry, allow: Iterable[str] = ()) -> RunWarnings:
        """Run every check; a raised code in ``allow`` goes to ``allowed`` instead of ``shown``."""
        allowed = {self[code].code for code in allow}
        shown: list[RaisedWarning] = []
        silenced: list[RaisedWarning] = []
        for declared in self:
            finding = declared.check(run)
            if finding is None:
                continue
            raised = RaisedWarning(declared.code, finding.message, tuple(declared.affected(registry)), finding.count,
                                   declared.unmeasurable)
            (silenced if declared.code in allowed else shown).append(raised)
        return RunWarnings(tuple(shown), tuple(silenced))
