"""The package version, read from the installed distribution."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("absa-aggregator")
except PackageNotFoundError:
    __version__ = "0.0.0+unknown"
