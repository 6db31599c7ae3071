"""``report.html`` of one run: headline table, S1 vs final chart, transitions chart, sample table, all metrics.

Everything shown is read from a :class:`~aggregator.run.pipeline.RunEvaluation`: the metric
values and their definitions come from the registry, transition counts from
:func:`aggregator.metrics.exprs.transition_counts`, and the sample table from the
per-sample table's columns. Nothing is recomputed here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from aggregator.metrics.exprs import transition_counts
from aggregator.metrics.structural import UNIT_LABELS
from aggregator.outputs.cells import markdown_cell
from aggregator.outputs.facts import Fact, run_facts
from aggregator.report import charts
from aggregator.report.error_report import error_section
from aggregator.report.html import esc, name_html, page
from aggregator.report.metric_tables import metric_rows_table, metrics_details
from aggregator.report.samples import capped_payload
from aggregator.report.warnings_html import MARK, marked, warning_banner
from aggregator.run.intervals import intervals_html
from aggregator.text import printable
from aggregator.units.projection import TRANSITIONS, UNITS
from aggregator.version import __version__

if TYPE_CHECKING:
    from aggregator.metrics.registry import Metric, Registry
    from aggregator.metrics.values import MetricValue
    from aggregator.run.pipeline import RunEvaluation
    from aggregator.units.lead import Lead

UNIT_NAMES = {"refpol": "Ref-F1 · GoldUnit", "otepol": "Surface-F1 · SurfaceUnit", "attrpol": "Attr-F1 · attribute"}
HEADLINE_COLUMNS = (
    ("tuple_f1_s1", "F1 stage 1"),
    ("tuple_f1_s2", "F1 final"),
    ("delta_f1", "ΔF1"),
    ("fix_rate", "Fix rate"),
    ("break_rate", "Break rate"),
    ("net_gain", "Net gain"),
)


def suffix(unit: str) -> str:
    """The metric-name suffix of a unit: ``""`` for refpol (the headline), else ``_<unit>``."""
    return "" if unit == "refpol" else f"_{unit}"


Marks = Mapping[str, Sequence[str]]


def _signed(value: object, better: bool | None) -> tuple[str, str]:
    """A Δ-like value: sign always shown, toned good/bad by the metric's direction."""
    if not isinstance(value, float):
        return markdown_cell(value), "na"
    tone = "" if value == 0 or better is None else ("good" if (value > 0) == better else "bad")
    return f"{value:+.4f}", tone


def _cell(metric: Metric, values: Mapping[str, MetricValue], marks: Marks) -> str:
    """A headline cell; a value a warning marks is greyed (no tone) and carries the marker."""
    name = metric.name
    value = values.get(name)
    if name.startswith(("delta_f1", "net_gain")):
        text, tone = _signed(value, metric.higher_is_better)
    else:
        text, tone = markdown_cell(value), "na" if value is None else ""
    codes = marks.get(name, ())
    cls = "num warned" if codes else f"num {tone}".strip()
    return f'<td class="{cls}">{marked(text, codes)}</td>'


def headline_table(registry: Registry, values: Mapping[str, MetricValue], counts: dict[str, dict[str, int]], marks: Marks,
                   lead: Lead) -> str:
    """One row per unit: F1 S1, F1 final, ΔF1, fix/break rates, net gain and the fix/break counts;
    the lead unit's row is highlighted."""
    head = "".join(
        f'<th class="num" title="{esc(registry[name].meaning + " = " + registry[name].formula)}">{esc(text)}</th>'
        for name, text in HEADLINE_COLUMNS
    )
    rows = []
    for unit in UNITS:
        cells = "".join(_cell(registry[name + suffix(unit)], values, marks) for name, _ in HEADLINE_COLUMNS)
        c = counts[unit]
        primary = ' class="primary"' if unit == lead.unit else ""
        rows.append(
            f"<tr{primary}><th scope=\"row\">{esc(UNIT_NAMES[unit])}</th>{cells}"
            f'<td class="num">{c["fix"]}</td><td class="num">{c["break"]}</td></tr>'
        )
    return (
        '<table class="headline"><thead><tr><th>Unit</th>' + head
        + '<th class="num" title="samples wrong at stage 1 and correct at the final stage">Fixed</th>'
        + '<th class="num" title="samples correct at stage 1 and wrong at the final stage">Broken</th>'
        + "</tr></thead><tbody>" + "".join(rows) + "</tbody></table>"
    )


def key_figures(values: Mapping[str, MetricValue], marks: Marks, lead: Lead) -> str:
    """The lead unit's story in cards (:mod:`aggregator.units.lead`): final F1 (from stage 1), ΔF1,
    fix and break rate, net gain, and for Ref-F1 its CDA."""
    name = lead.name.removesuffix("-F1")
    delta, tone = _signed(values.get(lead.metric("delta_f1")), True)
    cards = [
        (lead.metric("tuple_f1_s2"), f"{lead.name} final", markdown_cell(values.get(lead.metric("tuple_f1_s2"))),
         f"stage 1: {markdown_cell(values.get(lead.metric('tuple_f1_s1')))}", ""),
        (lead.metric("delta_f1"), f"Δ{name}-F1", delta, "final − stage 1", tone),
        (lead.metric("fix_rate"), "Fix rate", markdown_cell(values.get(lead.metric("fix_rate"))),
         "of stage-1 wrong samples", ""),
        (lead.metric("break_rate"), "Break rate", markdown_cell(values.get(lead.metric("break_rate"))),
         "of stage-1 correct samples", ""),
        (lead.metric("net_gain"), "Net gain", markdown_cell(values.get(lead.metric("net_gain"))),
         "(fixes − breaks) / N", ""),
        *([("cda", "CDA", markdown_cell(values.get("cda")), "fixes among changed wrong samples", "")]
          if lead.unit == "refpol" else []),
    ]
    reason = lead.reason()
    why = f'<p class="lead-reason" id="lead-reason">{esc(reason)}.</p>' if reason else ""
    return why + '<div class="cards">' + "".join(
        f'<div class="card"><div class="card-label">{esc(label)}</div>'
        f'<div class="card-value {"warned" if metric in marks else tone}">{marked(value, marks.get(metric, ()))}</div>'
        f'<div class="card-note">{esc(note)}</div></div>'
        for metric, label, value, note, tone in cards
    ) + "</div>"


def _reason(lead: Lead) -> str:
    reason = lead.reason()
    return "" if reason is None else esc(reason + ".")


def _fact(fact: Fact) -> str:
    names = ", ".join(f"<code>{name_html(name)}</code>" for name in fact.names)
    return f"{esc(fact.label)}: " + " ".join(part for part in (names, esc(fact.note)) if part)



def _facts(facts: Sequence[Fact]) -> str:
    """The facts but the run (the heading names it) as one line, names from the input as code."""
    shown = [_fact(fact) for fact in facts if fact.label != "Run"]
    return " · ".join([*shown, f"absa-aggregator {esc(__version__)}"])


def unit_labels(marks: Marks) -> list[str]:
    """The units' chart labels; a unit whose final F1 a warning marks carries the marker."""
    return [UNIT_LABELS[u] + (f" {MARK}" if f"tuple_f1_s2{suffix(u)}" in marks else "") for u in UNITS]


def _chart_rows(
    values: Mapping[str, MetricValue], counts: dict[str, dict[str, int]], labels: list[str]
) -> tuple[list[charts.Row], list[charts.Row]]:
    f1: list[charts.Row] = [
        {"unit": label, "stage": stage, "f1": values.get(f"tuple_f1_{s}{suffix(u)}")}
        for u, label in zip(UNITS, labels)
        for s, stage in (("s1", "Stage 1"), ("s2", "Final"))
    ]
    moves: list[charts.Row] = [{"unit": label, "kind": k, "n": counts[u][k]} for u, label in zip(UNITS, labels) for k in TRANSITIONS]
    return f1, moves


def _cap_note(shown: int, total: int) -> str:
    """Says when the sample table holds only some samples, and where all of them are."""
    if shown == total:
        return ""
    return (
        f'<p class="warning" id="samples-capped">This table shows the first {shown:,} of {total:,} samples '
        "(in sample-key order; long texts cut with …) to keep this page small. Every sample, in full, is in "
        "<code>per_sample.parquet</code> and <code>per_sample.csv</code> beside this report; the headline, the "
        "charts and every metric above count all of them.</p>"
    )


def run_report(evaluation: RunEvaluation, facts: Sequence[Fact] | None = None) -> bytes:
    """The run's ``report.html`` as bytes, with ``facts`` (default: :func:`~aggregator.outputs.facts.run_facts`)."""
    values = evaluation.metrics
    marks = evaluation.run_warnings.marks()
    lead = evaluation.run_warnings.lead()
    counts = transition_counts(evaluation.table)
    units = unit_labels(marks)
    f1_rows, move_rows = _chart_rows(values, counts, units)
    n_gold = values["N_gold"]
    run_name = ", ".join(evaluation.run_ids)
    samples, shown = capped_payload(evaluation.table, {u: UNIT_NAMES[u] for u in UNITS})
    errors_html, error_charts = error_section(evaluation, marks)
    samples["lead"] = lead.unit
    body = f"""
<header>
  <h1>{", ".join(map(name_html, evaluation.run_ids))} <span class="kind">· run report</span></h1>
  <p class="facts">{_facts(run_facts(evaluation) if facts is None else facts)}</p>
</header>
<main>
{warning_banner(evaluation.run_warnings)}
<section id="headline">
  <h2>Headline</h2>
  {key_figures(values, marks, lead)}
  {headline_table(evaluation.registry, values, counts, marks, lead)}
  <p class="note">Means over the {esc(n_gold)} samples with gold. A sample is <em>correct</em> when its precision and
  recall are both 1 under the unit. Fix rate = fix / (fix + still); break rate = break / (break + keep);
  net gain = (fix − break) / N. N/A: undefined for this input. Hover a column for its definition.</p>
  {intervals_html(evaluation, marks)}
</section>
<section id="charts" class="grid2">
  <figure><figcaption>Stage 1 vs final, per unit</figcaption><div class="chart" data-chart="stage_f1"></div></figure>
  <figure><figcaption>What the review did to each sample, per unit</figcaption>
    <div class="chart" data-chart="transitions"></div></figure>
</section>
{errors_html}
<section id="samples">
  <h2>Samples</h2>
  <p class="note">Each tuple reads <em>ref</em> · “term” · polarity. Pick a unit to see its transition and F1 per
  sample; the filters count samples with gold under that unit. Misses are samples wrong at the final stage.
  {_reason(lead)}</p>
  {_cap_note(shown, evaluation.table.height)}
  <div id="sample-table"></div>
</section>
<section id="appendix">
  <h2>Appendix</h2>
  {metric_rows_table(evaluation.registry, values, section="appendix", marks=marks, absent=evaluation.absent)}
</section>
<section id="all-metrics">
  <h2>All metrics</h2>
  {metrics_details(evaluation.registry, values, marks=marks, absent=evaluation.absent)}
</section>
</main>
"""
    data = {
        "charts": {
            "stage_f1": charts.stage_f1(f1_rows, units=units),
            "transitions": charts.transitions(move_rows, units=units),
            **error_charts,
        },
        "samples": samples,
    }
    return page(title=f"{printable(run_name)} — run report", body=body, data=data)
