"""``aggregate samples RUN``: the samples behind the numbers (sentence and tuples), on the terminal or as JSON.

``--only misses`` lists the samples wrong at the final stage under ``--unit`` (still wrong or
broken), ``fixes`` and ``breaks`` the review's transitions, ``changed`` the samples whose unit
pairs the review changed, ``error:CLASS`` (polarity, category, boundary, implicit, spurious,
missed) the samples with an error of that class at the final stage (docs/errors.md). Each tuple
carries its mark under the unit (:mod:`aggregator.units.sample_marks`): ✓ matched, ✗ not
matched, · no pair in the unit; + added by the review, − dropped by it; and its error class
(:mod:`aggregator.units.error_marks`), shown beside it by an ``error:`` filter.
Nothing is written to disk.
"""

from __future__ import annotations

import io
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from aggregator.commands.exits import report_skips, user_errors
from aggregator.commands.terminal import out_lines, say_json, warn
from aggregator.units.lead import UNIT_ALIASES, chosen_unit

if TYPE_CHECKING:
    import polars as pl

    from aggregator.run.pipeline import RunEvaluation

ONLY = {
    "all": "every sample",
    "misses": "wrong at the final stage (still wrong or broken)",
    "fixes": "wrong at stage 1, correct at the final stage",
    "breaks": "correct at stage 1, wrong at the final stage",
    "changed": "the review changed the unit's pairs",
}
ERROR_CLASSES = ("polarity", "category", "boundary", "implicit", "spurious", "missed")
ONLY.update({f"error:{c}": f"a {c} error at the final stage" for c in ERROR_CLASSES})
SYMBOLS = {"m": "✓", "x": "✗", "-": "·"}
STAGE_KEYS = {"gold": "gold_tuples", "s1": "stage1_tuples", "s2": "final_tuples"}


@click.command("samples")
@click.argument("run", type=click.Path(path_type=Path, readable=False))
@click.option("--unit", type=click.Choice(tuple(UNIT_ALIASES), case_sensitive=False), default=None,
              help="Unit whose transitions and marks are shown: ref (Ref-F1; also refpol), surface (Surface-F1; "
                   "otepol), attr (Attr-F1; attrpol) [default: Ref-F1, or the first unit a warning leaves "
                   "measurable, said in a line above the samples].")
@click.option("--only", type=click.Choice(tuple(ONLY)), default="all", show_default=True,
              help="Which samples: " + "; ".join(f"{k}: {v}" for k, v in ONLY.items()) + ".")
@click.option("--limit", type=click.IntRange(min=0), default=20, show_default=True,
              help="Show at most this many samples (0: all).")
@click.option("--profile", help="Only rows of this profile.")
@click.option("--skip-bad-lines", is_flag=True, help="Skip and report bad lines instead of stopping.")
@click.option("--taxonomy", type=click.Path(path_type=Path, dir_okay=False), help="Taxonomy of valid refs (JSON).")
@click.option("--json", "as_json", is_flag=True, help="Print the samples as JSON.")
@user_errors
def samples_command(run: Path, unit: str | None, only: str, limit: int, profile: str | None, skip_bad_lines: bool,
                    taxonomy: Path | None, as_json: bool) -> None:
    """Show the samples of RUN (a run directory or scorecards file): text, gold, stage 1 and final tuples."""
    from aggregator.commands.summary import warning_lines
    from aggregator.run.pipeline import evaluate_run
    from aggregator.units.taxonomy import use_taxonomy

    use_taxonomy(taxonomy)
    evaluation = evaluate_run(run, profile=profile, skip_bad_lines=skip_bad_lines)
    report_skips(evaluation.skipped)
    for line in warning_lines(evaluation):
        warn(line)
    lead = evaluation.run_warnings.lead() if unit is None else chosen_unit(unit)
    if only.startswith("error:") and f"err_{lead.unit}_s2_{only[6:]}" not in evaluation.table.columns:
        raise click.UsageError(f"--only {only}: the {lead.name} unit carries no ref, so it has no {only[6:]} errors "
                               "(use --unit ref or attr)")
    rows = selected_samples(evaluation, lead.unit, only)
    shown = rows if limit == 0 else rows[:limit]
    codes = evaluation.run_warnings.marks().get(lead.metric("tuple_f1_s2"), [])
    if as_json:
        payload = {"input": str(evaluation.input_path), "unit": lead.unit, "unit_name": lead.name,
                   "unit_reason": lead.reason(), "unit_warnings": codes, "only": only, "total": len(rows),
                   "samples": shown}
        say_json(payload)
        return
    marked = f" [{', '.join(codes)}]" if codes else ""
    title = (f"{only} under {lead.name}{marked} ({ONLY[only]}): {len(rows)} samples"
             + (f", the first {len(shown)} shown (--limit)" if len(shown) < len(rows) else ""))
    reason = lead.reason()
    out_lines(([] if reason is None else [f"{reason} (--unit to choose)"])
              + render_table(shown, lead.name, title, classes=only.startswith("error:")))


def _selection(table: pl.DataFrame, unit: str, only: str, changed: list[bool]) -> list[bool]:
    transition = table.get_column(f"{unit}_transition").to_list()
    has_gold = table.get_column("has_gold").to_list()
    if only == "all":
        return [True] * table.height
    if only == "changed":
        return changed
    if only.startswith("error:"):
        return (table.get_column(f"err_{unit}_s2_{only[6:]}") > 0).to_list()
    wanted = {"misses": ("break", "still"), "fixes": ("fix",), "breaks": ("break",)}[only]
    return [g and t in wanted for g, t in zip(has_gold, transition)]


def selected_samples(evaluation: RunEvaluation, unit: str, only: str) -> list[dict[str, Any]]:
    """The samples ``only`` selects under ``unit``, in sample-key order, each with its tuples and marks."""
    from aggregator.units.error_marks import tuple_classes
    from aggregator.units.projection import UNITS
    from aggregator.units.sample_marks import all_marks, tuples_of

    table = evaluation.table
    marks = all_marks(table, [UNITS[unit]])[unit]
    changed = [any(c.isupper() for c in a + b) for a, b in zip(marks["s1"], marks["s2"])]
    keep = _selection(table, unit, only, changed)
    out: list[dict[str, Any]] = []
    columns = ("sample_key", "run_id", "input_text", "has_gold", f"{unit}_transition", f"{unit}_s1_f1", f"{unit}_s2_f1",
               *STAGE_KEYS.values())
    for i, row in enumerate(table.select(columns).iter_rows(named=True)):
        if not keep[i]:
            continue
        sample: dict[str, Any] = {
            "sample_key": row["sample_key"], "run_id": row["run_id"], "text": row["input_text"],
            "transition": row[f"{unit}_transition"] if row["has_gold"] else None,
            "f1_s1": row[f"{unit}_s1_f1"], "f1_s2": row[f"{unit}_s2_f1"], "changed": changed[i],
        }
        tuples = {stage: tuples_of(row[column]) for stage, column in STAGE_KEYS.items()}
        errors = dict(zip(STAGE_KEYS, tuple_classes(unit, *tuples.values())))
        for stage in STAGE_KEYS:
            sample[stage] = [
                {"ref": t.aspect_ref, "term": t.aspect_term, "polarity": t.polarity, "mark": mark, "error": error}
                for t, mark, error in zip(tuples[stage], marks[stage][i], errors[stage])
            ]
        out.append(sample)
    return out


def tuple_line(t: dict[str, Any], stage: str, classes: bool = False) -> str:
    """One tuple as ``✓ ref · "term" · polarity``, with + (added) or − (dropped) by the review;
    ``classes``: and its error class when it is not exact (``[boundary]``)."""
    mark = t["mark"]
    change = {"s1": " −", "s2": " +"}.get(stage, "") if mark.isupper() else ""
    term = f"“{t['term']}”" if t["term"] else "implicit"
    error = f" [{t['error']}]" if classes and t.get("error") not in (None, "exact") else ""
    return f"{SYMBOLS[mark.lower()]}{change} {t['ref'] or 'no ref'} · {term} · {t['polarity']}{error}"


def render_table(samples: list[dict[str, Any]], unit: str, title: str, classes: bool = False) -> list[str]:
    """The samples as the lines of a rich table (wrapped to the terminal, plain text when piped); every
    text from the input is escaped (:func:`~aggregator.text.printable`) before the cells are composed.
    ``classes``: each tuple that is not exact carries its error class."""
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from aggregator.text import printable

    table = Table(title=escape(title), show_lines=True, title_justify="left")  # "[code]" is no markup
    for name, ratio in (("Sample · sentence", 3), ("Transition · F1 S1 → S2", 1), ("Gold", 2), ("Stage 1", 2),
                        ("Final", 2)):
        table.add_column(name, overflow="fold", ratio=ratio)
    for s in samples:
        f1 = f"{s['f1_s1']:.4f} → {s['f1_s2']:.4f}"
        table.add_row(  # texts from the input are never rich markup
            escape(printable(s["sample_key"]) + (f"\n\n{printable(s['text'])}" if s["text"] else "")),
            f"{s['transition'] or 'no gold'}\n{f1}",
            *(escape("\n".join(printable(tuple_line(t, stage, classes)) for t in s[stage])) or "none"
              for stage in STAGE_KEYS),
        )
    terminal = shutil.get_terminal_size((160, 24)).columns if sys.stdout.isatty() else 160
    buffer = io.StringIO()
    Console(file=buffer, width=terminal, color_system=None).print(table)
    legend = f"{unit}: ✓ matched  ✗ not matched  · no pair under the unit  + added by the review  − dropped by it"
    if classes:
        legend += "  [class] error class at the tuple's stage (gold: against the final stage)"
    return [*(line.rstrip() for line in buffer.getvalue().rstrip("\n").splitlines()), legend]
