"""The ``## Error anatomy by unit`` section of ``structural_metrics_table.md``: per unit, the class table of
both stages with n, what the review did by class, the class changes, and examples per class.

Numbers are the run's registry metrics (:mod:`aggregator.metrics.errors`); a unit whose final F1
a warning marks (e.g. ``ref_unmeasurable``) carries the marker and the code.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from aggregator.outputs.cells import NOT_AVAILABLE, markdown_cell
from aggregator.outputs.error_views import EXAMPLES, change_counts, examples, units_shown
from aggregator.text import md_code, md_text
from aggregator.units.error_anatomy import UNIT_CLASSES, gold_side
from aggregator.units.error_classes import BOUNDARY_THRESHOLD, EXACT, MISSED, SPURIOUS

if TYPE_CHECKING:
    import polars as pl

    from aggregator.run.pipeline import RunEvaluation

MARK = "⚠"
UNIT_TITLES = {"refpol": "Ref (refpol)", "otepol": "Surface (otepol)", "attrpol": "Attr (attrpol)"}
INTRO = (f"Every gold and predicted pair of a unit classified at each stage, by precedence: exact, polarity, "
         f"category (units with a ref), boundary (terms overlapping by at least {BOUNDARY_THRESHOLD:.0%} of the "
         "shorter), implicit, then spurious (predictions left over) and missed (gold pairs left over); one prediction "
         "explains at most one gold pair. Samples with gold only. Per gold: share of the unit's gold pairs (n gold); "
         "per pred: share of the stage's predicted pairs (n pred). Definitions, precedence and examples: docs/errors.md.")


def _unit_marks(unit: str, marks: Mapping[str, Sequence[str]]) -> str:
    codes = marks.get("tuple_f1_s2" + ("" if unit == "refpol" else f"_{unit}"), ())
    return f" {MARK} ({', '.join(md_code(c) for c in codes)}: see Warnings)" if codes else ""


def class_table(values: Mapping[str, object], unit: str) -> list[str]:
    """One row per class: count, per gold and per pred at stage 1 and at the final stage."""
    lines = ["| Class | S1 | S1 per gold | S1 per pred | Final | Final per gold | Final per pred |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    golds, preds = (EXACT, *gold_side(unit)), (EXACT, *(c for c in UNIT_CLASSES[unit] if c != MISSED))
    for cls in (EXACT, *UNIT_CLASSES[unit]):
        cells = []
        for stage in ("s1", "s2"):
            base = f"errors_{cls}_{stage}_{unit}"
            cells += [markdown_cell(values.get(base)),
                      markdown_cell(values.get(f"{base}_per_gold")) if cls in golds else "—",
                      markdown_cell(values.get(f"{base}_per_pred")) if cls in preds else "—"]
        lines.append(f"| {cls} | " + " | ".join(cells) + " |")
    return lines


def moves_table(values: Mapping[str, object], unit: str) -> list[str]:
    """One row per error class: stage-1 count, repaired, changed class, introduced, final count (rates beside)."""
    lines = ["| Class | S1 | Repaired (rate) | Changed class (rate) | Introduced (share of final) | Final |",
             "|---|---:|---:|---:|---:|---:|"]

    def with_rate(name: str) -> str:
        if name not in values:
            return "—"
        return f"{markdown_cell(values.get(name))} ({markdown_cell(values.get(name + '_rate'))})"

    for cls in UNIT_CLASSES[unit]:
        lines.append(f"| {cls} | {markdown_cell(values.get(f'errors_{cls}_s1_{unit}'))} "
                     f"| {with_rate(f'errors_repaired_{cls}_{unit}')} | {with_rate(f'errors_changed_{cls}_{unit}')} "
                     f"| {with_rate(f'errors_introduced_{cls}_{unit}')} | {markdown_cell(values.get(f'errors_{cls}_s2_{unit}'))} |")
    return lines


def _changes_line(table: pl.DataFrame, unit: str) -> str:
    found = change_counts(table, unit)
    if not found:
        return "Class changes (stage 1 → final): none."
    listed = ", ".join(f"{a} → {b} {n}" for (a, b), n in sorted(found.items(), key=lambda kv: (-kv[1], kv[0])))
    return f"Class changes (stage 1 → final, gold pairs): {listed}."


def _examples(table: pl.DataFrame, unit: str) -> list[str]:
    """One line per example; every text from the input as escaped prose (:func:`~aggregator.text.md_text`)."""
    lines = []
    for cls, found in examples(table, unit).items():
        for ex in found:
            sides = [f"gold {md_text(ex.gold)}" if ex.gold else "", f"final {md_text(ex.pred)}" if ex.pred else ""]
            sentence = f" — {md_text(ex.text)}" if ex.text else ""
            lines.append(f"- **{cls}** · sample {md_text(ex.sample_key)}: " + " ↔ ".join(s for s in sides if s) + sentence)
    return lines or ["- no error at the final stage."]


def errors_section(evaluation: RunEvaluation) -> str:
    """The section, or ``""`` when the errors family is not in force."""
    table, values = evaluation.table, evaluation.metrics
    units = units_shown(table)
    if not units:
        return ""
    marks = evaluation.run_warnings.marks()
    lines = ["## Error anatomy by unit", "", INTRO, ""]
    for unit in units:
        n_gold = markdown_cell(values.get(f"errors_n_gold_{unit}"))
        n_pred = ", ".join(f"{st} = {markdown_cell(values.get(f'errors_n_pred_{s}_{unit}'))}"
                           for s, st in (("s1", "S1"), ("s2", "final")))
        lines += [f"### {UNIT_TITLES[unit]}{_unit_marks(unit, marks)}", "",
                  f"n gold = {n_gold}; n pred {n_pred}.", "", *class_table(values, unit), "",
                  "What the review did: repaired = a stage-1 error of the class gone at the final stage (its gold pair "
                  "exact, its spurious pair dropped or explaining a gold pair); changed = became another error class; "
                  "introduced = a final error of the class that was none at stage 1. Rates over the class's stage-1 "
                  "count (introduced: its final count).", "", *moves_table(values, unit), "",
                  _changes_line(table, unit), "",
                  f"Examples at the final stage (the first {EXAMPLES} samples in sample-key order "
                  "per class; pairs as the unit keys them: key · terms · polarity):", "", *_examples(table, unit), ""]
    lines.append(f"{NOT_AVAILABLE}: undefined (a 0 denominator); —: the class has no such side "
                 f"({SPURIOUS} has no gold pair, {MISSED} no prediction).")
    return "\n".join(lines) + "\n"
