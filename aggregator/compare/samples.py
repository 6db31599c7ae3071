"""Per-sample values of every run aligned on one sample axis, and their per-condition summaries.

Rows are runs (in :func:`~aggregator.compare.runs.sort_runs` order), columns are every sample of
any run, identified by (split, sample key) (SCORECARDS.md) and ordered by sample key, then split
(code-point order). All values come from the runs' per-sample tables.
A sample *counts* in a run when it is present there and has gold (as for the macro means of
``structural_metrics.csv``): only such samples enter paired statistics, flips and
correctness agreement.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from aggregator.units.projection import UNITS

if TYPE_CHECKING:
    from aggregator.compare.runs import Run

UNIT_NAMES: tuple[str, ...] = tuple(UNITS)
ID_SEPARATOR = "\x1f"
SAMPLE_ID = pl.concat_str([pl.col("sample_key"), pl.col("split").fill_null("")], separator=ID_SEPARATOR)
"""A sample's identity (sample key, split) as one string; its code-point order is sample key, then split."""
_VALUES = (
    ["has_gold", "n_s2", "gold_tuples", "final_tuples"]
    + [f"{u}_{s}_f1" for u in UNIT_NAMES for s in ("s1", "s2")]
    + [f"{u}_s2_correct" for u in UNIT_NAMES]
)


@dataclass(frozen=True)
class SampleCube:
    """Aligned ``(runs, samples)`` arrays.

    ``keys``: sample ids (:data:`SAMPLE_ID`); ``present``: the run has the sample. ``counts``: present and with gold. ``f1_s1[u]``,
    ``f1_s2[u]``: per-sample F1 of unit ``u`` (NaN where absent). ``correct[u]``: final stage
    correct under ``u`` (False where absent). ``final_set``, ``gold_set``: ids of the final and
    gold EvalTuple sets (equal ids = identical canonical texts = identical sets; -1 where absent;
    the id values themselves carry no meaning). ``n_final``: size of
    the final set.
    ``final_tuples``: long table (run, sample, tuple) of the final EvalTuples, one row each.
    """

    keys: list[str]
    present: np.ndarray
    counts: np.ndarray
    f1_s1: dict[str, np.ndarray]
    f1_s2: dict[str, np.ndarray]
    correct: dict[str, np.ndarray]
    final_set: np.ndarray
    gold_set: np.ndarray
    n_final: np.ndarray
    final_tuples: pl.DataFrame


def _long_table(runs: Sequence[Run]) -> pl.DataFrame:
    frames = [
        run.table.select(SAMPLE_ID.alias("sample_id"), *_VALUES).with_columns(pl.lit(index, pl.Int64).alias("run"))
        for index, run in enumerate(runs)
    ]
    return pl.concat(frames).with_columns(
        (pl.col("sample_id").rank("dense").cast(pl.Int64) - 1).alias("sample"),
        *(pl.col(f"{s}_tuples").cast(pl.Categorical).to_physical().cast(pl.Int64).alias(f"{s}_set")
          for s in ("gold", "final")),
    )


def _scatter(shape: tuple[int, int], rows: np.ndarray, cols: np.ndarray, values: np.ndarray, fill: object) -> np.ndarray:
    out = np.full(shape, fill, dtype=values.dtype)
    out[rows, cols] = values
    return out


def build_cube(runs: Sequence[Run]) -> SampleCube:
    """Align the per-sample tables of ``runs`` on the union of their sample keys."""
    long = _long_table(runs)
    keys = long.get_column("sample_id").unique().sort().to_list()
    shape = (len(runs), len(keys))
    rows, cols = long.get_column("run").to_numpy(), long.get_column("sample").to_numpy()

    def column(name: str, fill: object) -> np.ndarray:
        return _scatter(shape, rows, cols, long.get_column(name).to_numpy(), fill)

    present = _scatter(shape, rows, cols, np.ones(len(rows), dtype=bool), False)
    tuples = (
        long.select("run", "sample", pl.col("final_tuples").str.json_decode(pl.List(pl.List(pl.String))))
        .explode("final_tuples")
        .drop_nulls("final_tuples")
        .with_columns(pl.col("final_tuples").list.join("\x1f").alias("tuple"))
        .select("run", "sample", "tuple")
    )
    return SampleCube(
        keys=keys,
        present=present,
        counts=column("has_gold", False),
        f1_s1={u: column(f"{u}_s1_f1", np.nan) for u in UNIT_NAMES},
        f1_s2={u: column(f"{u}_s2_f1", np.nan) for u in UNIT_NAMES},
        correct={u: column(f"{u}_s2_correct", False) for u in UNIT_NAMES},
        final_set=column("final_set", -1),
        gold_set=column("gold_set", -1),
        n_final=column("n_s2", 0),
        final_tuples=tuples,
    )


def split_id(sample_id: str) -> tuple[str, str]:
    """(split, sample key) of a sample id."""
    key, _, split = sample_id.partition(ID_SEPARATOR)
    return split, key


def sample_index(run: Run, keys: Sequence[str]) -> np.ndarray:
    """For each row of ``run.table``, the position of its sample in ``keys`` (sorted sample ids)."""
    ids = run.table.select(SAMPLE_ID).to_series().to_numpy()
    positions: np.ndarray = np.searchsorted(np.asarray(keys, dtype=object), ids)
    return positions


def all_equal(values: np.ndarray, present: np.ndarray) -> np.ndarray:
    """Per sample (column): every value of an integer ``(runs, samples)`` array where ``present`` is the same."""
    low = np.where(present, values, np.iinfo(np.int64).max).min(axis=0)
    high = np.where(present, values, np.iinfo(np.int64).min).max(axis=0)
    equal: np.ndarray = low == high
    return equal


@dataclass(frozen=True)
class ConditionSamples:
    """One condition's per-sample summary over its runs.

    ``n_counted``: runs in which the sample counts (present with gold). ``f1_s2[u]`` and
    ``delta_f1[u]``: mean over those runs of the per-sample F1 S2 and of F1 S2 − F1 S1
    (NaN when ``n_counted`` is 0). ``correct[u]``: correct in most of those runs (strictly
    more than half; a tie is not correct).
    """

    name: str
    rows: np.ndarray
    n_counted: np.ndarray
    f1_s2: dict[str, np.ndarray]
    delta_f1: dict[str, np.ndarray]
    correct: dict[str, np.ndarray]


def condition_samples(cube: SampleCube, name: str, rows: np.ndarray) -> ConditionSamples:
    """Summarise the runs ``rows`` of ``cube`` as the condition ``name``."""
    counted = cube.counts[rows]
    n = counted.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        def mean(values: np.ndarray) -> np.ndarray:
            means: np.ndarray = np.where(counted, values[rows], 0.0).sum(axis=0) / n
            return means

        return ConditionSamples(
            name=name,
            rows=rows,
            n_counted=n,
            f1_s2={u: mean(cube.f1_s2[u]) for u in UNIT_NAMES},
            delta_f1={u: mean(cube.f1_s2[u] - cube.f1_s1[u]) for u in UNIT_NAMES},
            correct={u: 2 * (cube.correct[u][rows] & counted).sum(axis=0) > n for u in UNIT_NAMES},
        )
