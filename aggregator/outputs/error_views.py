"""What the writers show of the error anatomy beside its metrics: the class changes the review made
(from the per-sample ``err_{u}_changes`` labels) and a few examples per class (the first samples, in
sample-key order, with an error of the class at the final stage, classified again from their tuple
text). Counts and rates themselves are registry metrics (:mod:`aggregator.metrics.errors`)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, NamedTuple

import polars as pl

from aggregator.units.error_anatomy import UNIT_CLASSES, classify, unit_items
from aggregator.units.error_classes import SPURIOUS
from aggregator.units.sample_marks import tuples_of

if TYPE_CHECKING:
    from aggregator.units.error_anatomy import Item
    from aggregator.units.error_classes import Assignment

EXAMPLES = 3
MAX_TEXT = 200
"""Sentences of examples are cut to this many characters (with …)."""
STAGE_NAMES = {"s1": "stage 1", "s2": "final"}


def has_errors(table: pl.DataFrame) -> bool:
    """The errors family was in force for this table."""
    return "err_refpol_s2_missed" in table.columns


def change_counts(table: pl.DataFrame, unit: str) -> Counter[tuple[str, str]]:
    """``{(from, to): gold pairs}`` over samples with gold: stage-1 errors that became another class."""
    found: Counter[tuple[str, str]] = Counter()
    column = f"err_{unit}_changes"
    labels = table.filter(pl.col("has_gold") & pl.col(column).is_not_null()).get_column(column).cast(pl.String)
    for label, n in labels.value_counts().iter_rows():
        for change in label.split(","):
            before, _, after = change.partition(">")
            found[before, after] += n
    return found


def item_text(item: Item, unit: str) -> str:
    """``key · “term” / “term” · polarity`` (``implicit`` for an empty term); under otepol, whose key
    is the term, ``“term” · polarity``."""
    terms = " / ".join(f"“{t}”" if t else "implicit" for t in item.terms)
    if unit == "otepol":
        return f"{terms} · {item.polarity}"
    return f"{item.key or 'implicit'} · {terms} · {item.polarity}"


class Example(NamedTuple):
    """One error of a class at the final stage: the sample, its sentence, the gold and predicted pair
    (None on the side the class has not: spurious has no gold pair, missed no prediction)."""

    sample_key: str
    text: str
    gold: str | None
    pred: str | None


def examples(table: pl.DataFrame, unit: str, limit: int = EXAMPLES) -> dict[str, list[Example]]:
    """Per class of ``unit``: the first ``limit`` samples with gold (table order) with an error of the
    class at the final stage, one example each. One query finds the rows of every class; a sample
    that shows several classes is classified once."""
    classes = UNIT_CLASSES[unit]
    found = table.select(
        (pl.col("has_gold") & (pl.col(f"err_{unit}_s2_{c}") > 0)).arg_true().head(limit).implode().alias(c)
        for c in classes).row(0)
    wanted = sorted({i for rows in found for i in rows})
    chosen = table[wanted].select("sample_key", "input_text", "gold_tuples", "final_tuples").iter_rows()
    classified = {i: _classified(unit, *row) for i, row in zip(wanted, chosen)}
    return {cls: [_example(cls, unit, *classified[i]) for i in rows] for cls, rows in zip(classes, found)}


def _classified(unit: str, key: str, text: str, gold_text: str, final_text: str) -> tuple[str, str, list[Item], list[Item], Assignment]:
    gold, pred = unit_items(unit, tuples_of(gold_text)), unit_items(unit, tuples_of(final_text))
    text = text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "…"
    return key, text, gold, pred, classify(unit, gold, pred)


def _example(cls: str, unit: str, key: str, text: str, gold: list[Item], pred: list[Item], found: Assignment) -> Example:
    if cls == SPURIOUS:
        return Example(key, text, None, item_text(pred[found.pred.index(cls)], unit))
    i = found.gold.index(cls)
    partner = found.partner[i]
    return Example(key, text, item_text(gold[i], unit), None if partner is None else item_text(pred[partner], unit))


def units_shown(table: pl.DataFrame) -> tuple[str, ...]:
    """The units of the anatomy, in the order the headline shows them."""
    return tuple(UNIT_CLASSES) if has_errors(table) else ()
