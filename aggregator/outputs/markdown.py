"""``structural_metrics_table.md``: the run's metrics as a readable table, grouped by section."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from aggregator.metrics.groups import COMPAT_NOTE, SECTION_TITLES, groups, has_compat, shown_label
from aggregator.outputs.cells import markdown_cell
from aggregator.text import md_code, md_text

if TYPE_CHECKING:
    from aggregator.metrics.registry import Registry
    from aggregator.outputs.facts import Fact
    from aggregator.run_warnings import RunWarnings

__all__ = ["SECTION_TITLES", "metrics_markdown"]
MARK = "⚠"
WARNINGS_DOC = "docs/warnings.md"
ABSENT = "field absent from input"


def _escape(text: str) -> str:
    return text.replace("|", "\\|")


def fact_line(fact: Fact) -> str:
    """``Label: `name`, `name` note``, each name a code span (:func:`~aggregator.text.md_code`)."""
    parts = [", ".join(md_code(name) for name in fact.names), fact.note]
    return f"{fact.label}: " + " ".join(part for part in parts if part)


def warning_lines(warnings: RunWarnings) -> list[str]:
    """A ``## Warnings`` section: one item per shown warning, and the silenced codes in one line."""
    if not (warnings.shown or warnings.allowed):
        return []
    lines = ["## Warnings", ""]
    for w in warnings.shown:
        marked = f" Values it affects are marked {MARK}." if w.metrics else ""
        lines.append(f"- {MARK} **`{w.code}`**: {md_text(w.message)}.{marked}")
    if warnings.shown:
        lines += ["", f"What each means and what to do: {WARNINGS_DOC}; silence one with `--allow CODE`.", ""]
    if warnings.allowed:
        lines += ["Raised but allowed (`--allow`): " + ", ".join(f"`{w.code}`" for w in warnings.allowed) + ".", ""]
    return lines


def metrics_markdown(
    registry: Registry,
    values: Mapping[str, object],
    *,
    title: str,
    names: Sequence[str] = (),
    facts: Sequence[Fact] = (),
    warnings: RunWarnings | None = None,
    absent: frozenset[str] = frozenset(),
) -> str:
    """Warnings first, then groups in display order (:func:`~aggregator.metrics.groups.groups`);
    aliases listed, not repeated; a value a warning makes unreliable is marked, and so is the
    value of a column whose optional input field no row carries (``absent``). The heading is
    ``title`` followed by ``names`` (from the input) as code spans."""
    heading = f"{title} — " + ", ".join(md_code(name) for name in names) if names else title
    lines = [f"# {heading}", ""]
    lines += [f"- {fact_line(fact)}" for fact in facts]
    if facts:
        lines.append("")
    marks = warnings.marks() if warnings is not None else {}
    if warnings is not None:
        lines += warning_lines(warnings)
    for group in groups(registry):
        lines += [f"## {group.heading}", "", "| Metric | Value | Definition |", "|---|---:|---|"]
        for m in group.metrics:
            mark = (f" {MARK}" if m.name in marks else "") + (f" ({ABSENT})" if m.name in absent else "")
            lines.append(
                f"| {_escape(shown_label(m))} (`{m.name}`) | {markdown_cell(values.get(m.name))}{mark} | {_escape(m.meaning)} |"
            )
        lines.append("")
    if has_compat(registry):
        lines += [COMPAT_NOTE, ""]
    aliases = [f"`{m.name}` = `{m.alias_of}`" for m in registry if m.alias_of is not None]
    if aliases:
        lines += ["Aliases in the CSV (same values): " + ", ".join(aliases) + ".", ""]
    lines.append("N/A: undefined for this input (blank in the CSV); see docs/metrics.md for when.")
    if absent:
        lines += ["", f"{ABSENT.capitalize()}: no row carries the optional field the column counts; its 0 or "
                     "blank (as in the CSV) says nothing about the pipeline."]
    return "\n".join(lines) + "\n"
