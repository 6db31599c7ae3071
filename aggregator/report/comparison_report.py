"""``report.html`` of a comparison: conditions with seed scatter, paired differences, flips, self-consistency.

Everything comes from a :class:`~aggregator.compare.result.ComparisonResult`: per-run values
from ``runs``, means, SDs and the 95% intervals of the means from ``conditions``, the contrasts'
intervals and p-values from ``paired``, and the ``flips`` and ``self_consistency`` tables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import polars as pl

from aggregator.compare.degenerate import degenerate_notes
from aggregator.compare.markdown import (
    AGREEMENT,
    agreement_rows,
    interval,
    label,
    mean_sd,
    method_caption,
    p_cell,
    signed,
)
from aggregator.compare.tables import UNIT_SUFFIXES
from aggregator.metrics.structural import STRUCTURAL, UNIT_LABELS
from aggregator.outputs.cells import markdown_cell
from aggregator.report import charts
from aggregator.report.html import esc, name_html, page, text_html
from aggregator.version import __version__

if TYPE_CHECKING:
    from aggregator.compare.result import ComparisonResult

STATISTIC_LABELS = {"tuple_f1_s2": "F1 S2", "delta_f1": "ΔF1 (S2 − S1)"}
UNITS = dict(zip(UNIT_LABELS, UNIT_SUFFIXES))
METRIC_LABELS = {
    "tuple_f1_s2": "F1 S2",
    "tuple_f1_s1": "F1 S1",
    "delta_f1": "ΔF1 (S2 − S1)",
    "fix_rate": "Fix rate",
    "break_rate": "Break rate",
    "net_gain": "Net gain",
}
FACET_WIDTH = 330
LISTED_CONDITIONS = 6
"""Up to this many conditions are named in the page header; more are only in the tables."""


def _metric(name: str, unit: str) -> str:
    return f"{name}{UNITS[unit]}"


def _by_metric(frame: pl.DataFrame, key: str) -> dict[tuple[str, str], dict[str, object]]:
    return {(str(r[key]), str(r["metric"])): r for r in frame.iter_rows(named=True)}


def condition_rows(result: ComparisonResult) -> list[dict[str, object]]:
    """Chart rows: per metric, unit and condition the mean with its 95% interval, and each seed's value."""
    rows: list[dict[str, object]] = []
    summaries = _by_metric(result.conditions, "condition")
    for name, text in METRIC_LABELS.items():
        for unit in UNITS:
            metric = _metric(name, unit)
            runs = result.runs.select("condition", "seed", "run_id", metric).drop_nulls(metric)
            for condition in result.conditions_order:
                mine = runs.filter(pl.col("condition") == condition)
                summary = summaries[(condition, metric)]
                base = {"metric": text, "unit": UNIT_LABELS[unit], "condition": condition}
                rows.append({**base, "kind": "mean", "value": summary["mean"], "low": summary["ci_low"],
                             "high": summary["ci_high"], "n": mine.height})
                rows += [{**base, "kind": "seed", "seed": r["seed"] if r["seed"] is not None else r["run_id"],
                          "value": r[metric]} for r in mine.iter_rows(named=True)]
    return rows


def p_text(p: float | None) -> str:
    """``p = 0.012``, ``p < 0.001``, or empty when undefined."""
    if p is None:
        return ""
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _against_baseline(result: ComparisonResult) -> pl.DataFrame:
    return result.paired.filter(pl.col("condition_a") == result.baseline)


def paired_rows(result: ComparisonResult) -> list[dict[str, object]]:
    """Chart rows: F1 S2 and ΔF1 per unit of each condition against the baseline."""
    rows = []
    for r in _against_baseline(result).iter_rows(named=True):
        for name, text in STATISTIC_LABELS.items():
            for unit, suffix in UNITS.items():
                if r["metric"] == f"{name}{suffix}":
                    rows.append({"statistic": text, "unit": UNIT_LABELS[unit], "condition": r["condition_b"],
                                 "delta": r["delta"], "low": r["ci_low"], "high": r["ci_high"],
                                 "p_text": p_text(r["p_value"]), "n": r["n_samples"]})
    return rows


def _table(header: list[str], rows: list[list[str]], numeric_from: int, cls: str = "data") -> str:
    head = "".join(f'<th class="{"num" if i >= numeric_from else ""}">{esc(h)}</th>' for i, h in enumerate(header))
    body = "".join(f"<tr>{''.join(rows_cells)}</tr>" for rows_cells in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _num(text: str, tone: str = "") -> str:
    return f'<td class="num {tone}">{esc(text)}</td>'


def _tone(low: float | None, high: float | None) -> str:
    """Green when the interval lies above 0, red when below, plain when it contains 0."""
    if low is None or high is None:
        return ""
    return "good" if low > 0 else "bad" if high < 0 else ""


def _shown(result: ComparisonResult, frame: pl.DataFrame) -> list[dict[str, Any]]:
    """The rows of the shown metrics, in their order (Polars types row values as Any)."""
    order = {m: i for i, m in enumerate(result.metrics_shown)}
    return sorted((r for r in frame.iter_rows(named=True) if r["metric"] in order),
                  key=lambda r: order[str(r["metric"])])


def conditions_table(result: ComparisonResult) -> str:
    """Per shown metric and condition: runs, seeds, mean ± SD and the 95% interval of the mean."""
    header = ["Metric", "Condition", "Runs", "Seeds", "Mean ± SD", "95% CI", "Seed share", "Note"]
    rows = []
    for r in _shown(result, result.conditions):
        name = name_html(r["condition"]) + (' <span class="tag">baseline</span>' if r["condition"] == result.baseline else "")
        seeds = ", ".join(map(str, r["seeds"])) or "—"
        rows.append([f"<td>{esc(label(str(r['metric'])))}</td>", f'<th scope="row">{name}</th>',
                     _num(str(r["n_defined"])), f"<td>{esc(seeds)}</td>", _num(mean_sd(r)),
                     _num(interval(r["ci_low"], r["ci_high"])), _num(markdown_cell(r["seed_share"], 2)),
                     f"<td>{text_html(r['note'] or '')}</td>"])
    return _table(header, rows, 2)


def paired_table(result: ComparisonResult) -> str:
    """Each contrast for the shown metrics: n, both means, Δ with its 95% interval, p."""
    header = ["Metric", "A", "B", "Samples", "Mean A", "Mean B", "Δ", "95% CI", "p", "Note"]
    rows = [
        [f"<td>{esc(label(str(r['metric'])))}</td>", f"<td>{name_html(r['condition_a'])}</td>",
         f'<th scope="row">{name_html(r["condition_b"])}</th>', _num(str(r["n_samples"])),
         _num(markdown_cell(r["mean_a"])), _num(markdown_cell(r["mean_b"])),
         _num(signed(r["delta"]), _tone(r["ci_low"], r["ci_high"])),
         _num(interval(r["ci_low"], r["ci_high"], sign=True)), _num(p_cell(r["p_value"])),
         f"<td>{text_html(r['note'] or '')}</td>"]
        for r in _shown(result, result.paired)
    ]
    return _table(header, rows, 3)


def agreement_table(result: ComparisonResult) -> str:
    """Fleiss' κ and Krippendorff's α of the review agents with their intervals."""
    header = ["Scope", "Runs", "Samples", "Tuples", *(text for _, text in AGREEMENT)]
    rows = [[f'<th scope="row">{r[0]}</th>', *(_num(c) for c in r[1:])]
            for r in agreement_rows(result.agreement, name=name_html)]
    return _table(header, rows, 1)


def flips_table(result: ComparisonResult) -> str:
    """Per pair of conditions and unit: samples correct in both, only A, only B, neither."""
    header = ["A", "B", "Unit", "Samples", "Both correct", "Only A", "Only B", "Neither"]
    rows = [
        [f"<td>{name_html(r['condition_a'])}</td>", f"<td>{name_html(r['condition_b'])}</td>",
         f"<td>{esc(UNIT_LABELS[r['unit']])}</td>", _num(str(r["n_samples"])), _num(str(r["both"])),
         _num(str(r["only_a"]), "bad" if r["only_a"] else ""), _num(str(r["only_b"]), "good" if r["only_b"] else ""),
         _num(str(r["neither"]))]
        for r in result.flips.iter_rows(named=True)
    ]
    return _table(header, rows, 3)


def consistency_table(result: ComparisonResult) -> str:
    """Agreement between the seeds of each condition."""
    header = ["Condition", "Runs", "Samples", "Cross-run tuple agreement", "Mean Jaccard",
              *(f"{UNIT_LABELS[u]} correct agreement" for u in UNITS)]
    rows = [
        [f'<th scope="row">{name_html(r["condition"])}</th>', _num(str(r["n_runs"])), _num(str(r["n_samples"])),
         _num(markdown_cell(r["cross_run_tuple_agreement"])), _num(markdown_cell(r["mean_jaccard"])),
         *(_num(markdown_cell(r[f"{u}_correct_agreement"])) for u in UNITS)]
        for r in result.self_consistency.iter_rows(named=True)
    ]
    return _table(header, rows, 1)


def runs_table(result: ComparisonResult) -> str:
    """Every run with its F1 final and ΔF1 per unit."""
    metrics = [_metric(n, u) for n in ("tuple_f1_s2", "delta_f1") for u in UNITS]
    header = ["Run", "Condition", "Seed", *(STRUCTURAL[m].label for m in metrics)]
    rows = [
        [f"<td>{name_html(r['run_id'])}</td>", f"<td>{name_html(r['condition'])}</td>",
         _num("—" if r["seed"] is None else str(r["seed"])), *(_num(markdown_cell(r[m])) for m in metrics)]
        for r in result.runs.iter_rows(named=True)
    ]
    return _table(header, rows, 2)


def _facts(result: ComparisonResult) -> str:
    counts = ", ".join(f"{name_html(c)} × {n}" for c, n in result.runs.group_by("condition", maintain_order=True).len().iter_rows())
    return " · ".join([
        f"{result.runs.height} runs in {len(result.conditions_order)} conditions "
        + (f"({counts})" if len(result.conditions_order) <= LISTED_CONDITIONS else "(see the tables)"),
        f"baseline <code>{name_html(result.baseline)}</code>",
        f"{result.resamples} resamples, seed {result.seed}, SD ddof {result.ddof}",
        f"absa-aggregator {esc(__version__)}",
    ])


def _section(title: str, note: str, content: str, empty: str | None = None) -> str:
    """A section; ``title``, ``note`` and ``content`` are markup (a name in them: :func:`name_html`)."""
    return f'<section><h2>{title}</h2><p class="note">{note}</p>{empty or content}</section>'


def comparison_report(result: ComparisonResult) -> bytes:
    """The comparison's ``report.html`` as bytes."""
    units = [UNIT_LABELS[u] for u in UNITS]
    conditions = list(result.conditions_order)
    others = [c for c in conditions if c != result.baseline]
    degenerate = set(degenerate_notes(result.degenerate))
    notes = "".join(f"<li>{text_html(n)}</li>" for n in result.notes if n not in degenerate)
    if degenerate:
        cases = "".join(f"<li>{text_html(n)}</li>" for n in result.notes if n in degenerate)
        notes += (f"<li><details><summary>{len(degenerate)} degenerate case(s): metrics 0 or undefined in every run, "
                  f"identical runs, contrasts on few samples</summary><ul>{cases}</ul></details></li>")
    paired_empty = '<p class="note">Only one condition: nothing to pair.</p>' if not result.paired.height else None
    body = f"""
<header>
  <h1>Run comparison <span class="kind">· comparison report</span></h1>
  <p class="facts">{_facts(result)}</p>
</header>
<main>
{f'<ul class="notes">{notes}</ul>' if notes else ""}
{_section("Conditions", "Per condition: the mean over its seeds (blue tick) with the 95% interval of that mean "
          "over seeds and samples (blue bar), and one grey dot per seed. Pick the metric above the chart. "
          + esc(method_caption(result)),
          '<div class="chart" data-chart="conditions"></div>' + conditions_table(result))}
{_section(f"Against the baseline {name_html(result.baseline)}",
          "The condition's mean minus the baseline's, on the samples present in every run of both; dot = Δ, "
          "bar = its 95% interval, p from the same test. Right of the dashed line: higher than the baseline; "
          "green or red: the interval excludes 0. " + esc(method_caption(result)),
          '<div class="chart" data-chart="paired"></div>' + paired_table(result), paired_empty)}
{_section("Agreement of the review agents", "Agents A, B, C over the reviewed tuple ids; 95% percentile bootstrap "
          "intervals over samples.", agreement_table(result)) if result.agreement.height else ""}
{_section("Flips", "Samples correct at the final stage (in most of a condition's runs) under one condition "
          "and not the other.", flips_table(result),
          None if result.flips.height else '<p class="note">Only one condition: no pair.</p>')}
{_section("Self-consistency across seeds", "Tuple agreement: share of samples whose final tuple set is identical "
          "in every run of the condition. Mean Jaccard: mean pairwise overlap of final sets. Correct agreement: "
          "share of samples with gold whose final-stage correctness is the same in every run.",
          consistency_table(result),
          None if result.self_consistency.height else '<p class="note">No condition has two runs.</p>')}
<section><h2>Runs</h2><details><summary>All {result.runs.height} runs</summary>{runs_table(result)}</details>
</section>
</main>
"""
    data = {
        "charts": {
            "conditions": charts.condition_means(
                condition_rows(result), metrics=list(METRIC_LABELS.values()), units=units, conditions=conditions,
                width=FACET_WIDTH,
            ),
            "paired": charts.paired_deltas(
                paired_rows(result), statistics=list(STATISTIC_LABELS.values()), units=units, conditions=others,
                width=FACET_WIDTH,
            ),
        },
    }
    if not paired_rows(result):
        del data["charts"]["paired"]
    return page(title="Run comparison — report", body=body, data=data)
