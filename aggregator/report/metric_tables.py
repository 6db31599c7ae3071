"""HTML tables of registered metrics: label, value and the metric's definition beside it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from aggregator.metrics.registry import Registry, Section
from aggregator.outputs.cells import markdown_cell
from aggregator.outputs.markdown import SECTION_TITLES
from aggregator.report.html import esc
from aggregator.report.warnings_html import marked

NO_MARKS: Mapping[str, Sequence[str]] = {}


def metric_rows_table(
    registry: Registry, values: Mapping[str, object], *, section: Section,
    marks: Mapping[str, Sequence[str]] = NO_MARKS,
) -> str:
    """One section's metrics (aliases left out) as a table with definition and formula; a value
    a warning marks is greyed with the marker."""
    rows = []
    for m in registry:
        if m.section != section or m.alias_of is not None:
            continue
        value = values.get(m.name)
        codes = marks.get(m.name, ())
        cls = "num warned" if codes else ("num na" if value is None else "num")
        rows.append(
            f'<tr><th scope="row">{esc(m.label)}<div class="name">{esc(m.name)}</div></th>'
            f'<td class="{cls}">{marked(markdown_cell(value), codes)}</td>'
            f'<td>{esc(m.meaning)}<div class="formula">{esc(m.formula)}</div></td></tr>'
        )
    return (
        '<table class="metrics"><thead><tr><th>Metric</th><th class="num">Value</th><th>Definition</th></tr>'
        "</thead><tbody>" + "".join(rows) + "</tbody></table>"
    )


def metrics_details(
    registry: Registry, values: Mapping[str, object], *, marks: Mapping[str, Sequence[str]] = NO_MARKS
) -> str:
    """Every section as a collapsed ``<details>`` block, in CSV section order."""
    blocks = [
        f"<details><summary>{esc(title)}</summary>"
        f"{metric_rows_table(registry, values, section=section, marks=marks)}</details>"
        for section, title in SECTION_TITLES.items()
        if any(m.section == section for m in registry)
    ]
    aliases = ", ".join(f"{m.name} = {m.alias_of}" for m in registry if m.alias_of is not None)
    if aliases:
        blocks.append(f'<p class="note">Aliases in the CSV (same values): {esc(aliases)}.</p>')
    return "\n".join(blocks)
