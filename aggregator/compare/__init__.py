"""Multi-run comparison: conditions × seeds, paired statistics, flips and self-consistency.

``compare_runs(paths, ...)`` returns a :class:`ComparisonResult`; ``aggregate compare`` writes
its files. Importing this package is cheap: the heavy modules load on first use, so the
command line's ``--help`` stays fast.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aggregator.compare.api import compare_runs
    from aggregator.compare.result import ComparisonResult

__all__ = ["ComparisonResult", "compare_runs"]


def __getattr__(name: str) -> Any:
    if name == "compare_runs":
        from aggregator.compare.api import compare_runs

        return compare_runs
    if name == "ComparisonResult":
        from aggregator.compare.result import ComparisonResult

        return ComparisonResult
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
