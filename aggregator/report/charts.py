"""Vega-Lite specifications as plain dicts, with their data inlined.

Building a spec is a few dict literals, so the Python side imports nothing heavy;
the page compiles and draws them as SVG with the vendored Vega-Lite and Vega.
Values that are undefined (None) are left out of a chart's data, never drawn as 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

Spec = dict[str, Any]
Row = Mapping[str, object]

SCHEMA = "https://vega.github.io/schema/vega-lite/v5.json"
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, 'Noto Sans KR', sans-serif"
STAGE_COLORS = {"Stage 1": "#8c959f", "Final": "#0969da"}
TRANSITION_COLORS = {"fix": "#1a7f37", "keep": "#9ec5e8", "break": "#cf222e", "still": "#d8dee4"}
TRANSITION_TEXT = {
    "fix": "fix: wrong → correct",
    "keep": "keep: correct → correct",
    "break": "break: correct → wrong",
    "still": "still: wrong → wrong",
}
CONFIG: Spec = {
    "font": FONT,
    "view": {"stroke": None},
    "axis": {"labelFontSize": 12, "titleFontSize": 12, "titleFontWeight": "normal", "titleColor": "#57606a",
             "gridColor": "#eaeef2", "domainColor": "#d0d7de", "tickColor": "#d0d7de"},
    "legend": {"labelFontSize": 12, "titleFontSize": 12, "titleFontWeight": "normal", "orient": "bottom"},
}


def _spec(data: Sequence[Row], *, width: int | str, height: int | str, **rest: Any) -> Spec:
    spec: Spec = {"$schema": SCHEMA, "data": {"values": [dict(r) for r in data]}, "width": width,
                  "height": height, "config": CONFIG}
    spec.update(rest)
    return spec


def _number(value: object) -> float:
    """A field that :func:`_defined` kept: a number (rows hold numbers, text and None)."""
    assert isinstance(value, int | float), value
    return float(value)


def _defined(rows: Sequence[Row], *fields: str) -> list[Row]:
    return [r for r in rows if all(r.get(f) is not None for f in fields)]


def _label_sides(rows: Sequence[Row]) -> list[Row]:
    """Per unit, the lower F1 is labelled on its left and the higher on its right; equal values
    (to the three decimals shown) get one label, on the right (a left label at 0 would cover the axis)."""
    by_unit: dict[object, list[Row]] = {}
    for r in rows:
        by_unit.setdefault(r["unit"], []).append(r)
    out: list[Row] = []
    for group in by_unit.values():
        ranked = sorted(group, key=lambda r: _number(r["f1"]))
        tied = len({f"{_number(r['f1']):.3f}" for r in ranked}) == 1
        out += [{**r, "side": ("none" if tied and i < len(ranked) - 1 else "left" if i == 0 and len(ranked) > 1
                               else "right")} for i, r in enumerate(ranked)]
    return out


def stage_f1(rows: Sequence[Row], *, units: Sequence[str]) -> Spec:
    """Dumbbell: per unit, mean F1 at stage 1 and at the final stage, joined by a line.

    ``rows``: ``{"unit", "stage" ("Stage 1" | "Final"), "f1"}``.
    """
    data = _label_sides(_defined(rows, "f1"))
    y = {"field": "unit", "type": "nominal", "sort": list(units), "title": None,
         "axis": {"labelFontWeight": "bold", "labelPadding": 8}}
    x = {"field": "f1", "type": "quantitative", "title": "mean per-sample F1", "scale": {"domain": [0, 1]}}
    color = {"field": "stage", "type": "nominal", "title": None,
             "scale": {"domain": list(STAGE_COLORS), "range": list(STAGE_COLORS.values())}}
    tooltip = [{"field": "unit", "title": "unit"}, {"field": "stage"}, {"field": "f1", "format": ".4f", "title": "F1"}]

    def label(side: str, align: str, dx: int) -> Spec:
        return {"transform": [{"filter": f"datum.side === '{side}'"}],
                "mark": {"type": "text", "align": align, "dx": dx, "fontSize": 11, "color": "#57606a"},
                "encoding": {"y": y, "x": x, "text": {"field": "f1", "format": ".3f"}}}

    return _spec(
        data, width="container", height=40 * max(len(units), 1),
        layer=[
            {"mark": {"type": "line", "color": "#afb8c1", "strokeWidth": 3},
             "encoding": {"y": y, "x": x, "detail": {"field": "unit"}}},
            {"mark": {"type": "point", "filled": True, "size": 140, "opacity": 1},
             "encoding": {"y": y, "x": x, "color": color, "tooltip": tooltip}},
            label("left", "right", -10),
            label("right", "left", 10),
        ],
    )


def transitions(rows: Sequence[Row], *, units: Sequence[str]) -> Spec:
    """Stacked bar per unit: shares of gold samples that the review fixed, kept, broke or left wrong.

    ``rows``: ``{"unit", "kind" (fix | keep | break | still), "n"}``.
    """
    order = {kind: i for i, kind in enumerate(TRANSITION_COLORS)}
    data = [{**r, "order": order[str(r["kind"])], "label": TRANSITION_TEXT[str(r["kind"])]} for r in rows]
    return _spec(
        data, width="container", height=40 * max(len(units), 1),
        transform=[{"joinaggregate": [{"op": "sum", "field": "n", "as": "total"}], "groupby": ["unit"]},
                   {"calculate": "datum.total > 0 ? datum.n / datum.total : 0", "as": "share"}],
        mark={"type": "bar", "height": 22},
        encoding={
            "y": {"field": "unit", "type": "nominal", "sort": list(units), "title": None,
                  "axis": {"labelFontWeight": "bold", "labelPadding": 8}},
            "x": {"field": "n", "type": "quantitative", "stack": "normalize", "title": "share of samples with gold",
                  "axis": {"format": "%"}},
            "color": {"field": "label", "type": "nominal", "title": None, "legend": {"columns": 2},
                      "scale": {"domain": list(TRANSITION_TEXT.values()), "range": list(TRANSITION_COLORS.values())}},
            "order": {"field": "order", "type": "quantitative"},
            "tooltip": [{"field": "unit"}, {"field": "label", "title": "transition"},
                        {"field": "n", "title": "samples"}, {"field": "share", "format": ".1%"}],
        },
    )


def _by_unit(
    data: Sequence[Row], *, pick: tuple[str, str, Sequence[str]], units: Sequence[str], rows: int, width: int,
    layer: list[Spec],
) -> Spec:
    """``layer`` drawn once per unit (a column each, own x scale), for the option of a drop-down.

    ``pick`` = (field, label, options): only rows whose ``field`` equals the chosen option are drawn.
    """
    field, label, options = pick
    return {
        "$schema": SCHEMA, "config": CONFIG, "data": {"values": [dict(r) for r in data]},
        "params": [{"name": "pick", "value": options[0],
                    "bind": {"input": "select", "options": list(options), "name": label}}],
        "transform": [{"filter": f"datum.{field} === pick"}],
        "facet": {"column": {"field": "unit", "type": "nominal", "sort": list(units), "title": None,
                             "header": {"labelFontSize": 13, "labelFontWeight": "bold", "labelColor": "#1f2328"}}},
        "resolve": {"scale": {"x": "independent"}},
        "spec": {"width": width, "height": row_height(rows) * max(rows, 1), "layer": layer},
    }


def row_height(rows: int) -> int:
    """Pixels per condition: roomy for a few, compact for many (50 conditions: 16 px, 800 px a chart)."""
    return 34 if rows <= 8 else 24 if rows <= 20 else 16


SHORTEN_FROM = 16
"""Condition names sharing a prefix this long or longer are shown without it on the chart axes."""


def short_names(conditions: Sequence[str]) -> tuple[dict[str, str], str]:
    """Axis labels for ``conditions`` and the prefix they leave out (``""``: names as they are).

    The common prefix, cut back to the ``_`` before the word in which the names first differ and
    that word's predecessor kept, is dropped when it is at least :data:`SHORTEN_FROM` characters;
    ``…`` marks the cut. Full names are in the tooltips and the tables.
    """
    names = list(dict.fromkeys(conditions))
    if len(names) < 2:
        return {c: c for c in names}, ""
    common = 0
    for chars in zip(*names):
        if len(set(chars)) > 1:
            break
        common += 1
    last = names[0].rfind("_", 0, common)
    cut = names[0].rfind("_", 0, last) if last > 0 else -1
    prefix = names[0][: cut + 1] if cut > 0 else ""
    if len(prefix) < SHORTEN_FROM:
        return {c: c for c in names}, ""
    return {c: "…" + c[len(prefix):] for c in names}, prefix


def _labelled(rows: Sequence[Row], conditions: Sequence[str]) -> tuple[list[Row], Spec]:
    """Rows with their condition's axis ``label``, and the y encoding over those labels."""
    short, prefix = short_names(conditions)
    labelled: list[Row] = [{**r, "label": short.get(str(r["condition"]), str(r["condition"]))} for r in rows]
    y: Spec = {"field": "label", "type": "nominal", "sort": [short[c] for c in dict.fromkeys(conditions)],
         "title": f"{prefix}…" if prefix else None,
         "axis": {"labelLimit": 220, "labelPadding": 6, "titleFontSize": 11, "titleLimit": 700, "titleAngle": 0,
                  "titleAlign": "left", "titleAnchor": "start", "titleY": -22, "titleX": -200}}
    return labelled, y


def _padded(rows: Sequence[Row], fields: tuple[str, ...], pad: float) -> list[Row]:
    """``rows`` plus, for each (metric, unit) whose values are all equal, two ``kind: "pad"`` rows
    around them: at ± ``pad``, or at 0 and ``2 · pad`` when the value is 0 (no negative ticks on an
    axis of values that are all 0).

    An axis over a single value has no width, and Vega then labels its one tick wrongly.
    """
    groups: dict[tuple[object, object], tuple[Row, list[float]]] = {}
    for r in rows:
        _, values = groups.setdefault((r["metric"], r["unit"]), (r, []))
        values.extend(_number(r[f]) for f in fields if r.get(f) is not None)
    out = list(rows)
    for first, values in groups.values():
        if values and min(values) == max(values):
            around = (0.0, 2 * pad) if values[0] == 0 else (values[0] - pad, values[0] + pad)
            out += [{"metric": first["metric"], "unit": first["unit"], "condition": first["condition"], "kind": "pad",
                     "value": value} for value in around]
    return out


WARNED = "#c9d1d9"
"""The colour of a value a coded warning covers (greyed, as in the tables)."""


def _greyed(color: str) -> Spec:
    """A constant colour, greyed for rows whose ``warned`` is true."""
    return {"condition": {"test": "datum.warned", "value": WARNED}, "value": color}


def condition_means(
    rows: Sequence[Row], *, metrics: Sequence[str], units: Sequence[str], conditions: Sequence[str], width: int
) -> Spec:
    """Per unit (a column each) and condition: the mean over seeds with its 95% CI, and one dot per seed.

    ``rows``: ``{"metric", "unit", "condition", "kind": "mean", "value", "low", "high", "n"}`` and
    ``{"metric", "unit", "condition", "kind": "seed", "seed", "value"}``, each with ``warned`` (a coded
    warning covers the value: drawn grey). A drop-down picks the metric.
    """
    data, y = _labelled(_padded(_defined(rows, "value"), ("value", "low", "high"), 0.01), conditions)
    x = {"field": "value", "type": "quantitative", "title": None, "scale": {"zero": False, "nice": True},
         "axis": {"tickCount": 5}}
    means = {"filter": "datum.kind === 'mean'"}
    blue = _greyed("#0969da")
    step = row_height(len(conditions))
    return _by_unit(data, pick=("metric", "Metric ", metrics), units=units, rows=len(conditions), width=width, layer=[
        {"transform": [{"filter": "datum.kind === 'pad'"}], "mark": {"type": "point", "opacity": 0},
         "encoding": {"y": y, "x": x}},
        {"transform": [means, {"filter": "isValid(datum.low)"}],
         "mark": {"type": "rule", "strokeWidth": 2.5, "opacity": 0.55},
         "encoding": {"y": y, "x": {**x, "field": "low"}, "x2": {"field": "high"}, "color": blue,
                      "tooltip": [{"field": "condition"}, {"field": "n", "title": "seeds"},
                                  {"field": "low", "format": ".4f", "title": "95% CI low"},
                                  {"field": "high", "format": ".4f", "title": "95% CI high"}]}},
        {"transform": [{"filter": "datum.kind === 'seed'"}],
         "mark": {"type": "point", "filled": True, "size": 42, "opacity": 0.6},
         "encoding": {"y": y, "yOffset": {"value": step // 5}, "x": x, "color": _greyed("#57606a"),
                      "tooltip": [{"field": "condition"}, {"field": "seed"}, {"field": "value", "format": ".4f"}]}},
        {"transform": [means],
         "mark": {"type": "tick", "thickness": 3, "size": min(22, step - 4)},
         "encoding": {"y": y, "x": x, "color": blue,
                      "tooltip": [{"field": "condition"}, {"field": "value", "format": ".4f", "title": "mean"}]}},
    ])


def paired_deltas(
    rows: Sequence[Row], *, statistics: Sequence[str], units: Sequence[str], conditions: Sequence[str], width: int
) -> Spec:
    """Per unit (a column each) and condition: mean paired difference to the baseline, its 95% CI and p.

    ``rows``: ``{"statistic", "unit", "condition", "delta", "low", "high", "p_text", "n"}``. A
    drop-down picks the statistic; a dashed line marks no difference; p stands right of the interval.
    Green or red: the interval lies above or below 0; grey: it contains 0 (or is undefined); light grey:
    a coded warning covers it (``warned``).
    """
    x = {"field": "delta", "type": "quantitative", "title": None, "scale": {"nice": True}, "axis": {"tickCount": 5}}
    step = row_height(len(conditions))
    color = {"condition": [{"test": "datum.warned", "value": WARNED},
                           {"test": "datum.low > 0", "value": "#1a7f37"},
                           {"test": "datum.high < 0", "value": "#cf222e"}], "value": "#6e7781"}
    tooltip = [{"field": "condition"}, {"field": "n", "title": "samples"},
               {"field": "delta", "format": "+.4f", "title": "Δ"},
               {"field": "low", "format": "+.4f", "title": "95% CI low"},
               {"field": "high", "format": "+.4f", "title": "95% CI high"}, {"field": "p_text", "title": "p"}]
    data, y = _labelled([{**r, "label_at": r["delta"] if r.get("high") is None else r["high"]}
                         for r in _defined(rows, "delta")], conditions)
    return _by_unit(data, pick=("statistic", "Statistic ", statistics), units=units, rows=len(conditions),
                    width=width, layer=[
        {"mark": {"type": "rule", "color": "#8c959f", "strokeDash": [4, 3]},
         "encoding": {"x": {"datum": 0, "type": "quantitative"}}},
        {"transform": [{"filter": "isValid(datum.low)"}], "mark": {"type": "rule", "strokeWidth": 2.5},
         "encoding": {"y": y, "x": {**x, "field": "low"}, "x2": {"field": "high"}, "color": color,
                      "tooltip": tooltip}},
        {"mark": {"type": "point", "filled": True, "size": 90 if step > 20 else 40, "opacity": 1},
         "encoding": {"y": y, "x": x, "color": color, "tooltip": tooltip}},
        {"mark": {"type": "text", "align": "left", "baseline": "middle", "dx": 8, "fontSize": 11 if step > 20 else 10,
                  "color": "#57606a"},
         "encoding": {"y": y, "x": {**x, "field": "label_at"}, "text": {"field": "p_text"}}},
    ])
