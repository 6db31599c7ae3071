"""The package version (pyproject reads it from here)."""

__version__ = "0.1.0"
