"""``per_sample_merged``: one row per sample, one column group per run.

Columns: ``split``, ``sample_key``, ``input_text`` (the first run's text that has one), ``n_runs``
(runs that have the sample), then for each run (in run order) ``<run_id>/<column>`` for the columns
of :data:`GROUP` and every flag (boolean per-sample column) of the families in force; NULL where
the run lacks the sample. From a Δ in ``paired.csv`` to its samples: ``--samples`` (:mod:`.selected`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import polars as pl

from aggregator.compare.samples import SAMPLE_ID, UNIT_NAMES, SampleCube, split_id

if TYPE_CHECKING:
    from aggregator.compare.runs import Run

GROUP: tuple[str, ...] = (
    *(f"{u}_{s}_f1" for u in UNIT_NAMES for s in ("s1", "s2")),
    *(f"{u}_s2_correct" for u in UNIT_NAMES),
    *(f"{u}_transition" for u in UNIT_NAMES),
    "final_tuples",
)
SEPARATOR = "/"


def flag_columns(table: pl.DataFrame) -> list[str]:
    """The boolean per-sample columns not already in :data:`GROUP`, in table order."""
    return [c for c, t in table.schema.items() if t == pl.Boolean and c not in GROUP]


def merged_table(runs: Sequence[Run], cube: SampleCube) -> pl.DataFrame:
    """The merged per-sample table, in sample-key, split order."""
    split_key = [split_id(k) for k in cube.keys]
    keys = pl.DataFrame(
        {"sample_id": cube.keys, "split": [s for s, _ in split_key], "sample_key": [k for _, k in split_key],
         "n_runs": cube.present.sum(axis=0)},
        schema={"sample_id": pl.String, "split": pl.String, "sample_key": pl.String, "n_runs": pl.Int64},
    )
    texts = [r.table.select(SAMPLE_ID.alias("sample_id"), "input_text")
             for r in runs if "input_text" in r.table.columns]
    text = (pl.concat(texts).filter(pl.col("input_text").fill_null("") != "")
            .unique("sample_id", keep="first", maintain_order=True)
            if texts else pl.DataFrame(schema={"sample_id": pl.String, "input_text": pl.String}))
    head = keys.join(text, on="sample_id", how="left", maintain_order="left")
    groups = []
    for run in runs:
        columns = [c for c in (*GROUP, *flag_columns(run.table)) if c in run.table.columns]
        part = run.table.select(SAMPLE_ID.alias("sample_id"), *columns)
        groups.append(
            keys.select("sample_id").join(part, on="sample_id", how="left", maintain_order="left")
            .select(pl.col(c).alias(f"{run.run_id}{SEPARATOR}{c}") for c in columns)
        )
    return pl.concat([head.select("split", "sample_key", "input_text", "n_runs"), *groups], how="horizontal").rechunk()
