"""``report.html`` of a comparison: conditions with seed scatter, paired differences, flips, self-consistency.

Everything comes from a :class:`~aggregator.compare.result.ComparisonResult`: per-run values
from ``runs``, means, SDs and the 95% intervals of the means from ``conditions``, the contrasts'
intervals and p-values from ``paired``, and the ``flips`` and ``self_consistency`` tables.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

from aggregator.compare.cells import SEED_SHARE, method_caption
from aggregator.compare.degenerate import degenerate_notes
from aggregator.compare.markdown import codes_of
from aggregator.metrics.structural import UNIT_LABELS
from aggregator.report import charts
from aggregator.report.comparison_tables import (
    UNITS,
    agreement_table,
    conditions_table,
    consistency_table,
    flips_table,
    paired_table,
    runs_table,
)
from aggregator.report.html import esc, page
from aggregator.report.warnings_html import MARK
from aggregator.units.lead import Lead
from aggregator.version import __version__

if TYPE_CHECKING:
    from aggregator.compare.result import ComparisonResult

STATISTIC_LABELS = {"tuple_f1_s2": "F1 S2", "delta_f1": "ΔF1 (S2 − S1)"}
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


def unit_order(result: ComparisonResult) -> list[str]:
    """The units (``refpol`` …), the one the comparison leads with first (:mod:`aggregator.units.lead`)."""
    return list(Lead(result.lead_unit).order())


def unit_label(result: ComparisonResult, unit: str) -> str:
    """A unit's chart label; one whose final F1 a warning covers in some condition carries ⚠."""
    codes = result.conditions.filter(pl.col("metric") == _metric("tuple_f1_s2", unit)).get_column("warnings")
    return UNIT_LABELS[unit] + (f" {MARK}" if codes.list.len().sum() else "")


def _by_metric(frame: pl.DataFrame, key: str) -> dict[tuple[str, str], dict[str, object]]:
    return {(str(r[key]), str(r["metric"])): r for r in frame.iter_rows(named=True)}


def condition_rows(result: ComparisonResult) -> list[dict[str, object]]:
    """Chart rows: per metric, unit and condition the mean with its 95% interval, and each seed's value."""
    rows: list[dict[str, object]] = []
    summaries = _by_metric(result.conditions, "condition")
    labels = {unit: unit_label(result, unit) for unit in UNITS}
    for name, text in METRIC_LABELS.items():
        for unit in UNITS:
            metric = _metric(name, unit)
            runs = result.runs.select("condition", "seed", "run_id", metric).drop_nulls(metric)
            for condition in result.conditions_order:
                mine = runs.filter(pl.col("condition") == condition)
                summary = summaries[(condition, metric)]
                base = {"metric": text, "unit": labels[unit], "condition": condition,
                        "warned": bool(codes_of(summary))}
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
    labels = {unit: unit_label(result, unit) for unit in UNITS}
    for r in _against_baseline(result).iter_rows(named=True):
        for name, text in STATISTIC_LABELS.items():
            for unit, suffix in UNITS.items():
                if r["metric"] == f"{name}{suffix}":
                    rows.append({"statistic": text, "unit": labels[unit], "condition": r["condition_b"],
                                 "delta": r["delta"], "low": r["ci_low"], "high": r["ci_high"],
                                 "p_text": p_text(r["p_value"]), "n": r["n_samples"], "warned": bool(codes_of(r))})
    return rows


def _facts(result: ComparisonResult) -> str:
    counts = ", ".join(f"{esc(c)} × {n}" for c, n in result.runs.group_by("condition", maintain_order=True).len().iter_rows())
    return " · ".join([
        f"{result.runs.height} runs in {len(result.conditions_order)} conditions "
        + (f"({counts})" if len(result.conditions_order) <= LISTED_CONDITIONS else "(see the tables)"),
        f"baseline <code>{esc(result.baseline)}</code>",
        f"{result.resamples} resamples, seed {result.seed}, SD ddof {result.ddof}",
        f"absa-aggregator {esc(__version__)}",
    ])


def _section(title: str, note: str, content: str, empty: str | None = None) -> str:
    return f'<section><h2>{esc(title)}</h2><p class="note">{note}</p>{empty or content}</section>'


def comparison_report(result: ComparisonResult) -> bytes:
    """The comparison's ``report.html`` as bytes."""
    units = [unit_label(result, u) for u in unit_order(result)]
    conditions = list(result.conditions_order)
    others = [c for c in conditions if c != result.baseline]
    degenerate = set(degenerate_notes(result.degenerate))
    notes = "".join(f"<li>{esc(n)}</li>" for n in result.notes if n not in degenerate)
    if degenerate:
        cases = "".join(f"<li>{esc(n)}</li>" for n in result.notes if n in degenerate)
        notes += (f"<li><details><summary>{len(degenerate)} degenerate case(s): metrics 0 or undefined in every run, "
                  f"identical runs, contrasts on few samples</summary><ul>{cases}</ul></details></li>")
    paired_empty = '<p class="note">Only one condition: nothing to pair.</p>' if not result.paired.height else None
    body = f"""
<header>
  <h1>Run comparison <span class="kind">· comparison report</span></h1>
  <p class="facts">{_facts(result)}</p>
</header>
<main>
{f'<p class="lead-reason" id="lead-reason">{esc(result.lead_reason)}.</p>' if result.lead_reason else ""}
{f'<ul class="notes">{notes}</ul>' if notes else ""}
{_section("Conditions", "Per condition: the mean over its seeds (blue tick) with the 95% interval of that mean "
          "over seeds and samples (blue bar), and one grey dot per seed. Pick the metric above the chart. "
          f"Greyed, and {MARK} on the unit: values a coded warning covers (codes in the Note column). "
          + esc(method_caption(result) + " " + SEED_SHARE),
          '<div class="chart" data-chart="conditions"></div>' + conditions_table(result))}
{_section(f"Against the baseline {result.baseline}",
          "The condition's mean minus the baseline's, on the samples present in every run of both; dot = Δ, "
          "bar = its 95% interval, p from the same test. Right of the dashed line: higher than the baseline; "
          f"green or red: the interval excludes 0; greyed, and {MARK} on the unit: a coded warning covers the "
          "value. " + esc(method_caption(result) + " " + SEED_SHARE),
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
