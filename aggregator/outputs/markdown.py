"""``structural_metrics_table.md``: the run's metrics as a readable table, grouped by section."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from aggregator.metrics.registry import Registry, Section
from aggregator.outputs.cells import markdown_cell
from aggregator.outputs.facts import Fact
from aggregator.text import md_code

SECTION_TITLES: dict[Section, str] = {
    "headline": "Headline (GoldUnit, Ref-F1)",
    "units": "Surface and attribute units",
    "diagnostics": "Diagnostics",
    "appendix": "Appendix",
}


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def fact_line(fact: Fact) -> str:
    """``Label: `name`, `name` note``, each name a code span (:func:`~aggregator.text.md_code`)."""
    parts = [", ".join(md_code(name) for name in fact.names), fact.note]
    return f"{fact.label}: " + " ".join(part for part in parts if part)


def metrics_markdown(
    registry: Registry,
    values: Mapping[str, object],
    *,
    title: str,
    names: Sequence[str] = (),
    facts: Sequence[Fact] = (),
) -> str:
    """Sections in headline/units/diagnostics/appendix order; aliases listed, not repeated.

    The heading is ``title`` followed by ``names`` (from the input) as code spans.
    """
    heading = f"{title} — " + ", ".join(md_code(name) for name in names) if names else title
    lines = [f"# {heading}", ""]
    lines += [f"- {fact_line(fact)}" for fact in facts]
    if facts:
        lines.append("")
    for section, heading in SECTION_TITLES.items():
        metrics = [m for m in registry if m.section == section and m.alias_of is None]
        if not metrics:
            continue
        lines += [f"## {heading}", "", "| Metric | Value | Definition |", "|---|---:|---|"]
        for m in metrics:
            lines.append(
                f"| {_escape(m.label)} (`{m.name}`) | {markdown_cell(values.get(m.name))} | {_escape(m.meaning)} |"
            )
        lines.append("")
    aliases = [f"`{m.name}` = `{m.alias_of}`" for m in registry if m.alias_of is not None]
    if aliases:
        lines += ["Aliases in the CSV (same values): " + ", ".join(aliases) + ".", ""]
    lines.append("N/A: undefined for this input (blank in the CSV); see docs/metrics.md for when.")
    return "\n".join(lines) + "\n"
