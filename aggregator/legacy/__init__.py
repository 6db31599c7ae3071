"""The research script ``structural_error_aggregator.py``, replaced (LEGACY.md; docs/migration.md).

``aggregate legacy`` takes its command line and writes its files (:mod:`aggregator.legacy.run`);
the four functions research code imports from it are here (:mod:`aggregator.legacy.api`),
loaded on first use so that importing this package stays cheap::

    from aggregator.legacy import (_extract_stage1_tuples, _extract_final_tuples,
                                   has_stage1_structural_risk, has_stage2_structural_risk)
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from aggregator.legacy.api import (
        _extract_final_tuples,
        _extract_stage1_tuples,
        has_stage1_structural_risk,
        has_stage2_structural_risk,
    )

__all__ = ["_extract_final_tuples", "_extract_stage1_tuples", "has_stage1_structural_risk",
           "has_stage2_structural_risk"]


def __getattr__(name: str) -> object:
    if name in __all__:
        from aggregator.legacy import api

        return getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
