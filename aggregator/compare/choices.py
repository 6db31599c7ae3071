"""What a comparison's options choose: the runs it needs, the baseline, the contrasts, the shown metrics."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from aggregator.metrics.structural import STRUCTURAL
from scorecards.errors import InputError

if TYPE_CHECKING:
    from aggregator.compare.runs import Run, SkippedRun
    from aggregator.units.lead import Lead


def baseline(requested: str | None, names: list[str], runs: Sequence[Run]) -> str:
    if requested is None:
        return names[0]
    if requested in names:
        return requested
    by_run = {r.run_id: r.condition for r in runs}
    if requested in by_run:
        return by_run[requested]
    raise InputError(f"--baseline {requested!r}: no such condition or run (conditions: {', '.join(names)})")


def pairs(names: list[str], baseline: str, extra: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    pairs = [(baseline, name) for name in names if name != baseline]
    for a, b in extra:
        for name in (a, b):
            if name not in names:
                raise InputError(f"--contrast {a}:{b}: no condition {name!r} (conditions: {', '.join(names)})")
        if a == b:
            raise InputError(f"--contrast {a}:{b}: a condition against itself")
        if (a, b) not in pairs:
            pairs.append((a, b))
    return pairs


def enough(runs: Sequence[Run], skipped: Sequence[SkippedRun]) -> None:
    """A comparison needs two runs or more (:class:`InputError` with what to do instead)."""
    if len(runs) >= 2:
        return
    left = f" left after --skip-bad-runs ({len(skipped)} skipped)" if skipped else ""
    named = ", ".join(r.run_id for r in runs)
    raise InputError(f"compare: {len(runs)} run{left} ({named}); a comparison needs two or more: for one run's "
                     "metrics and intervals run `aggregate RUN`; to compare two runs of one condition, give both "
                     "(with --each-run to pair them run against run)")


def shown_metrics(requested: Sequence[str] | None, lead: Lead) -> list[str]:
    """The metrics of the readable tables: ``requested`` (checked against the registry) or the headline
    set, the lead unit's metrics first (:mod:`aggregator.units.lead`)."""
    from aggregator.compare.tables import headline
    from aggregator.metrics.registry import UnknownMetric

    if requested is None:
        return headline(lead)
    for name in requested:
        try:
            STRUCTURAL[name]
        except UnknownMetric as exc:
            raise InputError(f"--metrics: {exc.args[0]}") from None
    return list(requested)
