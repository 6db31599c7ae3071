"""Bootstrap draws over samples and the replicate values of resampled metrics.

A draw matrix ``W`` (resamples × n) counts how often each of n samples is drawn in one resample of
n samples with replacement. It depends only on n, the number of resamples and the seed
(``numpy.random.default_rng(seed)``), so every run, condition and contrast over the same n samples
shares the same draws — contrasts are paired — and a row's numbers never depend on which other
conditions are compared.

The replicate values of the metrics of a :class:`~aggregator.stats.weighted.WeightedMetrics` are
``F(W @ X)``. The product runs in float32 (about twice as fast as float64 here): integer-valued
columns (counts, flags) are summed exactly (every partial sum stays below 2**24), and other columns
are centred first, so their sums keep about seven significant digits of the spread between
resamples. Products run on the caller's BLAS threads; the comparison keeps one (on the 2-core
development machine, loaded by other processes, a second thread made them slower, not faster).
Replicates only feed variances and percentiles; every point estimate is the registry's
own float64 value.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from aggregator.stats.weighted import PRECISE_ROUNDING, SPREAD_ROUNDING, ColumnSums, WeightedMetrics

BLOCK = 1000
BLOCK_CELLS = 2 * 10**7
EXACT_LIMIT = 2**24


def block_rows(n: int) -> int:
    """Resamples drawn at a time for n samples: at most :data:`BLOCK`, and about :data:`BLOCK_CELLS` counts."""
    return max(1, min(BLOCK, BLOCK_CELLS // max(n, 1)))


def iter_draws(n: int, resamples: int, seed: int) -> Iterator[np.ndarray]:
    """The rows of :func:`draw_counts` in blocks of :func:`block_rows` (float32), so that memory stays small."""
    rng = np.random.default_rng(seed)
    step = block_rows(n)
    for start in range(0, resamples, step):
        size = min(step, resamples - start)
        drawn = rng.integers(0, n, size=(size, n), dtype=np.int32)
        drawn += (np.arange(size, dtype=np.int32) * n)[:, None]
        yield np.bincount(drawn.ravel(), minlength=size * n).reshape(size, n).astype(np.float32)


def draw_counts(n: int, resamples: int, seed: int) -> np.ndarray:
    """``(resamples, n)`` float32 draw counts; each row sums to n."""
    return np.concatenate(list(iter_draws(n, resamples, seed))) if resamples else np.zeros((0, n), np.float32)


def weighted_sums(draws: np.ndarray, matrix: np.ndarray, precise: np.ndarray | None = None,
                  cache: ProductCache | None = None) -> ColumnSums:
    """The sums ``draws @ matrix`` of R resamples, computed in float32 as the module doc says, but for the
    columns of ``precise`` (a boolean mask; all of them when True), summed in float64. A column that
    is the same for every sample is summed once (its sum is n times the value); each distinct
    column is multiplied once (mean leaves share presence columns); with a ``cache`` (for one
    ``draws``), a column another run already had is not multiplied again."""
    return many_weighted_sums(draws, [matrix], precise, cache)[0]


def many_weighted_sums(draws: np.ndarray, matrices: Sequence[np.ndarray], precise: np.ndarray | None = None,
                       cache: ProductCache | None = None) -> list[ColumnSums]:
    """:func:`weighted_sums` of several matrices (e.g. the runs of a condition) in one pass over ``draws``."""
    layouts = []
    wanted: dict[tuple[bytes, bool], np.ndarray] = {}
    for matrix in matrices:
        n, width = matrix.shape
        exact = np.zeros(width, dtype=bool) if precise is None else np.broadcast_to(precise, (width,))
        constant = np.all(matrix == matrix[:1], axis=0) if n else np.ones(width, dtype=bool)
        varying = np.flatnonzero(~constant)
        by_column: dict[tuple[bytes, bool], list[int]] = {}
        for place, j in enumerate(varying):
            key = (hashlib.blake2b(matrix[:, j].tobytes(), digest_size=20).digest(), bool(exact[j]))
            by_column.setdefault(key, []).append(place)
            wanted.setdefault(key, matrix[:, j])
        layouts.append((matrix, varying, by_column))
    found = {key: cache.get(key) for key in wanted if cache is not None and key in cache}
    for exact_sum, dtype in ((False, np.float32), (True, np.float64)):
        keys = [key for key in wanted if key[1] == exact_sum and key not in found]
        if keys:
            product = _product(draws, np.column_stack([wanted[k] for k in keys]), dtype)
            for i, key in enumerate(keys):
                found[key] = product[:, i]
                if cache is not None:
                    cache.put(key, product[:, i])
    out = []
    for matrix, varying, by_column in layouts:
        n = matrix.shape[0]
        values = np.empty((draws.shape[0], len(varying)))
        for key, places in by_column.items():
            values[:, places] = found[key][:, None]
        first = matrix[0] * n if n else np.zeros(matrix.shape[1])
        first[varying] = values[0] if draws.shape[0] else 0.0
        out.append(ColumnSums(draws.shape[0], first, varying, values))
    return out


def _product(draws: np.ndarray, distinct: np.ndarray, dtype: type[np.floating]) -> np.ndarray:
    """``draws @ distinct`` in ``dtype``: integer columns as they are (exact), others centred first."""
    n = distinct.shape[0]
    small = np.abs(distinct).max(axis=0, initial=0.0) * n < EXACT_LIMIT
    integral = np.all(distinct == np.rint(distinct), axis=0) & small
    centre = np.where(integral, 0.0, distinct.mean(axis=0))
    weights = draws if draws.dtype == dtype else draws.astype(dtype)
    return (weights @ (distinct - centre).astype(dtype)).astype(np.float64) + centre * n


class ProductCache:
    """Products of columns with one draw matrix, by a digest of the column's content; the oldest go
    first beyond ``size``."""

    def __init__(self, size: int = 512) -> None:
        self.size = size
        self._items: dict[tuple[bytes, bool], np.ndarray] = {}

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def get(self, key: tuple[bytes, bool]) -> np.ndarray:
        return self._items[key]

    def put(self, key: tuple[bytes, bool], column: np.ndarray) -> None:
        if len(self._items) >= self.size:
            del self._items[next(iter(self._items))]
        self._items[key] = column


def replicate_values(metrics: WeightedMetrics, draws: np.ndarray | Iterable[np.ndarray], matrix: np.ndarray,
                     *, precise: bool = False, cache: ProductCache | None = None) -> np.ndarray:
    """``(R, M)`` values of the resampled metrics on each resample (NaN = undefined there); ``draws``
    is a draw matrix (``cache``: products already made with it) or its blocks (:func:`iter_draws`);
    ``precise`` sums every column in float64."""
    return replicates_and_fixed(metrics, draws, matrix, precise=precise, cache=cache)[0]


def replicates_and_fixed(metrics: WeightedMetrics, draws: np.ndarray | Iterable[np.ndarray], matrix: np.ndarray,
                         *, precise: bool = False, cache: ProductCache | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`replicate_values`, and which metrics are the same in every resample."""
    mask = np.ones(matrix.shape[1], dtype=bool) if precise else None
    rounding = PRECISE_ROUNDING if precise else SPREAD_ROUNDING
    if isinstance(draws, np.ndarray):
        return metrics.replicates(weighted_sums(draws, matrix, mask, cache), rounding)
    dense = [weighted_sums(block, matrix, mask).dense() for block in draws]
    return metrics.replicates(np.concatenate(dense) if dense else np.zeros((0, matrix.shape[1])), rounding)


def percentile_interval(replicates: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
    """Per column, the (1 − level)/2 and (1 + level)/2 quantiles (numpy's linear interpolation) of the
    defined replicates: the percentile bootstrap interval (Efron & Tibshirani 1993, ch. 13). NaN
    when no replicate is defined."""
    tail = (1 - level) / 2
    with np.errstate(invalid="ignore"):
        defined = np.isfinite(replicates).any(axis=0)
        safe = np.where(defined, replicates, 0.0) if replicates.size else replicates
        low, high = np.nanquantile(np.where(np.isfinite(safe), safe, np.nan), [tail, 1 - tail], axis=0) \
            if replicates.shape[0] else (np.full(replicates.shape[1], np.nan),) * 2
    return np.where(defined, low, np.nan), np.where(defined, high, np.nan)
