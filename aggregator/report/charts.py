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


def _defined(rows: Sequence[Row], *fields: str) -> list[Row]:
    return [r for r in rows if all(r.get(f) is not None for f in fields)]


def _label_sides(rows: Sequence[Row]) -> list[Row]:
    """Per unit, the lower F1 is labelled on its left and the higher on its right (ties: stage order)."""
    by_unit: dict[object, list[Row]] = {}
    for r in rows:
        by_unit.setdefault(r["unit"], []).append(r)
    out: list[Row] = []
    for group in by_unit.values():
        ranked = sorted(group, key=lambda r: float(r["f1"]))  # type: ignore[arg-type]
        out += [{**r, "side": "left" if i == 0 and len(ranked) > 1 else "right"} for i, r in enumerate(ranked)]
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


def means_with_ci(
    means: Sequence[Row],
    seeds: Sequence[Row],
    *,
    conditions: Sequence[str],
    metric_title: str,
) -> Spec:
    """Per condition: mean with its 95% CI as an error bar, and one dot per seed.

    ``means``: ``{"condition", "mean", "low", "high"}``; ``seeds``: ``{"condition", "seed", "value"}``.
    """
    y = {"field": "condition", "type": "nominal", "sort": list(conditions), "title": None,
         "axis": {"labelFontWeight": "bold", "labelPadding": 8, "labelLimit": 260}}
    x_title = {"title": metric_title, "scale": {"zero": False, "nice": True}}
    return _spec(
        [], width="container", height=44 * max(len(conditions), 1),
        layer=[
            {"data": {"values": [dict(r) for r in _defined(means, "low", "high")]},
             "mark": {"type": "rule", "strokeWidth": 2, "color": "#0969da"},
             "encoding": {"y": y, "x": {"field": "low", "type": "quantitative", **x_title}, "x2": {"field": "high"},
                          "tooltip": [{"field": "condition"}, {"field": "low", "format": ".4f", "title": "CI low"},
                                      {"field": "high", "format": ".4f", "title": "CI high"}]}},
            {"data": {"values": [dict(r) for r in _defined(seeds, "value")]},
             "mark": {"type": "point", "filled": True, "size": 45, "opacity": 0.55, "color": "#57606a"},
             "encoding": {"y": y, "yOffset": {"value": 9},
                          "x": {"field": "value", "type": "quantitative", **x_title},
                          "tooltip": [{"field": "condition"}, {"field": "seed"},
                                      {"field": "value", "format": ".4f", "title": metric_title}]}},
            {"data": {"values": [dict(r) for r in _defined(means, "mean")]},
             "mark": {"type": "tick", "thickness": 3, "size": 18, "color": "#0969da"},
             "encoding": {"y": y, "x": {"field": "mean", "type": "quantitative", **x_title},
                          "tooltip": [{"field": "condition"}, {"field": "mean", "format": ".4f"}]}},
        ],
    )


def paired_deltas(rows: Sequence[Row], *, conditions: Sequence[str], metric_title: str, baseline: str) -> Spec:
    """Per condition: mean paired difference to the baseline with its 95% CI, a zero line and the p-value.

    ``rows``: ``{"condition", "delta", "low", "high", "p_text"}``.
    """
    data = _defined(rows, "delta")
    y = {"field": "condition", "type": "nominal", "sort": list(conditions), "title": None,
         "axis": {"labelFontWeight": "bold", "labelPadding": 8, "labelLimit": 260}}
    title = f"Δ {metric_title} vs {baseline}"
    tooltip = [{"field": "condition"}, {"field": "delta", "format": "+.4f", "title": "Δ"},
               {"field": "low", "format": "+.4f", "title": "CI low"},
               {"field": "high", "format": "+.4f", "title": "CI high"}, {"field": "p_text", "title": "p"}]
    return _spec(
        data, width="container", height=44 * max(len(conditions), 1),
        layer=[
            {"mark": {"type": "rule", "color": "#8c959f", "strokeDash": [4, 3]},
             "data": {"values": [{"zero": 0}]}, "encoding": {"x": {"field": "zero", "type": "quantitative"}}},
            {"transform": [{"filter": "isValid(datum.low) && isValid(datum.high)"}],
             "mark": {"type": "rule", "strokeWidth": 2},
             "encoding": {"y": y, "x": {"field": "low", "type": "quantitative", "title": title},
                          "x2": {"field": "high"}, "color": _sign_color(), "tooltip": tooltip}},
            {"mark": {"type": "point", "filled": True, "size": 110, "opacity": 1},
             "encoding": {"y": y, "x": {"field": "delta", "type": "quantitative", "title": title},
                          "color": _sign_color(), "tooltip": tooltip}},
            {"mark": {"type": "text", "align": "left", "dx": 8, "dy": -11, "fontSize": 11, "color": "#57606a"},
             "encoding": {"y": y, "x": {"field": "delta", "type": "quantitative"}, "text": {"field": "p_text"}}},
        ],
    )


def _sign_color() -> Spec:
    return {"condition": {"test": "datum.delta < 0", "value": "#cf222e"}, "value": "#1a7f37"}
