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

from collections.abc import Iterable, Iterator

import numpy as np

from aggregator.stats.weighted import WeightedMetrics

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


def weighted_sums(draws: np.ndarray, matrix: np.ndarray, precise: np.ndarray | None = None) -> np.ndarray:
    """``(R, C)`` float64 sums ``draws @ matrix``, computed in float32 as the module doc says, but for the
    columns of ``precise`` (a boolean mask; all of them when True), summed in float64."""
    n, width = matrix.shape
    exact = np.zeros(width, dtype=bool) if precise is None else np.broadcast_to(precise, (width,))
    constant = np.all(matrix == matrix[:1], axis=0) if n else np.ones(width, dtype=bool)
    sums = np.empty((draws.shape[0], width))
    sums[:, constant] = matrix[0, constant] * n if n else 0.0
    for columns, dtype in ((~constant & ~exact, np.float32), (~constant & exact, np.float64)):
        if columns.any():
            sums[:, columns] = _distinct_sums(draws, matrix[:, columns], dtype)
    return sums


def _distinct_sums(draws: np.ndarray, matrix: np.ndarray, dtype: type[np.floating]) -> np.ndarray:
    """``draws @ matrix`` with each distinct column multiplied once (mean leaves share presence columns)."""
    n = matrix.shape[0]
    _, first, back = np.unique(matrix, axis=1, return_index=True, return_inverse=True)
    distinct = matrix[:, first]
    integral = np.all(distinct == np.rint(distinct), axis=0) & (np.abs(distinct).max(axis=0, initial=0.0) * n < EXACT_LIMIT)
    centre = np.where(integral, 0.0, distinct.mean(axis=0))
    shifted = (distinct - centre).astype(dtype)
    weights = draws if draws.dtype == dtype else draws.astype(dtype)
    product = weights @ shifted
    return (product.astype(np.float64) + centre * n)[:, back.reshape(-1)]


def replicate_values(metrics: WeightedMetrics, draws: np.ndarray | Iterable[np.ndarray], matrix: np.ndarray,
                     *, precise: bool = False) -> np.ndarray:
    """``(R, M)`` values of the resampled metrics on each resample (NaN = undefined there); ``draws``
    is a draw matrix or its blocks (:func:`iter_draws`); ``precise`` sums every column in float64."""
    mask = np.ones(matrix.shape[1], dtype=bool) if precise else None
    blocks = [draws] if isinstance(draws, np.ndarray) else draws
    return metrics.evaluate(np.concatenate([weighted_sums(block, matrix, mask) for block in blocks]))


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
