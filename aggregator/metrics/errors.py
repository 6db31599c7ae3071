"""Error anatomy (docs/errors.md): what kind of mistake each gold and predicted pair is, and what the review did.

Per sample, unit u (refpol, otepol, attrpol) and stage s (s1, s2), every pair of the unit is
classified (:mod:`aggregator.units.error_anatomy`): exact (the unit's tp), polarity, category
(refpol and attrpol), boundary, implicit, spurious (predictions) or missed (gold). Per-sample
columns: ``err_{u}_{s}_{class}`` for every class but exact, the review's transitions
``err_{u}_repaired_{class}``, ``err_{u}_introduced_{class}``, ``err_{u}_changed_{class}`` and
``err_{u}_changes`` (each class change as ``from>to``). Counts are held as UInt8 (kind "count").

Metrics, over samples with gold (blank when no sample has gold):

- ``errors_n_gold_{u}`` = Σ (tp + fn) and ``errors_n_pred_{s}_{u}`` = Σ (tp + fp): the pairs classified;
- ``errors_{class}_{s}_{u}``: Σ count (exact: Σ tp);
- ``…_per_gold`` = count / errors_n_gold (gold-side classes: exact … missed sum to 1) and
  ``…_per_pred`` = count / errors_n_pred (exact, paired classes and spurious sum to 1); blank on a 0 denominator;
- ``errors_repaired_{class}_{u}`` and its ``_rate`` (/ stage-1 count of the class),
  ``errors_introduced_{class}_{u}`` and its ``_rate`` (/ final count of the class),
  ``errors_changed_{class}_{u}`` and its ``_rate`` (/ stage-1 count of the class).
"""

from __future__ import annotations

from functools import lru_cache
from operator import itemgetter
from typing import TYPE_CHECKING

from aggregator.metrics.family import Family, RowInput
from aggregator.metrics.registry import Metric, Registry
from aggregator.units.error_anatomy import (
    UNIT_CLASSES,
    Transitions,
    classify,
    counts,
    gold_side,
    stage_classes,
    stage_counts,
    transitions,
    unit_items,
)
from aggregator.units.error_classes import EXACT, MISSED, PAIRED, SPURIOUS
from aggregator.units.projection import UNITS as UNIT_SCORING
from aggregator.units.sample_counts import COLUMN_NAMES, STAGES, Column

if TYPE_CHECKING:
    import polars as pl

    from aggregator.units.error_anatomy import Item
    from aggregator.units.projection import Pair

UNITS = tuple(UNIT_CLASSES)
UNIT_LABELS = {"refpol": "Ref", "otepol": "Surface", "attrpol": "Attr"}
STAGE_LABELS = {"s1": "S1", "s2": "S2"}
MOVES = ("repaired", "introduced", "changed")
MOVE_TEXT = {
    "repaired": ("stage-1 {c} errors the review repaired (the gold pair exact at the final stage)",
                 "stage-1 spurious pairs the review repaired (dropped, or explaining a gold pair at the final stage)"),
    "introduced": ("final {c} errors the review introduced (the gold pair exact at stage 1)",
                   "final spurious pairs the review introduced (new, or explaining a gold pair at stage 1)"),
    "changed": ("stage-1 {c} errors that became another error class at the final stage", ""),
}


def move_text(move: str, cls: str) -> str:
    """What a transition column counts for one class."""
    gold, spurious = MOVE_TEXT[move]
    return spurious if cls == SPURIOUS else gold.format(c=cls)


def move_classes(unit: str, move: str) -> tuple[str, ...]:
    """The classes a transition column exists for: class changes are read on gold pairs only."""
    return gold_side(unit) if move == "changed" else UNIT_CLASSES[unit]


def _columns() -> tuple[Column, ...]:
    out = []
    for unit in UNITS:
        for stage in STAGES:
            out += [Column(f"err_{unit}_{stage}_{c}", "count", f"{c} errors of {stage.upper()} under {unit}")
                    for c in UNIT_CLASSES[unit]]
        for move in MOVES:
            out += [Column(f"err_{unit}_{move}_{c}", "count", move_text(move, c) + f" under {unit}")
                    for c in move_classes(unit, move)]
        out.append(Column(f"err_{unit}_changes", "label",
                          f"class changes under {unit} from stage 1 to final, each from>to, sorted, comma-separated",
                          nullable=True))
    return tuple(out)


COLUMNS = _columns()


def row(inp: RowInput) -> tuple[object, ...]:
    record, core, pairs = inp.record, inp.core, inp.pairs
    out: list[object] = []
    same = record.final == record.stage1
    for unit in UNITS:
        first_tp, first_fp, first_fn, final_tp, final_fp = _CORE_AT[unit](core)
        final_fn = first_tp + first_fn - final_tp
        if not (first_fp and first_fn) and not (final_fp and final_fn):
            out += _ZEROS[unit]
            out += (first_fp, first_fn)
            out += _ZEROS[unit]
            out += (final_fp, final_fn)
            out += _NO_MOVES[unit] if same else _unpaired_moves(unit, *pairs[unit])
            continue
        gold = unit_items(unit, record.gold)
        first_pred = unit_items(unit, record.stage1) if first_tp + first_fp else []
        final_pred = first_pred if same else unit_items(unit, record.final) if final_tp + final_fp else []
        if final_pred == first_pred:
            classes, spurious = stage_classes(unit, gold, first_pred, first_tp)
            out += _unchanged(unit, tuple(classes), spurious)
            continue
        if not first_pred or not final_pred:
            out += _one_stage(unit, gold, first_pred, final_pred, first_tp or final_tp)
            continue
        first, final = classify(unit, gold, first_pred), classify(unit, gold, final_pred)
        out += counts(unit, first)
        out += counts(unit, final)
        out += _moves(transitions(unit, first, final, first_pred, final_pred))
    return tuple(out)


def _one_stage(unit: str, gold: list[Item], first_pred: list[Item], final_pred: list[Item], tp: int) -> tuple[object, ...]:
    """The values of a unit with predicted pairs at one stage only (``tp``: that stage's)."""
    classes, spurious = stage_classes(unit, gold, first_pred or final_pred, tp)
    return _one_stage_values(unit, bool(final_pred), tuple(classes), spurious, tp)


@lru_cache(maxsize=1 << 12)
def _one_stage_values(unit: str, final: bool, classes: tuple[str, ...], spurious: int, tp: int) -> tuple[object, ...]:
    """What :func:`transitions` gives when only the stage-1 (``final`` False) or only the final stage has
    predictions, its gold classes ``classes`` and ``spurious`` predictions: the other stage misses every
    gold pair, so each class of a gold pair is a move from or to missed, and the spurious pairs were
    introduced or repaired. A function of a few small values, so it is kept for the next sample."""
    paired = [c for c in classes if c != EXACT and c != MISSED]
    zeros = dict.fromkeys(UNIT_CLASSES[unit], 0)
    missed_moved, spurious_moved = {**zeros, MISSED: tp}, {**zeros, SPURIOUS: spurious}
    changed = dict.fromkeys(gold_side(unit), 0)
    stages = [stage_counts(unit, classes, spurious), [*_ZEROS[unit], 0, len(classes)]]
    if final:  # stage 1 missed every gold pair: exact ones were repaired, spurious ones introduced
        changed[MISSED] = len(paired)
        moved = Transitions(missed_moved, spurious_moved, changed, sorted(f"{MISSED}>{c}" for c in paired))
        stages.reverse()
    else:  # the final stage misses every gold pair: the reverse
        for cls in paired:
            changed[cls] += 1
        moved = Transitions(spurious_moved, missed_moved, changed, sorted(f"{c}>{MISSED}" for c in paired))
    return (*stages[0], *stages[1], *_moves(moved))


_CORE = {unit: (f"{unit}_s1_tp", f"{unit}_s1_fp", f"{unit}_s1_fn", f"{unit}_s2_tp", f"{unit}_s2_fp") for unit in UNITS}
"""The core counts a row reads (:mod:`aggregator.units.sample_counts`). A stage without a false positive
or without a false negative pairs nothing (every class is exact, spurious or missed): its counts are
the core's, and with both stages so the review's moves follow from the unit's pairs alone."""
_CORE_AT = {unit: itemgetter(*(COLUMN_NAMES.index(name) for name in names)) for unit, names in _CORE.items()}


def _moves(moved: Transitions) -> list[object]:
    """The transition columns of a unit, in :data:`COLUMNS` order."""
    return [*moved.repaired.values(), *moved.introduced.values(), *moved.changed.values(),
            ",".join(moved.changes) or None]


def _unpaired_moves(unit: str, gold: frozenset[Pair], first: frozenset[Pair], final: frozenset[Pair]) -> list[object]:
    """:func:`_moves` when neither stage pairs a gold pair with a prediction: a gold pair matched at one
    stage only is a missed error repaired or introduced, a spurious pair of one stage only is a spurious
    error repaired or introduced, and no class changes."""
    if first == final:
        return _NO_MOVES[unit]
    matched = UNIT_SCORING[unit].matched
    first_pred, first_gold = matched(first, gold)
    final_pred, final_gold = matched(final, gold)
    first_spurious, final_spurious = first - first_pred, final - final_pred
    zeros = dict.fromkeys(UNIT_CLASSES[unit], 0)
    repaired = {**zeros, MISSED: len(final_gold - first_gold), SPURIOUS: len(first_spurious - final_spurious)}
    introduced = {**zeros, MISSED: len(first_gold - final_gold), SPURIOUS: len(final_spurious - first_spurious)}
    return _moves(Transitions(repaired, introduced, dict.fromkeys(gold_side(unit), 0), []))


@lru_cache(maxsize=1 << 12)
def _unchanged(unit: str, classes: tuple[str, ...], spurious: int) -> tuple[object, ...]:
    """The values of a unit whose predicted pairs are the same at both stages: its counts twice, no moves."""
    counted = stage_counts(unit, classes, spurious)
    return (*counted, *counted, *_NO_MOVES[unit])


_NO_MOVES: dict[str, list[object]] = {unit: [*[0] * sum(len(move_classes(unit, m)) for m in MOVES), None]
                                      for unit in UNITS}
_ZEROS = {unit: [0] * (len(UNIT_CLASSES[unit]) - 2) for unit in UNITS}
"""The paired classes' counts (all but spurious and missed, the last two of :data:`UNIT_CLASSES`)."""


def _sum(column: str) -> pl.Expr:
    from aggregator.metrics.exprs import on_gold  # in declare only: a decoding process never loads Polars

    return on_gold(column).sum()


def _ratio(numerator: pl.Expr, denominator: pl.Expr) -> pl.Expr:
    from aggregator.metrics.exprs import ratio

    return ratio(numerator, denominator)


def _count(unit: str, stage: str, cls: str) -> pl.Expr:
    return _sum(f"{unit}_{stage}_tp") if cls == EXACT else _sum(f"err_{unit}_{stage}_{cls}")


def _declare_stage(reg: Registry, unit: str, stage: str, n_gold: pl.Expr) -> None:
    label, st = UNIT_LABELS[unit], STAGE_LABELS[stage]
    n_pred = _sum(f"{unit}_{stage}_tp") + _sum(f"{unit}_{stage}_fp")
    reg.add(Metric(f"errors_n_pred_{stage}_{unit}", f"{label} predicted pairs {st}",
                   f"{st} pairs classified under {unit} over samples with gold", f"Σ (tp + fp), {unit} {st}",
                   n_pred, kind="int", averaging="count"))
    classes = (EXACT, *UNIT_CLASSES[unit])
    for cls in classes:
        source = f"Σ tp, {unit} {st}" if cls == EXACT else f"Σ err_{unit}_{stage}_{cls}"
        reg.add(Metric(f"errors_{cls}_{stage}_{unit}", f"{label} {cls} {st}",
                       f"{cls} {'matches' if cls == EXACT else 'errors'} of {st} under {unit}", source,
                       _count(unit, stage, cls), kind="int", averaging="count", higher_is_better=cls == EXACT))
    for side, denominator, side_classes, what in (
        ("gold", n_gold, (EXACT, *gold_side(unit)), "gold"),
        ("pred", n_pred, tuple(c for c in classes if c in (EXACT, *PAIRED, SPURIOUS)), "predicted"),
    ):
        n_name = f"errors_n_gold_{unit}" if side == "gold" else f"errors_n_pred_{stage}_{unit}"
        for cls in side_classes:
            reg.add(Metric(f"errors_{cls}_{stage}_{unit}_per_{side}", f"{label} {cls} per {what} {st}",
                           f"share of {what} pairs under {unit} that are {cls} at {st} (n = {n_name})",
                           f"errors_{cls}_{stage}_{unit} / {n_name}", _ratio(_count(unit, stage, cls), denominator),
                           averaging="pooled", blank_when=f"{n_name} = 0", higher_is_better=cls == EXACT))


def _declare_moves(reg: Registry, unit: str) -> None:
    label = UNIT_LABELS[unit]
    for move in MOVES:
        stage = "s2" if move == "introduced" else "s1"
        for cls in move_classes(unit, move):
            name = f"errors_{move}_{cls}_{unit}"
            total = f"errors_{cls}_{stage}_{unit}"
            better = {"repaired": True, "introduced": False, "changed": None}[move]
            reg.add(Metric(name, f"{label} {cls} {move}", move_text(move, cls) + f" ({unit})",
                           f"Σ err_{unit}_{move}_{cls}", _sum(f"err_{unit}_{move}_{cls}"), kind="int",
                           averaging="count", higher_is_better=better))
            reg.add(Metric(f"{name}_rate", f"{label} {cls} {move} rate",
                           f"share of {STAGE_LABELS[stage]} {cls} errors under {unit} that were {move} (n = {total})",
                           f"{name} / {total}", _ratio(_sum(f"err_{unit}_{move}_{cls}"), _count(unit, stage, cls)),
                           averaging="pooled", blank_when=f"{total} = 0", higher_is_better=better))


def declare(reg: Registry) -> None:
    for unit in UNITS:
        n_gold = _sum(f"{unit}_s1_tp") + _sum(f"{unit}_s1_fn")
        reg.add(Metric(f"errors_n_gold_{unit}", f"{UNIT_LABELS[unit]} gold pairs",
                       f"gold pairs classified under {unit} over samples with gold", f"Σ (tp + fn), {unit}",
                       n_gold, kind="int", averaging="count"))
        for stage in STAGES:
            _declare_stage(reg, unit, stage, n_gold)
        _declare_moves(reg, unit)


FAMILY = Family(
    name="errors",
    title="Error anatomy",
    source="docs/errors.md",
    columns=COLUMNS,
    row=row,
    declare=declare,
)
