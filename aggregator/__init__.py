"""absa-aggregator: structural metrics and run comparisons for ABSA scorecards."""

from aggregator.version import __version__

__all__ = ["__version__"]
