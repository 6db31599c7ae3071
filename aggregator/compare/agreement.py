"""``agreement.csv``: Fleiss' κ and Krippendorff's α of the three review agents, pooled and per condition.

Where the runs' scorecards carry review actions (the review family's ``aar_labels``), the items
are the reviewed tuple ids of every sample of the scope's runs (all runs: ``pooled``; a
condition's runs), agents A, B and C rating each (:mod:`aggregator.stats.agreement`). The 95%
intervals are percentile bootstrap intervals over samples: a sample's items in every run of the
scope are drawn together (the draws of the comparison's ``--resamples`` and ``--seed``). No row
when no run has a reviewed item.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import numpy as np
import polars as pl

from aggregator.compare.runs import Run
from aggregator.compare.samples import SAMPLE_ID
from aggregator.stats.agreement import STAT_COLUMNS, agreement_registry, sample_stats
from aggregator.stats.bootstrap import iter_draws, percentile_interval, replicate_values
from aggregator.stats.weighted import compile_metrics

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


def _row(scope: str, runs: Sequence[Run], parts: dict[str, pl.DataFrame], draws: Draws) -> dict[str, object] | None:
    table = _per_sample([parts[r.run_id] for r in runs])
    if table.height == 0:
        return None
    registry = agreement_registry()
    weighted = compile_metrics(registry, table)
    point = registry.compute(table)
    replicates = replicate_values(weighted, draws(table.height), weighted.sample_matrix(table))
    low, high = percentile_interval(replicates)
    row: dict[str, object] = {"scope": scope, "n_runs": len(runs), "n_samples": table.height,
                              "n_items": int(table.get_column("items").sum())}
    for k, name in enumerate(weighted.names):
        row[name] = point[name]
        row[f"{name}_ci_low"] = None if np.isnan(low[k]) else float(low[k])
        row[f"{name}_ci_high"] = None if np.isnan(high[k]) else float(high[k])
    return row


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
    rows = [_row(scope, members, parts, draws) for scope, members in scopes if members]
    return pl.DataFrame([r for r in rows if r is not None], schema=SCHEMA, orient="row")
