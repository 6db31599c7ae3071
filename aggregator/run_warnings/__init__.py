"""Coded warnings: a run's outputs that look like results but cannot be read as one.

Every code is declared once (:class:`~aggregator.run_warnings.declare.WarningCode`); the core
codes are in :mod:`aggregator.run_warnings.core`, and a metric family adds its own by passing
them to :func:`build_warnings`. ``docs/warnings.md`` is generated from the declarations
(``python -m aggregator.run_warnings.docs``). Importing this package does not import Polars.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
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

__all__ = [
    "WARNINGS", "CheckInput", "Finding", "RaisedWarning", "RunWarnings", "UnknownWarningCode", "WarningCode",
    "WarningRegistry", "build_warnings", "check_run",
]


def build_warnings(families: Iterable[Iterable[WarningCode]] = ()) -> WarningRegistry:
    """The core codes, then each family's, in order; a code declared twice is refused."""
    registry = WarningRegistry()
    core.declare(registry)
    for codes in families:
        registry.extend(codes)
    return registry


WARNINGS = build_warnings()


def check_run(
    table: pl.DataFrame,
    metrics: Mapping[str, object],
    counts: Mapping[str, int] | None = None,
    allow: Iterable[str] = (),
) -> RunWarnings:
    """The warnings of a run from its per-sample table (after ``--profile``) and its metrics;
    codes in ``allow`` are raised but silenced (:attr:`RunWarnings.allowed`)."""
    from aggregator.metrics.structural import STRUCTURAL

    return WARNINGS.check(CheckInput(table, metrics, counts or {}), STRUCTURAL, allow)
