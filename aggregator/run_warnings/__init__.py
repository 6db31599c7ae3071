"""Coded warnings: a run's outputs that look like results but cannot be read as one.

Every code is declared once (:class:`~aggregator.run_warnings.declare.WarningCode`); the core
codes are in :mod:`aggregator.run_warnings.core`, and a metric family adds its own in its
``Family.warnings`` (checked when the family is in force). ``docs/warnings.md`` is generated
from the declarations (``python -m aggregator.run_warnings.docs``). Importing this package
does not import Polars.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING

from aggregator.run_warnings import core
from aggregator.run_warnings.declare import (
    CheckInput,
    Finding,
    RaisedWarning,
    RunWarnings,
    UnknownWarningCode,
    WarningCode,
    WarningRegistry,
)

if TYPE_CHECKING:
    import polars as pl

    from aggregator.metrics.family import Family
    from aggregator.metrics.registry import Registry
    from aggregator.metrics.values import MetricValue

__all__ = [
    "WARNINGS", "CheckInput", "Finding", "RaisedWarning", "RunWarnings", "UnknownWarningCode", "WarningCode",
    "WarningRegistry", "all_warnings", "build_warnings", "check_run", "known_codes",
]


def build_warnings(families: Iterable[Iterable[WarningCode]] = ()) -> WarningRegistry:
    """The core codes, then each family's, in order; a code declared twice is refused."""
    registry = WarningRegistry()
    core.declare(registry)
    for codes in families:
        registry.extend(codes)
    return registry


WARNINGS = build_warnings()
"""The core codes (no family loaded)."""


@cache
def _for_families(families: tuple[Family, ...]) -> WarningRegistry:
    return build_warnings(f.warnings for f in families)


def all_warnings() -> WarningRegistry:
    """The core codes and those of every metric family (loads the families)."""
    from aggregator.metrics.families import resolve

    return _for_families(resolve(None))


def known_codes(codes: Sequence[str]) -> tuple[str, ...]:
    """Codes as declared (case and ``-``/``_`` as typed do not matter); :class:`UnknownWarningCode`
    for a code no warning declares. The families are loaded only for a code the core does not declare."""
    wanted = [code.strip().lower().replace("-", "_") for code in codes]
    if all(code in WARNINGS.codes for code in wanted):
        return tuple(wanted)
    declared = all_warnings()
    return tuple(declared[code].code for code in wanted)


def check_run(
    table: pl.DataFrame,
    metrics: Mapping[str, MetricValue],
    counts: Mapping[str, int] | None = None,
    allow: Iterable[str] = (),
    registry: Registry | None = None,
    families: Sequence[Family] = (),
    profile_unmatched: str | None = None,
) -> RunWarnings:
    """The warnings of a run from its per-sample table (after ``--profile``) and its metrics: the
    core's and those of ``families``; affected columns are looked up in ``registry`` (default: the
    core registry). Codes in ``allow`` are raised but silenced (:attr:`RunWarnings.allowed`).
    ``profile_unmatched``: the ``--profile`` that matched no row (every row was aggregated)."""
    if registry is None:
        from aggregator.metrics.structural import STRUCTURAL

        registry = STRUCTURAL

    run = CheckInput(table, metrics, counts or {}, profile_unmatched)
    return _for_families(tuple(families)).check(run, registry, allow)
