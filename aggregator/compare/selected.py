"""``samples_<mode>.csv`` (``--samples changed|only-a|only-b``): from a contrast to the samples behind it.

For each contrast (A, B) and unit, over samples counting in both (present with gold), with
final-stage correctness by the majority of a condition's runs (as in ``flips.csv``): ``changed``
lists the samples correct in exactly one of A and B, ``only-a`` those correct in A only, ``only-b``
those correct in B only. Each row carries the sample's input text, gold tuples, and both
conditions' correctness and mean F1 S2 over their runs; ``per_sample_merged`` has every run's columns.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from aggregator.compare.samples import SAMPLE_ID, UNIT_NAMES, ConditionSamples, SampleCube, split_id

if TYPE_CHECKING:
    from aggregator.compare.runs import Run

MODES = ("changed", "only-a", "only-b")
SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "condition_a": pl.String, "condition_b": pl.String, "unit": pl.String, "split": pl.String,
    "sample_key": pl.String, "correct_a": pl.Boolean, "correct_b": pl.Boolean, "f1_s2_a": pl.Float64,
    "f1_s2_b": pl.Float64, "input_text": pl.String, "gold_tuples": pl.String,
}


def _texts(runs: Sequence[Run], column: str) -> dict[str, str]:
    found: dict[str, str] = {}
    for run in runs:
        if column in run.table.columns:
            for key, value in run.table.select(SAMPLE_ID, column).iter_rows():
                if value:
                    found.setdefault(key, value)
    return found


def selected_samples(runs: Sequence[Run], cube: SampleCube, conditions: dict[str, ConditionSamples],
                     pairs: Sequence[tuple[str, str]], mode: str) -> pl.DataFrame:
    """The rows of one mode (see the module doc), by contrast, unit and sample order."""
    texts, gold = _texts(runs, "input_text"), _texts(runs, "gold_tuples")
    rows = []
    for a_name, b_name in pairs:
        a, b = conditions[a_name], conditions[b_name]
        both = (a.n_counted > 0) & (b.n_counted > 0)
        for unit in UNIT_NAMES:
            ca, cb = a.correct[unit], b.correct[unit]
            chosen = {"changed": ca != cb, "only-a": ca & ~cb, "only-b": ~ca & cb}[mode] & both
            for j in np.flatnonzero(chosen):
                split, key = split_id(cube.keys[j])
                rows.append({"condition_a": a_name, "condition_b": b_name, "unit": unit, "split": split,
                             "sample_key": key, "correct_a": bool(ca[j]), "correct_b": bool(cb[j]),
                             "f1_s2_a": float(a.f1_s2[unit][j]), "f1_s2_b": float(b.f1_s2[unit][j]),
                             "input_text": texts.get(cube.keys[j]), "gold_tuples": gold.get(cube.keys[j])})
    return pl.DataFrame(rows, schema=SCHEMA, orient="row")
