"""HTML tables of registered metrics: label, value and the metric's definition beside it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from aggregator.metrics.groups import COMPAT_NOTE, groups, has_compat, shown_label
from aggregator.outputs.cells import markdown_cell
from aggregator.outputs.markdown import ABSENT
from aggregator.report.html import esc
from aggregator.report.warnings_html import marked

if TYPE_CHECKING:
    from aggregator.metrics.registry import Metric, Registry

NO_MARKS: Mapping[str, Sequence[str]] = {}


def metric_rows_table(
    registry: Registry, values: Mapping[str, object], *, section: str, marks: Mapping[str, Sequence[str]] = NO_MARKS,
    absent: frozenset[str] = frozenset(),
) -> str:
    """One group's metrics (aliases left out) as a table with definition and formula; a value
    a warning marks is greyed with the marker, one whose input field no row carries says so."""
    found = next((g.metrics for g in groups(registry) if g.key == section), ())
    return _table(found, values, marks, absent)


def _table(
    metrics: tuple[Metric, ...], values: Mapping[str, object], marks: Mapping[str, Sequence[str]],
    absent: frozenset[str],
) -> str:
    rows = []
    for m in metrics:
        value = values.get(m.name)
        codes = marks.get(m.name, ())
        cls = "num warned" if codes or m.name in absent else ("num na" if value is None else "num")
        compat = f'<div class="note">{esc(m.compat)}</div>' if m.compat else ""
        shown = marked(markdown_cell(value), codes) + (f'<div class="absent">{ABSENT}</div>' if m.name in absent else "")
        rows.append(
            f'<tr><th scope="row">{esc(shown_label(m))}<div class="name">{esc(m.name)}</div></th>'
            f'<td class="{cls}">{shown}</td>'
            f'<td>{esc(m.meaning)}<div class="formula">{esc(m.formula)}</div>{compat}</td></tr>'
        )
    return (
        '<table class="metrics"><thead><tr><th>Metric</th><th class="num">Value</th><th>Definition</th></tr>'
        "</thead><tbody>" + "".join(rows) + "</tbody></table>"
    )


def metrics_details(
    registry: Registry, values: Mapping[str, object], *, marks: Mapping[str, Sequence[str]] = NO_MARKS,
    absent: frozenset[str] = frozenset(),
) -> str:
    """Every group as a collapsed ``<details>`` block, in display order."""
    blocks = [
        f"<details><summary>{esc(g.heading)}</summary>{_table(g.metrics, values, marks, absent)}</details>"
        for g in groups(registry)
    ]
    if has_compat(registry):
        blocks.append(f'<p class="note">{esc(COMPAT_NOTE)}</p>')
    aliases = ", ".join(f"{m.name} = {m.alias_of}" for m in registry if m.alias_of is not None)
    if aliases:
        blocks.append(f'<p class="note">Aliases in the CSV (same values): {esc(aliases)}.</p>')
    return "\n".join(blocks)
