"""What ``aggregate score`` prints: ``--json`` (the official and sound numbers, the compat report, per-unit
tables) or a few summary lines."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from aggregator.formats.evaluate import Evaluation
    from aggregator.formats.tally import Scores, Tallies

Semantics = str


def _main(spec_main: dict[str, str], values: dict[str, Scores]) -> dict[str, Any]:
    """One main unit: ``{precision, recall, f1}``; several: keyed by their ``--json`` names."""
    shaped = {key: dict(values[key]._asdict()) for key in spec_main}
    return next(iter(shaped.values())) if len(shaped) == 1 else shaped


def main_scores(evaluation: Evaluation, tallies: Tallies) -> dict[str, Scores]:
    return {key: tallies[(unit, "all")].scores() for key, unit in evaluation.spec.main.items()}


def unit_rows(tallies: Tallies) -> list[dict[str, Any]]:
    """One row per (unit, breakdown): counts and P/R/F1."""
    return [{"unit": unit, "breakdown": breakdown, **tally._asdict(), **tally.scores()._asdict()}
            for (unit, breakdown), tally in tallies.items()]


def payload(evaluation: Evaluation, semantics: Semantics = "sound") -> dict[str, Any]:
    """The ``--json`` object: ``official`` and ``sound`` P/R/F1 of the main unit(s), the compat report, the tables."""
    main = evaluation.spec.main
    official = evaluation.official if evaluation.crash is None else None
    scorer = evaluation.scorer
    return {
        "format": evaluation.spec.name,
        "semantics": semantics,
        "compat": scorer.name if scorer else None,
        "scorer": scorer.source if scorer else None,
        "official": _main(main, main_scores(evaluation, official)) if official is not None else None,
        "official_crash": evaluation.crash,
        "official_unavailable": None if scorer else f"no official scorer of {evaluation.spec.name} is reproduced",
        "sound": _main(main, main_scores(evaluation, evaluation.sound.totals)),
        "compat_report": [
            {"quirk": step.quirk.name, "meaning": step.quirk.meaning, "count": step.count,
             "effect": _main(main, step.effect)}
            for step in evaluation.steps if step.changed
        ],
        "units": {"sound": unit_rows(evaluation.sound.totals),
                  "official": unit_rows(official) if official is not None else []},
        "sentences": {"gold": len(evaluation.gold), "pred": len(evaluation.pred), "paired": len(evaluation.pairs)},
        "tuples": {"gold": sum(len(s.tuples) for s in evaluation.gold),
                   "pred": sum(len(s.tuples) for s in evaluation.pred)},
        "notes": evaluation.notes,
        "gold": str(evaluation.gold_path),
        "pred": str(evaluation.pred_path),
    }


def _line(label: str, scores: Scores) -> str:
    return f"    {label:<9} P {scores.precision:.4f}  R {scores.recall:.4f}  F1 {scores.f1:.4f}"


def summary_lines(evaluation: Evaluation, semantics: Semantics = "sound") -> list[str]:
    """Sentences and tuples read; per main unit the sound and official P/R/F1; each quirk that changed them."""
    spec, scorer = evaluation.spec, evaluation.scorer
    word = spec.tuple_word
    lines = [f"{spec.name}: {len(evaluation.gold)} gold sentences, {len(evaluation.pred)} predicted; "
             f"{sum(len(s.tuples) for s in evaluation.gold)} gold {word}, "
             f"{sum(len(s.tuples) for s in evaluation.pred)} predicted"]
    sound = main_scores(evaluation, evaluation.sound.totals)
    official = main_scores(evaluation, evaluation.official) if evaluation.official and not evaluation.crash else None
    for key in spec.main:
        lines.append(f"  {key}")
        rows = [("sound", sound[key])] + ([("official", official[key])] if official else [])
        lines += [_line(label, scores) for label, scores in (rows if semantics == "sound" else rows[::-1])]
    if scorer is None:
        lines.append(f"  official: none reproduced for {spec.name}; the sound numbers only")
        return lines + [f"note: {n}" for n in evaluation.notes]
    lines.append(f"  official = {scorer.name}: {scorer.source}")
    if evaluation.crash:
        lines.append(f"  official scorer crashes on this input: {evaluation.crash}")
    changed = [s for s in evaluation.steps if s.changed]
    lines.append("  compat report (official − sound):" if changed
                 else "  compat report: no quirk changed the numbers")
    for step in changed:
        effect = "  ".join(f"{key} F1 {scores.f1:+.4f}" for key, scores in step.effect.items())
        lines.append(f"    {step.count:>5} × {step.quirk.name}: {effect} — {step.quirk.meaning}")
    return lines + [f"note: {n}" for n in evaluation.notes]
