"""The run report's error anatomy: per unit, the final-stage classes with n and one small chart of
what the review did by class (repaired, changed class, introduced), and the codes the sample table
filters by. Every number is a registry metric of the errors family (:mod:`aggregator.metrics.errors`)
or, for the filter, its per-sample columns."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from aggregator.outputs.cells import markdown_cell
from aggregator.outputs.error_views import units_shown
from aggregator.report.charts import CONFIG, SCHEMA
from aggregator.report.html import esc
from aggregator.report.warnings_html import marked
from aggregator.units.error_anatomy import UNIT_CLASSES, gold_side
from aggregator.units.error_classes import BOUNDARY_THRESHOLD, EXACT, MISSED

if TYPE_CHECKING:
    import polars as pl

    from aggregator.run.pipeline import RunEvaluation

CODES = {"polarity": "p", "category": "c", "boundary": "b", "implicit": "i", "spurious": "s", "missed": "m"}
"""One letter per class in the sample table's data (the classes a sample has at the final stage)."""
MOVES = {"repaired": "#1a7f37", "changed": "#bf8700", "introduced": "#cf222e"}
MOVE_LABELS = {"repaired": "repaired", "changed": "changed class", "introduced": "introduced"}
UNIT_TITLES = {"refpol": "Ref-F1 · GoldUnit", "otepol": "Surface-F1 · SurfaceUnit", "attrpol": "Attr-F1 · attribute"}


def moves_chart(values: Mapping[str, object], unit: str) -> dict[str, Any]:
    """Grouped bars: per error class, how many stage-1 errors the review repaired or changed to
    another class, and how many final errors it introduced (the unit's transition metrics)."""
    rows = []
    for cls in UNIT_CLASSES[unit]:
        for move in MOVES:
            n = values.get(f"errors_{move}_{cls}_{unit}")
            if n is not None:
                rows.append({"class": cls, "move": MOVE_LABELS[move], "n": n,
                             "rate": values.get(f"errors_{move}_{cls}_{unit}_rate")})
    return {
        "$schema": SCHEMA, "config": CONFIG, "data": {"values": rows}, "width": "container",
        "height": 24 * len(UNIT_CLASSES[unit]), "mark": {"type": "bar"},
        "encoding": {
            "y": {"field": "class", "type": "nominal", "sort": list(UNIT_CLASSES[unit]), "title": None},
            "yOffset": {"field": "move", "sort": list(MOVE_LABELS.values())},
            "x": {"field": "n", "type": "quantitative", "title": "pairs", "axis": {"tickMinStep": 1, "format": "d"}},
            "color": {"field": "move", "type": "nominal", "title": None,
                      "scale": {"domain": list(MOVE_LABELS.values()), "range": list(MOVES.values())}},
            "tooltip": [{"field": "class"}, {"field": "move"}, {"field": "n", "title": "pairs"},
                        {"field": "rate", "format": ".1%", "title": "rate"}],
        },
    }


def _table(values: Mapping[str, object], unit: str) -> str:
    golds, rows = (EXACT, *gold_side(unit)), []
    for cls in (EXACT, *UNIT_CLASSES[unit]):
        base = f"errors_{cls}_s2_{unit}"
        per_gold = markdown_cell(values.get(f"{base}_per_gold")) if cls in golds else "—"
        per_pred = markdown_cell(values.get(f"{base}_per_pred")) if cls != MISSED else "—"
        rows.append(f"<tr><th scope=\"row\">{esc(cls)}</th><td class=\"num\">{esc(markdown_cell(values.get(base)))}</td>"
                    f"<td class=\"num\">{esc(per_gold)}</td><td class=\"num\">{esc(per_pred)}</td></tr>")
    n_gold, n_pred = values.get(f"errors_n_gold_{unit}"), values.get(f"errors_n_pred_s2_{unit}")
    return ('<table class="data"><thead><tr><th>Final stage</th><th class="num">n</th>'
            f'<th class="num">per gold (n {esc(markdown_cell(n_gold))})</th>'
            f'<th class="num">per pred (n {esc(markdown_cell(n_pred))})</th></tr></thead><tbody>'
            + "".join(rows) + "</tbody></table>")


def error_section(evaluation: RunEvaluation, marks: Mapping[str, Sequence[str]]) -> tuple[str, dict[str, Any]]:
    """The section's markup and its charts (``errors_<unit>``); nothing when the family is not in force."""
    units = units_shown(evaluation.table)
    if not units:
        return "", {}
    figures, charts = [], {}
    for unit in units:
        codes = marks.get("tuple_f1_s2" + ("" if unit == "refpol" else f"_{unit}"), ())
        title = marked(UNIT_TITLES[unit], codes)
        chart = moves_chart(evaluation.metrics, unit)
        moved = any(row["n"] for row in chart["data"]["values"])
        shown = (f'<div class="chart" data-chart="errors_{unit}"></div>' if moved else
                 '<p class="note">The review repaired, changed and introduced no error under this unit.</p>')
        figures.append(f'<figure><figcaption>{title}</figcaption>{_table(evaluation.metrics, unit)}{shown}</figure>')
        if moved:
            charts[f"errors_{unit}"] = chart
    html = f"""
<section id="errors">
  <h2>Error anatomy</h2>
  <p class="note">Every gold and predicted pair of a unit, classified at the final stage: exact, polarity, category
  (units with a ref), boundary (terms overlapping by at least {BOUNDARY_THRESHOLD:.0%} of the shorter), implicit,
  spurious, missed; samples with gold. The bars: stage-1 errors of each class the review repaired or changed to
  another class, and final errors it introduced. Stage 1, rates and the class changes: structural_metrics_table.md;
  definitions: docs/errors.md. The sample table below filters by class.</p>
  <div class="grid3">{"".join(figures)}</div>
</section>"""
    return html, charts


def sample_errors(table: pl.DataFrame, unit: str) -> list[str]:
    """Per sample, the codes (:data:`CODES`) of the classes it has at the final stage under ``unit``."""
    import polars as pl

    present = [pl.when(pl.col(f"err_{unit}_s2_{c}") > 0).then(pl.lit(CODES[c])).otherwise(pl.lit(""))
               for c in UNIT_CLASSES[unit]]
    return table.select(pl.concat_str(present).alias("codes")).get_column("codes").to_list()
