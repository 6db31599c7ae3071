"""How a command ends on a user's error: one line on stderr and exit status 2, never a traceback.

Skipped bad lines are never silent either: :func:`report_skips` counts them on stderr. Every
line goes through :func:`~aggregator.commands.terminal.say` (non-printable characters escaped).
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn, ParamSpec, TypeVar

from aggregator.commands.terminal import say

P = ParamSpec("P")
R = TypeVar("R")
EXIT_USER_ERROR = 2
EXIT_WARNING = 3
SKIPS_SHOWN = 5


def fail(message: str) -> NoReturn:
    """Print one line to stderr and exit with status 2."""
    say(f"aggregate: error: {message}", err=True)
    sys.exit(EXIT_USER_ERROR)


def user_error(exc: BaseException) -> str | None:
    """The one-line message for an input or output error a user can cause; None for anything else."""
    from concurrent.futures.process import BrokenProcessPool

    from aggregator.outputs.atomic import OutputError
    from scorecards.errors import InputError

    if isinstance(exc, (InputError, OutputError)):
        return str(exc)
    if isinstance(exc, MemoryError):
        return "out of memory; retry with --workers 1 or on a machine with more memory"
    if isinstance(exc, BrokenProcessPool):
        return "a decoding process died (out of memory?); retry with --workers 1"
    if isinstance(exc, OSError):
        where = exc.filename or "the input"
        return f"{where}: cannot read ({exc.strerror or exc}); check the path and its permissions"
    return None


def user_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Turn the input and output errors a user can cause into one-line exits (see :func:`user_error`)."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except Exception as exc:
            message = user_error(exc)
            if message is None:
                raise
            fail(message)

    return wrapper


def report_skips(skipped: Sequence[object], label: str = "") -> None:
    """Skipped lines are never silent: their count and the first few go to stderr."""
    if not skipped:
        return
    say(f"aggregate: skipped {len(skipped)} bad line(s){label}:", err=True)
    for bad in skipped[:SKIPS_SHOWN]:
        say(f"  {bad}", err=True)
    if len(skipped) > SKIPS_SHOWN:
        say(f"  ... and {len(skipped) - SKIPS_SHOWN} more (listed in run_metadata.json)", err=True)
