"""Every resampled metric of every run over a set of samples, reduced per condition.

A condition over a sample set (indices into the comparison's sample axis, sorted) gets, per run,
the metric values on the run's samples in that set and their bootstrap replicates: the run's
per-sample matrix (:meth:`~aggregator.stats.weighted.WeightedMetrics.sample_matrix`) is placed on
the set's axis, a sample the run lacks contributing nothing, and multiplied by the shared draws
of :func:`~aggregator.stats.bootstrap.draw_counts` for the set's size (all the condition's runs in
one pass over the draws). The runs' replicates are then reduced one at a time
(:func:`~aggregator.stats.components.condition_replicates`), so memory holds one run's replicates
and the condition's running sums. A comparison's conditions are prepared one ahead in a worker
thread (:meth:`Resampler.ahead`), the products in the order of one at a time.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from aggregator.stats.bootstrap import ProductCache, draw_counts, iter_draws, many_weighted_sums, replicates_and_fixed
from aggregator.stats.components import ConditionReplicates, Replicated, condition_replicates
from aggregator.stats.sums import ColumnSums

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
    _ahead: _Ahead | None = None

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

    def _prepared(self, rows: Sequence[int], samples: np.ndarray) -> Prepared:
        """Per run of the condition, its values and its column sums over the draws (all runs in one pass);
        when the draws are drawn in blocks, its matrix placed on the samples' axis instead."""
        placed_runs = []
        for run in rows:
            values, inside = self.run_values(run, samples)
            matrix = self.weighted.sample_matrix(self.runs[run].table.filter(pl.Series(inside)))
            placed = np.zeros((len(samples), matrix.shape[1]))
            placed[np.searchsorted(samples, self.positions[run][inside])] = matrix
            placed_runs.append((values, placed))
        draws = self.draws(len(samples))
        if not isinstance(draws, np.ndarray):
            return list(placed_runs)
        sums = many_weighted_sums(draws, [placed for _, placed in placed_runs], cache=self._products.get(len(samples)))
        return [(values, run_sums) for (values, _), run_sums in zip(placed_runs, sums)]

    def _replicated(self, rows: Sequence[int], samples: np.ndarray) -> Iterator[Replicated]:
        prepared = self._ahead.take(rows, samples) if self._ahead is not None else self._prepared(rows, samples)
        for values, sums in prepared:
            if isinstance(sums, ColumnSums):
                yield values, *self.weighted.replicates(sums)
            else:
                yield values, *replicates_and_fixed(self.weighted, self.draws(len(samples)), sums)

    @contextmanager
    def ahead(self, plan: Sequence[tuple[Sequence[int], np.ndarray]]) -> Iterator[None]:
        """Within the block, the conditions of ``plan`` (rows, samples), which must be asked for in that
        order and be the only ones asked for, are prepared one condition ahead in a worker thread: its
        products (BLAS) and Polars work run while the caller reduces the condition before. Products are
        made in the order and batches of a plain run, with the same product cache, so every bit is the same;
        while a plan runs, only the worker uses the draws and products kept. Nothing is prepared ahead for an
        empty plan, nor for one with a sample set whose draws are not kept whole (beyond :data:`DRAW_CACHE_CELLS`):
        there a prepared condition is its runs' placed matrices, as large as the per-sample tables."""
        if not plan or any(len(samples) * self.resamples > DRAW_CACHE_CELLS for _, samples in plan):
            yield
            return
        with ThreadPoolExecutor(1, thread_name_prefix="resample-ahead") as pool:
            self._ahead = _Ahead(pool, deque(plan), self._prepared)
            try:
                yield
            finally:
                self._ahead.stop()
                self._ahead = None

    def condition(self, rows: Sequence[int], samples: np.ndarray) -> ConditionReplicates:
        """The condition made of runs ``rows``, over the sorted sample indices ``samples``."""
        return condition_replicates(self._replicated(rows, samples), len(samples), len(rows))


Prepared = list[tuple[np.ndarray, ColumnSums | np.ndarray]]


class _Ahead:
    """A plan of conditions prepared in order by one worker, at most one beyond the one being taken."""

    def __init__(self, pool: ThreadPoolExecutor, plan: deque[tuple[Sequence[int], np.ndarray]],
                 prepare: Callable[[Sequence[int], np.ndarray], Prepared]) -> None:
        self._pool, self._plan, self._prepare = pool, plan, prepare
        self._next: tuple[Sequence[int], np.ndarray, Future[Prepared]] | None = None
        self._submit()

    def _submit(self) -> None:
        if self._plan:
            rows, samples = self._plan.popleft()
            self._next = (rows, samples, self._pool.submit(self._prepare, rows, samples))
        else:
            self._next = None

    def take(self, rows: Sequence[int], samples: np.ndarray) -> Prepared:
        """The next planned condition's preparation; the one after it starts."""
        if self._next is None or list(self._next[0]) != list(rows) or not np.array_equal(self._next[1], samples):
            raise RuntimeError("a condition was asked for out of the planned order")
        prepared = self._next[2].result()
        self._submit()
        return prepared

    def stop(self) -> None:
        """Wait for the preparation under way (its products are in the cache) and drop the rest of the plan."""
        self._plan.clear()
        if self._next is not None and not self._next[2].cancel():
            self._next[2].exception()
        self._next = None
