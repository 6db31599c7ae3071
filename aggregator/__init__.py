"""absa-aggregator: structural metrics and run comparisons for ABSA scorecards.

``from aggregator import aggregate_run, compare_runs`` is the Python API; both load
on first use, so ``import aggregator`` stays cheap.
"""

from __future__ import annotations

from aggregator.version import __version__

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from aggregator.api import RunResult, aggregate_run
    from aggregator.compare import ComparisonResult, compare_runs

__all__ = ["ComparisonResult", "RunResult", "__version__", "aggregate_run", "compare_runs"]

_LAZY = {
    "aggregate_run": "aggregator.api",
    "RunResult": "aggregator.api",
    "compare_runs": "aggregator.compare",
    "ComparisonResult": "aggregator.compare",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
