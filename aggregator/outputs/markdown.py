"""``structural_metrics_table.md``: the run's metrics as a readable table, grouped by section."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from aggregator.metrics.groups import COMPAT_NOTE, SECTION_TITLES, groups, has_compat, shown_label
from aggregator.metrics.registry import Registry
from aggregator.outputs.cells import markdown_cell

__all__ = ["SECTION_TITLES", "metrics_markdown"]


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def metrics_markdown(
    registry: Registry,
    values: Mapping[str, object],
    *,
    title: str,
    facts: Sequence[str] = (),
) -> str:
    """Groups in display order (:func:`~aggregator.metrics.groups.groups`); aliases listed, not repeated."""
    lines = [f"# {title}", ""]
    lines += [f"- {fact}" for fact in facts]
    if facts:
        lines.append("")
    for group in groups(registry):
        lines += [f"## {group.heading}", "", "| Metric | Value | Definition |", "|---|---:|---|"]
        for m in group.metrics:
            lines.append(
                f"| {_escape(shown_label(m))} (`{m.name}`) | {markdown_cell(values.get(m.name))} | {_escape(m.meaning)} |"
            )
        lines.append("")
    if has_compat(registry):
        lines += [COMPAT_NOTE, ""]
    aliases = [f"`{m.name}` = `{m.alias_of}`" for m in registry if m.alias_of is not None]
    if aliases:
        lines += ["Aliases in the CSV (same values): " + ", ".join(aliases) + ".", ""]
    lines.append("N/A: undefined for this input (blank in the CSV); see docs/metrics.md for when.")
    return "\n".join(lines) + "\n"
