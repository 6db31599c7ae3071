"""HTML tables of registered metrics: label, value and the metric's definition beside it."""

from __future__ import annotations

from collections.abc import Mapping

from aggregator.metrics.groups import COMPAT_NOTE, groups, has_compat, shown_label
from aggregator.metrics.registry import Metric, Registry
from aggregator.outputs.cells import markdown_cell
from aggregator.report.html import esc


def metric_rows_table(registry: Registry, values: Mapping[str, object], *, section: str) -> str:
    """One group's metrics (aliases left out) as a table with definition and formula."""
    found = next((g.metrics for g in groups(registry) if g.key == section), ())
    return _table(found, values)


def _table(metrics: tuple[Metric, ...], values: Mapping[str, object]) -> str:
    rows = []
    for m in metrics:
        value = values.get(m.name)
        cls = "num na" if value is None else "num"
        compat = f'<div class="note">{esc(m.compat)}</div>' if m.compat else ""
        rows.append(
            f'<tr><th scope="row">{esc(shown_label(m))}<div class="name">{esc(m.name)}</div></th>'
            f'<td class="{cls}">{esc(markdown_cell(value))}</td>'
            f'<td>{esc(m.meaning)}<div class="formula">{esc(m.formula)}</div>{compat}</td></tr>'
        )
    return (
        '<table class="metrics"><thead><tr><th>Metric</th><th class="num">Value</th><th>Definition</th></tr>'
        "</thead><tbody>" + "".join(rows) + "</tbody></table>"
    )


def metrics_details(registry: Registry, values: Mapping[str, object]) -> str:
    """Every group as a collapsed ``<details>`` block, in display order."""
    blocks = [
        f"<details><summary>{esc(g.heading)}</summary>{_table(g.metrics, values)}</details>" for g in groups(registry)
    ]
    if has_compat(registry):
        blocks.append(f'<p class="note">{esc(COMPAT_NOTE)}</p>')
    aliases = ", ".join(f"{m.name} = {m.alias_of}" for m in registry if m.alias_of is not None)
    if aliases:
        blocks.append(f'<p class="note">Aliases in the CSV (same values): {esc(aliases)}.</p>')
    return "\n".join(blocks)
