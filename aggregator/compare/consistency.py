"""``self_consistency.csv``: how much the runs (seeds) of one condition agree, per sample.

For a condition with ≥ 2 runs, over the samples present in ≥ 2 of its runs:

- ``n_samples``: those samples; ``cross_run_max_runs``: the most runs any sample of the condition
  is in;
- ``cross_run_tuple_agreement``: share of them whose final EvalTuple set is identical in every run
  that has the sample (METRICS.md, merged input; not the CSV's family-17 ``tuple_agreement_rate``);
- ``mean_jaccard``: mean over them of the mean, over pairs of runs that both have the sample, of
  the Jaccard index |A ∩ B| / |A ∪ B| of the two final sets; two empty sets count as 1.0
  (they agree);
- ``n_gold_samples`` and ``<unit>_correct_agreement``: samples with gold in ≥ 2 runs, and the
  share of them whose final-stage correctness under the unit is the same in all those runs.

Blank when there is no such sample.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

import numpy as np
import polars as pl

from aggregator.compare.samples import UNIT_NAMES, ConditionSamples, SampleCube, all_equal

SCHEMA = {
    "condition": pl.String,
    "n_runs": pl.Int64,
    "n_samples": pl.Int64,
    "cross_run_max_runs": pl.Int64,
    "cross_run_tuple_agreement": pl.Float64,
    "mean_jaccard": pl.Float64,
    "n_gold_samples": pl.Int64,
    **{f"{u}_correct_agreement": pl.Float64 for u in UNIT_NAMES},
}


def _share(hits: np.ndarray) -> float | None:
    return float(hits.mean()) if hits.size else None


def _intersections(cube: SampleCube, rows: np.ndarray) -> dict[tuple[int, int], np.ndarray]:
    """|final set of run i ∩ final set of run j| per sample, for each pair i < j of ``rows``."""
    tuples = cube.final_tuples.filter(pl.col("run").is_in(rows.tolist()))
    shared = (
        tuples.join(tuples, on=["sample", "tuple"], suffix="_b")
        .filter(pl.col("run") < pl.col("run_b"))
        .group_by("run", "run_b", "sample")
        .len()
    )
    out = {pair: np.zeros(len(cube.keys), dtype=np.int64) for pair in combinations(rows.tolist(), 2)}
    for (i, j), part in shared.partition_by("run", "run_b", as_dict=True).items():
        out[(int(i), int(j))][part.get_column("sample").to_numpy()] = part.get_column("len").to_numpy()
    return out


def mean_jaccard(cube: SampleCube, rows: np.ndarray, samples: np.ndarray) -> np.ndarray:
    """Per sample of ``samples``: mean pairwise Jaccard of the final sets over runs ``rows`` that have it."""
    total = np.zeros(len(cube.keys))
    pairs = np.zeros(len(cube.keys), dtype=np.int64)
    for (i, j), shared in _intersections(cube, rows).items():
        both = cube.present[i] & cube.present[j]
        union = cube.n_final[i] + cube.n_final[j] - shared
        with np.errstate(invalid="ignore", divide="ignore"):
            jaccard = np.where(union > 0, shared / union, 1.0)
        total += np.where(both, jaccard, 0.0)
        pairs += both
    means: np.ndarray = total[samples] / pairs[samples]
    return means


def consistency_row(cube: SampleCube, condition: ConditionSamples) -> dict[str, object]:
    """The self-consistency of one condition (see the module doc)."""
    rows = condition.rows
    present = cube.present[rows]
    runs_per_sample = present.sum(axis=0)
    repeated = runs_per_sample >= 2
    agree = all_equal(cube.final_set[rows], present)[repeated]
    gold = condition.n_counted >= 2
    counted = cube.counts[rows]
    row: dict[str, object] = {
        "condition": condition.name,
        "n_runs": len(rows),
        "n_samples": int(repeated.sum()),
        "cross_run_max_runs": int(runs_per_sample.max(initial=0)),
        "cross_run_tuple_agreement": _share(agree),
        "mean_jaccard": _share(mean_jaccard(cube, rows, repeated)),
        "n_gold_samples": int(gold.sum()),
    }
    for unit in UNIT_NAMES:
        correct = cube.correct[unit][rows].astype(np.int64)
        row[f"{unit}_correct_agreement"] = _share(all_equal(correct, counted)[gold])
    return row


def consistency_table(cube: SampleCube, conditions: Sequence[ConditionSamples]) -> pl.DataFrame:
    """One row per condition with ≥ 2 runs, in condition order."""
    rows = [consistency_row(cube, c) for c in conditions if len(c.rows) >= 2]
    return pl.DataFrame(rows, schema=SCHEMA, orient="row")
