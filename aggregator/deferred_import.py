"""A module imported on first use: the command forks its decoders before Polars is loaded.

The metric families' modules ``import polars as pl`` for their declarations, and the decoding
processes need those modules (their row schemas and row functions) but never Polars. When
:func:`defer` has put a :class:`Deferred` stand-in for ``polars`` into ``sys.modules``, importing
the families costs nothing of Polars: the first attribute looked up on the stand-in (``pl.col``,
``pl.DataFrame``) imports the real module, which from then on answers every lookup. So the
command forks its decoders about 0.1 s sooner, they never load Polars, and the main process
loads it while they decode.

Only the command line uses it (:func:`aggregator.commands.main.main`); importing the library changes
nothing in a user's process. The first lookup is guarded by a lock, so two threads asking at
once import the module once (Python 3.11's ``importlib.util.LazyLoader`` has no such lock).
"""

from __future__ import annotations

import importlib
import sys
import threading
from types import ModuleType
from typing import Any

_LOCK = threading.Lock()


class Deferred(ModuleType):
    """Stands in for the module ``name`` until an attribute is first looked up."""

    def __getattr__(self, attribute: str) -> Any:
        real = self.__dict__.get("_real")
        if real is None:
            real = self._import_deferred()
        return getattr(real, attribute)

    def _import_deferred(self) -> ModuleType:
        with _LOCK:
            real = self.__dict__.get("_real")
            if real is None:
                if sys.modules.get(self.__name__) is self:
                    del sys.modules[self.__name__]
                real = importlib.import_module(self.__name__)
                self.__dict__["_real"] = real
        return real


def defer(name: str) -> None:
    """Import ``name`` on its first use from now on (nothing when it is already imported)."""
    if name not in sys.modules:
        sys.modules[name] = Deferred(name)
