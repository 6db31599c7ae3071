"""How the metrics are grouped for people: sections, the diagnostics by family, compatibility marks.

The Markdown table, the HTML report and ``docs/metrics.md`` all show the registry in these
groups: the headline and units sections, the core diagnostics, one group per metric family
(its title and spec source), then the appendix. Aliases are listed, not repeated.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aggregator.metrics.registry import Metric, Registry

SECTION_TITLES = {
    "headline": "Headline (GoldUnit, Ref-F1)",
    "units": "Surface and attribute units",
    "diagnostics": "Diagnostics",
    "appendix": "Appendix",
}
COMPAT_MARK = "†"
COMPAT_NOTE = f"{COMPAT_MARK} compatibility column: kept so the research tool's scripts still find it; do not cite (see its definition)."


@dataclass(frozen=True)
class Group:
    """A heading and the metrics (aliases left out) shown under it."""

    key: str
    heading: str
    metrics: tuple[Metric, ...]


def family_title(name: str) -> str:
    """``Title (source)`` of a metric family."""
    from aggregator.metrics.families import family

    found = family(name)
    return f"{found.title} ({found.source})"


def groups(registry: Registry) -> Iterator[Group]:
    """The non-empty groups, in display order."""
    shown = [m for m in registry if m.alias_of is None]
    for section in ("headline", "units"):
        yield from _nonempty(section, SECTION_TITLES[section], [m for m in shown if m.section == section])
    core = [m for m in shown if m.section == "diagnostics" and m.family == "core"]
    yield from _nonempty("diagnostics", "Diagnostics (core)", core)
    families = dict.fromkeys(m.family for m in shown if m.family != "core")
    for name in families:
        found = [m for m in shown if m.family == name and m.section not in ("headline", "units", "appendix")]
        yield from _nonempty(name, family_title(name), found)
    yield from _nonempty("appendix", SECTION_TITLES["appendix"], [m for m in shown if m.section == "appendix"])


def _nonempty(key: str, heading: str, metrics: list[Metric]) -> Iterator[Group]:
    if metrics:
        yield Group(key, heading, tuple(metrics))


def shown_label(metric: Metric) -> str:
    """The metric's label, marked when it is a compatibility column."""
    return f"{metric.label} {COMPAT_MARK}" if metric.compat else metric.label


def has_compat(registry: Registry) -> bool:
    return any(m.compat for m in registry)
