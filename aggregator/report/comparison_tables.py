"""The tables of ``comparison_report.html``: conditions and contrasts (values a warning covers greyed
with ⚠), agreement of the review agents, flips, self-consistency and every run."""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from aggregator.compare.cells import interval, is_count, label, mean_sd, p_cell, signed, value
from aggregator.compare.markdown import AGREEMENT, agreement_rows, codes_of, runs_defined
from aggregator.compare.tables import UNIT_SUFFIXES
from aggregator.metrics.structural import STRUCTURAL, UNIT_LABELS
from aggregator.outputs.cells import markdown_cell
from aggregator.report.html import esc
from aggregator.report.warnings_html import MARK, marked

if TYPE_CHECKING:
    import polars as pl

    from aggregator.compare.result import ComparisonResult

UNITS = dict(zip(UNIT_LABELS, UNIT_SUFFIXES))


def _shown(result: ComparisonResult, frame: pl.DataFrame) -> list[dict[str, Any]]:
    """The rows of the shown metrics, in their order (Polars types row values as Any)."""
    order = {m: i for i, m in enumerate(result.metrics_shown)}
    return sorted((r for r in frame.iter_rows(named=True) if r["metric"] in order),
                  key=lambda r: order[str(r["metric"])])


def _table(header: list[str], rows: list[list[str]], numeric_from: int, cls: str = "data") -> str:
    head = "".join(f'<th class="{"num" if i >= numeric_from else ""}">{esc(h)}</th>' for i, h in enumerate(header))
    body = "".join(f"<tr>{''.join(rows_cells)}</tr>" for rows_cells in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _num(text: str, tone: str = "", codes: list[str] | None = None) -> str:
    """A numeric cell; a value a warning covers is greyed (no tone) and carries ⚠ (its codes on hover)."""
    if codes:
        return f'<td class="num warned">{marked(text, codes)}</td>'
    return f'<td class="num {tone}">{esc(text)}</td>'


def _tone(low: float | None, high: float | None) -> str:
    """Green when the interval lies above 0, red when below, plain when it contains 0."""
    if low is None or high is None:
        return ""
    return "good" if low > 0 else "bad" if high < 0 else ""


def conditions_table(result: ComparisonResult) -> str:
    """Per shown metric and condition: runs, seeds, mean ± SD and the 95% interval of the mean."""
    header = ["Metric", "Condition", "Runs", "Seeds", "Mean ± SD", "95% CI", "Seed share", "Note"]
    rows = []
    for r in _shown(result, result.conditions):
        name = esc(r["condition"]) + (' <span class="tag">baseline</span>' if r["condition"] == result.baseline else "")
        seeds = ", ".join(map(str, r["seeds"])) or "—"
        codes, count = codes_of(r), is_count(r["metric"])
        rows.append([f"<td>{esc(label(str(r['metric'])))}</td>", f'<th scope="row">{name}</th>',
                     _num(runs_defined(r)), f"<td>{esc(seeds)}</td>", _num(mean_sd(r), codes=codes),
                     _num(interval(r["ci_low"], r["ci_high"], count=count), codes=codes),
                     _num(markdown_cell(r["seed_share"], 2)), _note(r)])
    return _table(header, rows, 2)


def _note(row: dict[str, object]) -> str:
    codes = codes_of(row)
    warned = f'<span class="mark">{MARK}</span> {esc(", ".join(codes))}' if codes else ""
    return f"<td>{'; '.join(p for p in (esc(str(row['note'] or '')), warned) if p)}</td>"


def paired_table(result: ComparisonResult) -> str:
    """Each contrast for the shown metrics: n, both means, Δ with its 95% interval, p."""
    header = ["Metric", "A", "B", "Samples", "Mean A", "Mean B", "Δ", "95% CI", "p", "Note"]
    rows = []
    for r in _shown(result, result.paired):
        codes, count = codes_of(r), is_count(r["metric"])
        rows.append([f"<td>{esc(label(str(r['metric'])))}</td>", f"<td>{esc(r['condition_a'])}</td>",
                     f'<th scope="row">{esc(r["condition_b"])}</th>', _num(str(r["n_samples"])),
                     _num(value(r["mean_a"], count), codes=codes), _num(value(r["mean_b"], count), codes=codes),
                     _num(signed(r["delta"], count), _tone(r["ci_low"], r["ci_high"]), codes),
                     _num(interval(r["ci_low"], r["ci_high"], sign=True, count=count), codes=codes),
                     _num(p_cell(r["p_value"])), _note(r)])
    return _table(header, rows, 3)


def agreement_table(result: ComparisonResult) -> str:
    """Fleiss' κ and Krippendorff's α of the review agents with their intervals."""
    header = ["Scope", "Runs", "Samples", "Tuples", *(text for _, text in AGREEMENT)]
    rows = [[f'<th scope="row">{r[0]}</th>', *(_num(c) for c in r[1:])]
            for r in agreement_rows(result.agreement, scope=lambda text: esc(str(text)))]
    return _table(header, rows, 1)


def flips_table(result: ComparisonResult) -> str:
    """Per pair of conditions and unit: samples correct in both, only A, only B, neither."""
    header = ["A", "B", "Unit", "Samples", "Both correct", "Only A", "Only B", "Neither"]
    rows = [
        [f"<td>{esc(r['condition_a'])}</td>", f"<td>{esc(r['condition_b'])}</td>",
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
        [f'<th scope="row">{esc(r["condition"])}</th>', _num(str(r["n_runs"])), _num(str(r["n_samples"])),
         _num(markdown_cell(r["cross_run_tuple_agreement"])), _num(markdown_cell(r["mean_jaccard"])),
         *(_num(markdown_cell(r[f"{u}_correct_agreement"])) for u in UNITS)]
        for r in result.self_consistency.iter_rows(named=True)
    ]
    return _table(header, rows, 1)


@cache
def _affected(code: str) -> frozenset[str]:
    from aggregator.run_warnings import all_warnings

    return frozenset(all_warnings()[code].affected(STRUCTURAL))


def _covers(code: str, metric: str) -> bool:
    return metric in _affected(code)


def runs_table(result: ComparisonResult) -> str:
    """Every run with its F1 final and ΔF1 per unit; a value one of the run's warnings covers is greyed with ⚠."""
    metrics = [f"{n}{s}" for n in ("tuple_f1_s2", "delta_f1") for s in UNITS.values()]
    header = ["Run", "Condition", "Seed", *(STRUCTURAL[m].label for m in metrics)]
    rows = [
        [f"<td>{esc(r['run_id'])}</td>", f"<td>{esc(r['condition'])}</td>",
         _num("—" if r["seed"] is None else str(r["seed"])),
         *(_num(markdown_cell(r[m]), codes=[c for c in r["warnings"] if _covers(c, m)]) for m in metrics)]
        for r in result.runs.iter_rows(named=True)
    ]
    return _table(header, rows, 2)


