r"""The paper table: ``paper.md``, ``paper.csv`` and ``paper.tex`` (booktabs), from the comparison's own numbers.

Rows are conditions (baseline first), columns the metrics of ``--metrics`` (default: the
registry's headline section, of the unit the comparison leads with: :func:`paper_metrics`). Each
metric has a value column — "mean ± SD" over seeds, or "mean [95% CI]" with ``--paper-cells ci``
— and, for every condition but the baseline, a Δ column: Δ against the baseline with
``*`` p < 0.05, ``**`` p < 0.01, ``***`` p < 0.001 (Holm-adjusted over the table's Δ cells with
``--holm``). The best mean of a column (by the metric's direction; none for a metric without one)
is bold. A count (Breaks) prints as a count. A value a coded warning covers is followed by ⚠
(``$^\dagger$`` in LaTeX, whose fonts lack ⚠) and a note under the table names each code.
The caption states the seeds, the SD's ddof (with SD cells), the interval method, resamples and
seed. ``paper.csv`` holds the same numbers at full precision, with each cell's codes
(``<metric>_warnings``, ``<metric>_delta_warnings``); they are those of ``conditions.csv`` and
``paired.csv``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from aggregator.compare.cells import interval, is_count, label, method_caption, signed, value
from aggregator.metrics.structural import STRUCTURAL
from aggregator.outputs.cells import NOT_AVAILABLE, csv_cell
from aggregator.stats.intervals import holm
from aggregator.text import md_code
from aggregator.units.lead import Lead

if TYPE_CHECKING:
    from aggregator.compare.result import ComparisonResult

CELLS = ("sd", "ci")
MARK = "⚠"
MARKERS = ((0.001, "***"), (0.01, "**"), (0.05, "*"))
LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
         "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "Δ": r"$\Delta$", "−": "$-$",
         "±": r"$\pm$", "→": r"$\to$", "≥": r"$\geq$", "≤": r"$\leq$", "×": r"$\times$", "·": r"$\cdot$",
         "∩": r"$\cap$", "∪": r"$\cup$", "—": "---", "–": "--", "θ": r"$\theta$", "<": r"$<$", ">": r"$>$",
         MARK: r"$^\dagger$"}


def marker(p: float | None) -> str:
    """Significance stars of a p-value (empty when undefined or ≥ 0.05)."""
    if p is None:
        return ""
    return next((stars for bound, stars in MARKERS if p < bound), "")


@dataclass(frozen=True)
class Cell:
    """One condition × metric: the condition's numbers and its Δ against the baseline."""

    mean: float | None
    sd: float | None
    ci_low: float | None
    ci_high: float | None
    delta: float | None = None
    delta_ci_low: float | None = None
    delta_ci_high: float | None = None
    p: float | None = None
    best: bool = False
    codes: tuple[str, ...] = ()
    delta_codes: tuple[str, ...] = ()


@dataclass(frozen=True)
class PaperTable:
    conditions: list[str]
    metrics: list[str]
    cells: dict[tuple[str, str], Cell]
    caption: str
    cell: str
    lead: str | None = None


def _best(values: dict[str, float | None], higher: bool | None) -> set[str]:
    defined = {c: v for c, v in values.items() if v is not None}
    if higher is None or not defined or len(set(defined.values())) == 1:
        return set()
    target = max(defined.values()) if higher else min(defined.values())
    return {c for c, v in defined.items() if v == target}


def paper_metrics(result: ComparisonResult) -> list[str]:
    """``--metrics`` when given, else the headline section of the registry (no aliases) for the unit
    the comparison leads with (:mod:`aggregator.units.lead`): Ref-F1's, or its counterparts of the
    lead unit (those that have one)."""
    if result.metrics_requested:
        return list(result.metrics_shown)
    lead = Lead(result.lead_unit)
    headline = [lead.metric(m.name) for m in STRUCTURAL if m.section == "headline" and m.alias_of is None]
    return [name for name in headline if name in STRUCTURAL]


def paper_table(result: ComparisonResult, cell: str = "sd") -> PaperTable:
    """The table of :func:`paper_metrics` (see the module doc)."""
    metrics = paper_metrics(result)
    order = [result.baseline] + [c for c in result.conditions_order if c != result.baseline]
    summary = {(r["condition"], r["metric"]): r for r in result.conditions.iter_rows(named=True)}
    deltas = {(r["condition_b"], r["metric"]): r for r in result.paired.iter_rows(named=True)
              if r["condition_a"] == result.baseline}
    p_values = {key: r["p_value"] for key, r in deltas.items() if key[1] in metrics}
    if result.holm and p_values:
        keys = list(p_values)
        adjusted = holm(np.array([np.nan if p_values[k] is None else p_values[k] for k in keys], dtype=np.float64))
        p_values = {k: None if np.isnan(a) else float(a) for k, a in zip(keys, adjusted)}
    cells: dict[tuple[str, str], Cell] = {}
    for metric in metrics:
        means = {c: summary[(c, metric)]["mean"] for c in order}
        best = _best(means, STRUCTURAL[metric].higher_is_better)
        for condition in order:
            s, d = summary[(condition, metric)], deltas.get((condition, metric), {})
            cells[(condition, metric)] = Cell(
                s["mean"], s["sd"], s["ci_low"], s["ci_high"], d.get("delta"), d.get("ci_low"), d.get("ci_high"),
                p_values.get((condition, metric)), condition in best,
                tuple(s["warnings"]), tuple(d.get("warnings") or ()))
    lead = None if result.metrics_requested or not result.lead_reason else f"{result.lead_reason} (--metrics to choose)."
    return PaperTable(order, metrics, cells, _caption(result, cell), cell, lead)


def _caption(result: ComparisonResult, cell: str) -> str:
    seeds = []
    for condition in result.conditions_order:
        mine = result.runs.filter(result.runs.get_column("condition") == condition).get_column("seed").drop_nulls()
        seeds.append(f"{condition}: {len(result.runs.filter(result.runs.get_column('condition') == condition))} runs"
                     + (f" (seeds {', '.join(map(str, mine.to_list()))})" if mine.len() else ""))
    shown = "mean ± SD over seeds" if cell == "sd" else "mean [95% CI] over seeds and samples"
    adjusted = ", Holm-adjusted over the table's Δ cells" if result.holm else ""
    return (f"Cells: {shown}. Runs per condition: {'; '.join(seeds)}. Δ: condition − {result.baseline}, "
            f"paired on samples; * p < 0.05, ** p < 0.01, *** p < 0.001{adjusted}. Bold: best mean per column. "
            + method_caption(result, sd=cell == "sd"))


def _value(c: Cell, kind: str, count: bool) -> str:
    if c.mean is None:
        return NOT_AVAILABLE
    mark = f" {MARK}" if c.codes else ""
    if kind == "sd":
        return value(c.mean, count) + ("" if c.sd is None else f" ± {value(c.sd, count)}") + mark
    ci = "" if c.ci_low is None or c.ci_high is None else f" {interval(c.ci_low, c.ci_high, count=count)}"
    return value(c.mean, count) + ci + mark


def _delta(c: Cell, count: bool) -> str:
    return "" if c.delta is None else signed(c.delta, count) + marker(c.p) + (f" {MARK}" if c.delta_codes else "")


def footnotes(table: PaperTable, *, latex: bool = False) -> list[str]:
    """The lines under the table: why its metrics are not Ref-F1's (when so; in LaTeX a comment above the
    table instead), then one line per warning code marking some cell: ``⚠ code: title; ... (docs/warnings.md)``."""
    from aggregator.run_warnings import all_warnings

    codes = dict.fromkeys(code for c in table.cells.values() for code in (*c.codes, *c.delta_codes))
    declared = all_warnings()
    return [*([table.lead] if table.lead and not latex else []),
            *(f"{MARK} {code}: {declared[code].title}; a value in some run of the condition is not a result "
              "(docs/warnings.md)." for code in codes)]


def header(table: PaperTable) -> list[str]:
    return ["Condition"] + [h for m in table.metrics for h in (label(m), "Δ")]


def text_rows(table: PaperTable) -> list[list[tuple[str, bool]]]:
    """Per condition, each cell's text and whether it is bold."""
    return [[(condition, False)] + [
        part for m in table.metrics
        for part in ((_value(table.cells[(condition, m)], table.cell, is_count(m)), table.cells[(condition, m)].best),
                     (_delta(table.cells[(condition, m)], is_count(m)), False))
    ] for condition in table.conditions]


def paper_markdown(table: PaperTable) -> str:
    head = header(table)
    lines = ["| " + " | ".join(head) + " |", "|---|" + "|".join("---:" for _ in head[1:]) + "|"]
    for row in text_rows(table):
        cells = [md_code(t, in_table=True) if i == 0 else t for i, (t, _) in enumerate(row)]
        lines.append("| " + " | ".join(f"**{c}**" if bold and t else c for c, (t, bold) in zip(cells, row)) + " |")
    notes = footnotes(table)
    return "\n".join(lines + ["", f"Table: {table.caption}", "", *(f"{n}  " for n in notes[:-1]), *notes[-1:],
                              *([""] if notes else [])])


def latex_escape(text: str) -> str:
    return "".join(LATEX.get(ch, ch) for ch in text)


def paper_latex(table: PaperTable) -> str:
    head = header(table)
    spec = "l" + "rr" * len(table.metrics)
    lines = [
        "% absa-aggregator paper table; needs \\usepackage{booktabs}",
        *([f"% {table.lead}"] if table.lead else []),
        "\\begin{table}[t]",
        "\\centering",
        "\\small",
        f"\\caption{{{latex_escape(table.caption)}}}",
        "\\label{tab:comparison}",
        f"\\begin{{tabular}}{{{spec}}}",
        "\\toprule",
        " & ".join(latex_escape(h) for h in head) + " \\\\",
        "\\midrule",
    ]
    for row in text_rows(table):
        cells = [f"\\textbf{{{latex_escape(t)}}}" if bold and t else latex_escape(t) for t, bold in row]
        lines.append(" & ".join(cells) + " \\\\")
    notes = [f"\\par\\smallskip{{\\footnotesize {latex_escape(n)}}}" for n in footnotes(table, latex=True)]
    return "\n".join(lines + ["\\bottomrule", "\\end{tabular}", *notes, "\\end{table}", ""])


def paper_csv(table: PaperTable) -> bytes:
    fields = {f: f for f in ("mean", "sd", "ci_low", "ci_high", "delta", "delta_ci_low", "delta_ci_high", "p")}
    fields.update(warnings="codes", delta_warnings="delta_codes")
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["condition", *(f"{m}_{f}" for m in table.metrics for f in fields)])
    for condition in table.conditions:
        writer.writerow([condition, *(_csv(getattr(table.cells[(condition, m)], field))
                                      for m in table.metrics for field in fields.values())])
    return buffer.getvalue().encode("utf-8")


def _csv(value: object) -> str:
    """A cell of paper.csv: full precision, codes separated by spaces."""
    return " ".join(value) if isinstance(value, tuple) else csv_cell(value)


def paper_files(result: ComparisonResult, cell: str) -> dict[str, bytes]:
    table = paper_table(result, cell)
    return {"paper.md": paper_markdown(table).encode("utf-8"), "paper.csv": paper_csv(table),
            "paper.tex": paper_latex(table).encode("utf-8")}


def metric_list(text: str | None) -> Sequence[str] | None:
    """``--metrics a,b,c`` as a list (None: the default set)."""
    if text is None:
        return None
    return [m.strip() for m in text.split(",") if m.strip()]
