"""``per_sample_merged``: one row per sample key, one column group per run.

Columns: ``sample_key``, ``n_runs`` (runs that have the sample), then for each run (in run
order) ``<run_id>/<column>`` for the columns of :data:`GROUP`; NULL where the run lacks the sample.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from aggregator.compare.runs import Run
from aggregator.compare.samples import UNIT_NAMES, SampleCube

GROUP: tuple[str, ...] = (
    *(f"{u}_{s}_f1" for u in UNIT_NAMES for s in ("s1", "s2")),
    *(f"{u}_s2_correct" for u in UNIT_NAMES),
    *(f"{u}_transition" for u in UNIT_NAMES),
    "final_tuples",
)
SEPARATOR = "/"


def merged_table(runs: Sequence[Run], cube: SampleCube) -> pl.DataFrame:
    """The merged per-sample table, in sample-key order."""
    keys = pl.DataFrame({"sample_key": cube.keys, "n_runs": cube.present.sum(axis=0)},
                        schema={"sample_key": pl.String, "n_runs": pl.Int64})
    groups = [
        keys.select("sample_key")
        .join(run.table.select("sample_key", *GROUP), on="sample_key", how="left", maintain_order="left")
        .select(pl.col(c).alias(f"{run.run_id}{SEPARATOR}{c}") for c in GROUP)
        for run in runs
    ]
    return pl.concat([keys, *groups], how="horizontal").rechunk()
