"""Checks of the Python API's arguments: a wrong one raises ``TypeError`` or ``ValueError`` naming it.

The command line checks its options itself (click types); these keep library errors
(Polars, numpy) and silent coercions out of :func:`~aggregator.aggregate_run` and
:func:`~aggregator.compare_runs`.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

MAX_WORKERS = 64


def whole(name: str, value: object, low: int, high: int) -> int:
    """``value`` when it is an int (not a bool) in ``[low, high]``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be a whole number, got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be from {low:,} to {high:,}, got {value:,}")
    return value


def optional_whole(name: str, value: object, low: int, high: int) -> int | None:
    """``value`` when it is None or a :func:`whole` number in ``[low, high]``."""
    return None if value is None else whole(name, value, low, high)


def flag(name: str, value: object) -> bool:
    """``value`` when it is True or False."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, got {value!r}")
    return value


def optional_text(name: str, value: object) -> str | None:
    """``value`` when it is None or a string."""
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{name} must be a string or None, got {value!r}")
    return value


def optional_names(name: str, value: object) -> None:
    """``value`` is None or a list of strings (one string is refused: its characters are not names)."""
    if value is None:
        return
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a list of names or None, got {value!r}")
    for index, item in enumerate(value):
        if not isinstance(item, str):
            raise TypeError(f"{name}[{index}] must be a string, got {item!r}")


def path(name: str, value: object) -> str | os.PathLike[str]:
    """``value`` when it is a path (a string or an ``os.PathLike``)."""
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{name} must be a path (str or os.PathLike), got {value!r}")
    return value


def paths(name: str, value: object) -> list[str | os.PathLike[str]]:
    """A list of paths from one path or a sequence of them (a string is one path, never its characters)."""
    if isinstance(value, (str, os.PathLike)):
        return [value]
    if not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a path or a list of paths, got {value!r}")
    return [path(f"{name}[{index}]", item) for index, item in enumerate(value)]
