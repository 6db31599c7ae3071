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
resamples; the centres added back and the products' types go with the sums
(:class:`~aggregator.stats.sums.Rounding`), so that a spread computed from them is told from
their rounding. Products run on the caller's BLAS threads; the comparison keeps one: a float32 product's
last bits depend on the threads and on how its columns are batched (measured with OpenBLAS), and the
outputs are kept the same to the bit (the comparison overlaps conditions instead, :meth:`~aggregator.compare.resampled.Resampler.ahead`).
Replicates only feed variances and percentiles; every point estimate is the registry's
own float64 value.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

import numpy as np

from aggregator.stats.sums import ColumnSums, Rounding

if TYPE_CHECKING:
    from aggregator.stats.weighted import WeightedMetrics

BLOCK = 1000
BLOCK_CELLS = 5 * 10**6
"""Counts in one block (40 MB in float64): up to 5,000 samples a block holds :data:`BLOCK` resamples;
beyond, fewer (50,000 samples: 100; 1,000,000: 5), so a run's memory stays near its per-sample table."""
EXACT_LIMIT = 2**24


def block_rows(n: int, cells: int = BLOCK_CELLS) -> int:
    """Resamples drawn at a time for n samples: at most :data:`BLOCK`, and about ``cells`` counts."""
    return max(1, min(BLOCK, cells // max(n, 1)))


def iter_draws(n: int, resamples: int, seed: int, dtype: type[np.floating] = np.float32, *,
               reuse: bool = False, cells: int = BLOCK_CELLS) -> Iterator[np.ndarray]:
    """The rows of :func:`draw_counts` in blocks of :func:`block_rows` (``dtype``), so that memory stays small.

    Each resample's n indices are drawn and counted on their own (the generator's stream is the one
    of drawing the whole block at once), so beyond the block only one resample's indices are held.
    ``reuse``: every block is written into the memory of the first (a caller that is done with a block
    before it asks for the next): fresh memory for each block cost more than the draws themselves
    (2,000 resamples of 5,000 samples in a new process: 0.11–0.25 CPU-s, 0.055 reused). ``cells``: about
    how many counts a block holds (:func:`block_rows`); the draws are the same whatever it is."""
    rng = np.random.default_rng(seed)
    step = block_rows(n, cells)
    indices = np.empty(n, dtype=np.intp)  # bincount's own type: it would copy int32 indices anew each time
    buffer = np.empty((min(step, resamples), n), dtype=dtype) if reuse else None
    for start in range(0, resamples, step):
        rows = min(step, resamples - start)
        block = buffer[:rows] if buffer is not None else np.empty((rows, n), dtype=dtype)
        for row in block:
            np.copyto(indices, rng.integers(0, n, size=n, dtype=np.int32))
            row[:] = np.bincount(indices, minlength=n)
        yield block


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
    return SampleColumns(matrices, precise).sums(draws, cache)


_RELEASED = np.empty(0)
"""What :class:`SampleColumns` holds for a column once its centred copy is made (the column is let go)."""


class SampleColumns:
    """The distinct varying columns of some sample matrices (``precise``: a boolean mask of the columns
    summed in float64, all of them when True), each centred (:func:`_centred`) once for the products
    with any number of draw blocks. Once all of them are stacked, the matrices are no longer held."""

    def __init__(self, matrices: Sequence[np.ndarray], precise: np.ndarray | None) -> None:
        self._owned: np.ndarray | None = None  # see :meth:`of_columns`
        self.layouts = []
        self.width = matrices[0].shape[1] if matrices else 0
        self.wanted: dict[tuple[bytes, bool], np.ndarray] = {}
        for matrix in matrices:
            n, width = matrix.shape
            exact = np.zeros(width, dtype=bool) if precise is None else np.broadcast_to(precise, (width,))
            constant = np.all(matrix == matrix[:1], axis=0) if n else np.ones(width, dtype=bool)
            varying = np.flatnonzero(~constant)
            by_column: dict[tuple[bytes, bool], list[int]] = {}
            for place, j in enumerate(varying):
                key = (hashlib.blake2b(matrix[:, j].tobytes(), digest_size=20).digest(), bool(exact[j]))
                by_column.setdefault(key, []).append(place)
                self.wanted.setdefault(key, matrix[:, j])
            self.layouts.append((matrix[0] * n if n else np.zeros(width), n, varying, by_column))
        self._centred: dict[tuple[tuple[bytes, bool], ...], tuple[np.ndarray, np.ndarray]] = {}

    @classmethod
    def of_columns(cls, columns: Iterable[np.ndarray], width: int, n: int) -> SampleColumns:
        """The sample columns of one matrix given column by column (e.g.
        :meth:`~aggregator.stats.weighted.WeightedMetrics.sample_columns`), every one summed in float64:
        only the distinct varying ones are kept, side by side in memory that is only taken as it is
        written, so the whole matrix is never held (at 1,000,000 samples and 17 columns: 129 MB)."""
        self = cls([], None)
        self.width = width
        store = np.empty((n, width), order="F")
        whole = np.zeros(width)
        varying: list[int] = []
        by_column: dict[tuple[bytes, bool], list[int]] = {}
        for j, column in enumerate(columns):
            whole[j] = column[0] * n if n else 0.0
            if n and not np.all(column == column[0]):
                key = (hashlib.blake2b(column.tobytes(), digest_size=20).digest(), True)
                by_column.setdefault(key, []).append(len(varying))
                varying.append(j)
                if key not in self.wanted:
                    place = store[:, len(self.wanted)]
                    place[:] = column
                    self.wanted[key] = place
        self.layouts.append((whole, n, np.array(varying, dtype=np.intp), by_column))
        self._owned = store
        return self

    def centred(self, keys: list[tuple[bytes, bool]], dtype: type[np.floating]) -> tuple[np.ndarray, np.ndarray]:
        """:func:`_centred` of the columns ``keys``, kept for the next block."""
        found = self._centred.get(tuple(keys))
        if found is None:
            found = self._centred[tuple(keys)] = _centred(self._stacked(keys), dtype)
            if len(keys) == sum(key[1] == keys[0][1] for key in self.wanted):  # every column of its kind
                self.wanted.update(dict.fromkeys(keys, _RELEASED))
        return found

    def _stacked(self, keys: list[tuple[bytes, bool]]) -> np.ndarray:
        """The columns ``keys`` side by side: a copy, or the store of :meth:`of_columns` itself when
        they are all its columns (in its order), to be centred in place."""
        if self._owned is not None and keys == list(self.wanted):
            store, self._owned = self._owned, None
            return store[:, :len(keys)]
        return _side_by_side([self.wanted[k] for k in keys])

    def sums(self, draws: np.ndarray, cache: ProductCache | None = None) -> list[ColumnSums]:
        """Each matrix's column sums over the resamples of ``draws``."""
        found = {key: cache.get(key) for key in self.wanted if cache is not None and key in cache}
        for exact_sum, dtype in ((False, np.float32), (True, np.float64)):
            keys = [key for key in self.wanted if key[1] == exact_sum and key not in found]
            if keys:
                centred, centre = self.centred(keys, dtype)
                product = _product(draws, centred, centre, dtype)
                for i, key in enumerate(keys):
                    found[key] = (product[:, i], float(centre[i]))
                    if cache is not None:
                        cache.put(key, found[key])
        out = []
        for whole, n, varying, by_column in self.layouts:
            values = np.empty((draws.shape[0], len(varying)))
            added = np.zeros(len(whole))
            precise = np.ones(len(whole), dtype=bool)  # a constant column: n times its value, in float64
            for key, places in by_column.items():
                column, shift = found[key]
                values[:, places] = column[:, None]
                added[varying[places]] = shift * n  # as :func:`_product` adds it
                precise[varying[places]] = key[1]
            first = whole.copy()
            first[varying] = values[0] if draws.shape[0] else 0.0
            dtypes = [np.float64 if exact else np.float32 for exact in precise]
            out.append(ColumnSums(draws.shape[0], first, varying, values, Rounding.of(n, dtypes, added)))
        return out


def _side_by_side(columns: list[np.ndarray]) -> np.ndarray:
    """The columns as one matrix in column order, as an owned matrix is (the same sums, bit for bit)."""
    out = np.empty((len(columns[0]), len(columns)), dtype=np.result_type(*columns), order="F")
    for i, column in enumerate(columns):
        out[:, i] = column
    return out


def _centred(distinct: np.ndarray, dtype: type[np.floating]) -> tuple[np.ndarray, np.ndarray]:
    """``distinct`` in ``dtype`` to be multiplied with draws, and the centre taken off each column:
    integer columns as they are (exact), others centred on their mean."""
    n = distinct.shape[0]
    small = np.array([np.abs(column).max(initial=0.0) for column in distinct.T]) * n < EXACT_LIMIT
    integral = np.array([np.array_equal(column, np.rint(column)) for column in distinct.T], dtype=bool) & small
    centre = np.where(integral, 0.0, distinct.mean(axis=0))
    distinct -= centre  # in place: ``distinct`` is a stacked copy
    return distinct.astype(dtype, copy=False), centre


def _product(draws: np.ndarray, centred: np.ndarray, centre: np.ndarray, dtype: type[np.floating]) -> np.ndarray:
    """``draws @ distinct`` in ``dtype`` from :func:`_centred` of ``distinct`` (n × k)."""
    weights = draws if draws.dtype == dtype else draws.astype(dtype)
    product: np.ndarray = (weights @ centred).astype(np.float64) + centre * centred.shape[0]
    return product


class ProductCache:
    """Products of columns with one draw matrix, by a digest of the column's content; the oldest go
    first beyond ``size``."""

    def __init__(self, size: int = 512) -> None:
        self.size = size
        self._items: dict[tuple[bytes, bool], tuple[np.ndarray, float]] = {}

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def get(self, key: tuple[bytes, bool]) -> tuple[np.ndarray, float]:
        """The product and the centre added back to it (:func:`_product`)."""
        return self._items[key]

    def put(self, key: tuple[bytes, bool], column: tuple[np.ndarray, float]) -> None:
        if len(self._items) >= self.size:
            del self._items[next(iter(self._items))]
        self._items[key] = column


def replicate_values(metrics: WeightedMetrics, draws: np.ndarray | Iterable[np.ndarray],
                     matrix: np.ndarray | SampleColumns, *, precise: bool = False,
                     cache: ProductCache | None = None) -> np.ndarray:
    """``(R, M)`` values of the resampled metrics on each resample (NaN = undefined there); ``draws``
    is a draw matrix (``cache``: products already made with it) or its blocks (:func:`iter_draws`);
    ``precise`` sums every column in float64. ``matrix`` may be given as its :class:`SampleColumns`
    (made with the same ``precise``), so that the caller does not hold it while the blocks are multiplied."""
    return replicates_and_fixed(metrics, draws, matrix, precise=precise, cache=cache)[0]


def replicates_and_fixed(metrics: WeightedMetrics, draws: np.ndarray | Iterable[np.ndarray],
                         matrix: np.ndarray | SampleColumns, *, precise: bool = False,
                         cache: ProductCache | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`replicate_values`, and which metrics are the same in every resample."""
    columns = matrix if isinstance(matrix, SampleColumns) else SampleColumns([matrix], sample_mask(precise))
    if isinstance(draws, np.ndarray):
        return metrics.replicates(columns.sums(draws, cache)[0])
    dense, rounding = [], None
    for block in draws:
        sums = columns.sums(block)[0]
        dense.append(sums.dense())
        rounding = sums.rounding  # the same for every block: the columns are centred once
    return metrics.replicates(ColumnSums.of(np.concatenate(dense) if dense else np.zeros((0, columns.width)), rounding))


def sample_mask(precise: bool) -> np.ndarray | None:
    """The ``precise`` mask of :class:`SampleColumns` for every column summed in float64 (True) or none."""
    return np.array(True) if precise else None


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
