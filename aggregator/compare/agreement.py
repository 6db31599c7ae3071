"""``agreement.csv``: Fleiss' κ and Krippendorff's α of the three review agents, pooled and per condition.

Where the runs' scorecards carry review actions (the review family's ``aar_labels``), the items
are the reviewed tuple ids of every sample of the scope's runs (all runs: ``pooled``; a
condition's runs), agents A, B and C rating each (:mod:`aggregator.stats.agreement`). The 95%
intervals are percentile bootstrap intervals over samples: a sample's items in every run of the
scope are drawn together (the draws of the comparison's ``--resamples`` and ``--seed``). No row
when no run has a reviewed item.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from aggregator.compare.samples import SAMPLE_ID
from aggregator.stats.agreement import STAT_COLUMNS, agreement_registry, sample_stats
from aggregator.stats.bootstrap import iter_draws, many_weighted_sums, percentile_interval, replicate_values
from aggregator.stats.compile import compile_metrics

if TYPE_CHECKING:
    from aggregator.compare.runs import Run
    from aggregator.metrics.values import MetricValue
    from aggregator.stats.weighted import WeightedMetrics

STATISTICS = ("fleiss_kappa", "krippendorff_alpha", "observed_agreement")
SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "scope": pl.String, "n_runs": pl.Int64, "n_samples": pl.Int64, "n_items": pl.Int64,
    **{f"{s}{suffix}": pl.Float64 for s in STATISTICS for suffix in ("", "_ci_low", "_ci_high")},
}


def _per_sample(parts: Sequence[pl.DataFrame]) -> pl.DataFrame:
    """Per sample id, the agreement sums over the runs' rows (samples without an item left out)."""
    summed = pl.concat(parts).group_by("sample_id").agg(pl.col(c).sum() for c in STAT_COLUMNS)
    return summed.filter(pl.col("items") > 0).sort("sample_id").with_columns(pl.lit(1).alias("n_gold"))


Draws = Callable[[int], "np.ndarray | Iterator[np.ndarray]"]


def _row(scope: str, runs: Sequence[Run], table: pl.DataFrame, point: Mapping[str, MetricValue], names: Sequence[str],
         replicates: np.ndarray) -> dict[str, object]:
    low, high = percentile_interval(replicates)
    row: dict[str, object] = {"scope": scope, "n_runs": len(runs), "n_samples": table.height,
                              "n_items": int(table.get_column("items").sum())}
    for k, name in enumerate(names):
        row[name] = point[name]
        row[f"{name}_ci_low"] = None if np.isnan(low[k]) else float(low[k])
        row[f"{name}_ci_high"] = None if np.isnan(high[k]) else float(high[k])
    return row


def _replicates(weighted: WeightedMetrics, tables: Sequence[pl.DataFrame], draws: Draws) -> list[np.ndarray]:
    """Each table's replicates; tables with the same number of samples share one pass over the draws."""
    out: list[np.ndarray | None] = [None] * len(tables)
    for n in sorted({t.height for t in tables}):
        members = [i for i, t in enumerate(tables) if t.height == n]
        drawn = draws(n)
        matrices = [weighted.sample_matrix(tables[i]) for i in members]
        if isinstance(drawn, np.ndarray):
            for i, sums in zip(members, many_weighted_sums(drawn, matrices)):
                out[i] = weighted.evaluate(sums)
        else:  # too many draws to keep: drawn again, in blocks, for each table
            for i, matrix in zip(members, matrices):
                out[i] = replicate_values(weighted, draws(n), matrix)
    return [r for r in out if r is not None]


def agreement_table(runs: Sequence[Run], conditions: Sequence[str], *, resamples: int, seed: int,
                    draws: Draws | None = None) -> pl.DataFrame:
    """``pooled`` first, then each condition; empty when no run carries review labels. ``draws(n)`` gives
    the draws for n samples (default: :func:`~aggregator.stats.bootstrap.iter_draws` of ``resamples`` and ``seed``)."""
    if draws is None:
        def draws(n: int) -> Iterator[np.ndarray]:
            return iter_draws(n, resamples, seed)

    reviewed = [r for r in runs if "aar_labels" in r.table.columns]
    scopes = [("pooled", reviewed)] + [(c, [r for r in reviewed if r.condition == c]) for c in conditions]
    parts = {r.run_id: sample_stats(r.table, "aar_labels", [SAMPLE_ID.alias("sample_id")]) for r in reviewed}
    found = [(scope, members, _per_sample([parts[r.run_id] for r in members])) for scope, members in scopes if members]
    found = [(scope, members, table) for scope, members, table in found if table.height]
    if not found:
        return pl.DataFrame(schema=SCHEMA)
    registry = agreement_registry()
    weighted = compile_metrics(registry, found[0][2])
    replicates = _replicates(weighted, [table for _, _, table in found], draws)
    rows = [_row(scope, members, table, registry.compute(table), weighted.names, reps)
            for (scope, members, table), reps in zip(found, replicates)]
    return pl.DataFrame(rows, schema=SCHEMA, orient="row")
