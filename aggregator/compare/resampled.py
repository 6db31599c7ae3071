"""Every resampled metric of every run over a set of samples, reduced per condition.

A condition over a sample set (indices into the comparison's sample axis, sorted) gets, per run,
the metric values on the run's samples in that set and their bootstrap replicates: the run's
per-sample matrix (:meth:`~aggregator.stats.weighted.WeightedMetrics.sample_matrix`) is placed on
the set's axis, a sample the run lacks contributing nothing, and multiplied by the shared draws
of :func:`~aggregator.stats.bootstrap.draw_counts` for the set's size (all the condition's runs in
one pass over the draws). The runs' replicates are then reduced one at a time
(:func:`~aggregator.stats.components.condition_replicates`), so memory holds one run's replicates
and the condition's running sums.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from aggregator.stats.bootstrap import ProductCache, draw_counts, iter_draws, many_weighted_sums, replicates_and_fixed
from aggregator.stats.components import ConditionReplicates, Replicated, condition_replicates

if TYPE_CHECKING:
    from aggregator.compare.runs import Run
    from aggregator.metrics.registry import Registry
    from aggregator.stats.weighted import WeightedMetrics

DRAW_CACHE_CELLS = 64 * 2**20


@dataclass
class Resampler:
    """Replicates of the metrics ``weighted.names`` for the runs of a comparison.

    ``positions[i]``: for each row of run i's table, its sample's index on the comparison's axis.
    """

    registry: Registry
    weighted: WeightedMetrics
    runs: Sequence[Run]
    positions: Sequence[np.ndarray]
    resamples: int
    seed: int
    _draws: dict[int, np.ndarray] = field(default_factory=dict)
    _products: dict[int, ProductCache] = field(default_factory=dict)

    def draws(self, n: int) -> np.ndarray | Iterator[np.ndarray]:
        """The draws for n samples: kept while they fit :data:`DRAW_CACHE_CELLS`, else drawn again in blocks."""
        if n * self.resamples > DRAW_CACHE_CELLS:
            return iter_draws(n, self.resamples, self.seed)
        if n not in self._draws:
            while self._draws and (sum(self._draws) + n) * self.resamples > DRAW_CACHE_CELLS:
                gone = next(iter(self._draws))
                del self._draws[gone]
                self._products.pop(gone, None)
            self._draws[n] = draw_counts(n, self.resamples, self.seed)
            self._products[n] = ProductCache()
        return self._draws[n]

    def run_values(self, run: int, samples: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Values (M,) of run ``run`` on its samples in ``samples``, and which table rows those are."""
        position = self.positions[run]
        inside = np.isin(position, samples)
        if inside.all():
            metrics = self.runs[run].metrics
        else:
            metrics = self.registry.compute(self.runs[run].table.filter(pl.Series(inside)))
        values = np.array([np.nan if (value := metrics[n]) is None else float(value) for n in self.weighted.names])
        return values, inside

    def _replicated(self, rows: Sequence[int], samples: np.ndarray) -> Iterator[Replicated]:
        placed_runs = []
        for run in rows:
            values, inside = self.run_values(run, samples)
            matrix = self.weighted.sample_matrix(self.runs[run].table.filter(pl.Series(inside)))
            placed = np.zeros((len(samples), matrix.shape[1]))
            placed[np.searchsorted(samples, self.positions[run][inside])] = matrix
            placed_runs.append((values, placed))
        draws = self.draws(len(samples))
        if isinstance(draws, np.ndarray):
            cache = self._products.get(len(samples))
            sums = many_weighted_sums(draws, [placed for _, placed in placed_runs], cache=cache)
            for (values, _), run_sums in zip(placed_runs, sums):
                replicates, fixed = self.weighted.replicates(run_sums)
                yield values, replicates, fixed
            return
        for values, placed in placed_runs:
            replicates, fixed = replicates_and_fixed(self.weighted, self.draws(len(samples)), placed)
            yield values, replicates, fixed

    def condition(self, rows: Sequence[int], samples: np.ndarray) -> ConditionReplicates:
        """The condition made of runs ``rows``, over the sorted sample indices ``samples``."""
        return condition_replicates(self._replicated(rows, samples), len(samples))
