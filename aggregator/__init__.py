"""absa-aggregator: structural metrics and run comparisons for ABSA scorecards.

``from aggregator import aggregate_run, compare_runs`` is the Python API; both load
on first use, so ``import aggregator`` stays cheap. The exceptions they raise are here too:
``InputError`` (unreadable input, ``file:line: reason``; ``BadLineError`` is the one for a bad
line), ``OutputError`` (the output directory cannot be written), ``UnknownMetric``,
``UnknownFamily`` and ``UnknownWarningCode`` (a name that is not declared, with a close match).
"""

from __future__ import annotations

from aggregator.version import __version__

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing
if TYPE_CHECKING:
    from aggregator.api.run import RunResult, aggregate_run
    from aggregator.compare import ComparisonResult, compare_runs
    from aggregator.metrics.families import UnknownFamily
    from aggregator.metrics.registry import UnknownMetric
    from aggregator.outputs.atomic import OutputError
    from aggregator.run_warnings import UnknownWarningCode
    from scorecards.errors import BadLineError, InputError

__all__ = [
    "BadLineError", "ComparisonResult", "InputError", "OutputError", "RunResult", "UnknownFamily", "UnknownMetric",
    "UnknownWarningCode", "__version__", "aggregate_run", "compare_runs",
]

_LAZY = {
    "aggregate_run": "aggregator.api.run",
    "RunResult": "aggregator.api.run",
    "compare_runs": "aggregator.compare",
    "ComparisonResult": "aggregator.compare",
    "InputError": "scorecards.errors",
    "BadLineError": "scorecards.errors",
    "OutputError": "aggregator.outputs.atomic",
    "UnknownMetric": "aggregator.metrics.registry",
    "UnknownFamily": "aggregator.metrics.families",
    "UnknownWarningCode": "aggregator.run_warnings",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
