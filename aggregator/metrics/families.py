"""The metric families and how a selection of them is put in force.

Each name in :data:`FAMILY_MODULES` is a module ``aggregator.metrics.<name>`` exporting
``FAMILY`` (:class:`~aggregator.metrics.family.Family`). ``core`` (the units, Ref-F1, fix and
break rates, counts and appendix of METRICS.md) is always in force and is not listed here.
A selection is closed over ``requires`` and ordered so that a family comes after the
families it reads.

:data:`OPT_IN` families are put in force only when named: they declare no metric, only
per-sample columns that one output needs (e.g. the research script's files, ``aggregate legacy``),
so that a plain run neither decodes nor holds them.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aggregator.metrics.family import Family

CORE = "core"
FAMILY_MODULES: tuple[str, ...] = (
    "provenance",
    "placeholders",
    "gold_extras",
    "break_subsets",
    "implicit_validity",
    "conflict",
    "grounding",
    "validator",
    "stage_change",
    "review",
    "drift",
    "debate",
    "override",
    "polarity_repair",
    "memory",
    "hf_signal",
    "agreement",
    "errors",
)
OPT_IN: dict[str, str] = {"legacy": "aggregator.legacy.columns"}
"""Families in force only when a selection names them: name -> module exporting ``FAMILY``."""


class UnknownFamily(ValueError):
    """A family name that is not one of :data:`FAMILY_MODULES` (or ``core``)."""


@cache
def family(name: str) -> Family:
    """The family called ``name``."""
    if name in OPT_IN:
        module = OPT_IN[name]
    elif name in FAMILY_MODULES:
        module = f"aggregator.metrics.{name}"
    else:
        known = ", ".join((CORE, *FAMILY_MODULES))
        raise UnknownFamily(f"unknown metric family {name!r} (known: {known})")
    found: Family = importlib.import_module(module).FAMILY
    return found


@cache
def resolve(names: tuple[str, ...] | None = None) -> tuple[Family, ...]:
    """The families in force for ``names`` (None: all), with what they require, each after its requirements."""
    wanted = FAMILY_MODULES if names is None else tuple(n for n in names if n != CORE)
    ordered: list[Family] = []

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in path:
            raise ValueError(f"metric families require each other in a circle: {' -> '.join((*path, name))}")
        found = family(name)
        if found in ordered:
            return
        for required in found.requires:
            visit(required, (*path, name))
        ordered.append(found)

    for name in wanted:
        visit(name, ())
    return tuple(ordered)


def selection(names: Iterable[str] | None) -> tuple[str, ...] | None:
    """A hashable selection for :func:`resolve` (None: every family); unknown names raise :class:`UnknownFamily`."""
    if names is None:
        return None
    chosen = tuple(dict.fromkeys(n.strip() for n in names if n.strip()))
    for name in chosen:
        if name in OPT_IN:
            raise UnknownFamily(f"{name!r} is not a metric family (its columns serve one command's files)")
        if name != CORE:
            family(name)
    return chosen
