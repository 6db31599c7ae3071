"""Paired statistics over samples: bootstrap CI of the mean difference and a sign-flip permutation test.

Input is an ``(n, k)`` matrix ``D`` of per-sample differences (condition B − condition A), one
column per quantity (unit × statistic). For each column, with ``R`` resamples:

- ``delta`` = mean over samples of D (= mean_b − mean_a up to rounding);
- 95% percentile bootstrap CI: the 2.5% and 97.5% quantiles (numpy's linear interpolation) of
  ``W @ D / n``, where each row of ``W`` (R × n) counts how often each sample is drawn in one
  resample of n samples with replacement;
- two-sided sign-flip permutation p-value: ``T* = S @ D / n`` with ``S`` (R × n) random ±1, and
  ``p = (1 + #{|T*| >= |delta|}) / (1 + R)``; ``>=`` allows a relative rounding slack of
  100 machine epsilons (as scipy.stats.permutation_test does).

The matrix products run on one BLAS thread: many small products are faster so, and do not
stall when other processes load the machine. The resample counts and signs are drawn once per call, from ``numpy.random.default_rng(seed)``,
and shared by all columns; a call therefore depends only on D, ``resamples`` and ``seed``.
A column whose differences are all exactly 0 (e.g. a condition compared with itself) is set
explicitly to delta 0, CI [0, 0], p 1, without resampling rounding. With n = 0 every value is NaN.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from threadpoolctl import threadpool_limits

CONFIDENCE = 0.95
BLOCK = 100
_TIE_SLACK = 100 * np.finfo(np.float64).eps


@dataclass(frozen=True)
class PairedTests:
    """Per-column results, each an array of length k."""

    delta: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    p_value: np.ndarray

    def columns(self, part: slice) -> PairedTests:
        """The results of some columns only."""
        return PairedTests(self.delta[part], self.ci_low[part], self.ci_high[part], self.p_value[part])


def _blocks(resamples: int) -> list[tuple[int, int]]:
    return [(start, min(start + BLOCK, resamples)) for start in range(0, resamples, BLOCK)]


def bootstrap_means(diffs: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """``(resamples, k)`` means of D over resamples of its rows drawn with replacement."""
    n, k = diffs.shape
    out = np.empty((resamples, k))
    for start, stop in _blocks(resamples):
        size = stop - start
        drawn = rng.integers(0, n, size=(size, n)) + (np.arange(size) * n)[:, None]
        weights = np.bincount(drawn.ravel(), minlength=size * n).reshape(size, n)
        out[start:stop] = weights.astype(np.float64) @ diffs
    return out / n


def flip_exceedances(diffs: np.ndarray, observed: np.ndarray, resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Per column: how many of ``resamples`` random sign flips give ``|T*| >= |observed|``."""
    n, k = diffs.shape
    threshold = np.abs(observed) * (1 - _TIE_SLACK)
    hits = np.zeros(k, dtype=np.int64)
    for start, stop in _blocks(resamples):
        signs = rng.integers(0, 2, size=(stop - start, n), dtype=np.int8).astype(np.float64) * 2 - 1
        hits += (np.abs(signs @ diffs / n) >= threshold).sum(axis=0)
    return hits


def paired_tests(diffs: np.ndarray, *, resamples: int, seed: int) -> PairedTests:
    """Bootstrap CI and sign-flip p-value of the mean of each column of ``diffs`` (see module doc)."""
    n, k = diffs.shape
    if n == 0:
        empty = np.full(k, np.nan)
        return PairedTests(empty, empty, empty, empty)
    boot_rng, flip_rng = np.random.default_rng(seed).spawn(2)
    delta = diffs.mean(axis=0)
    tail = (1 - CONFIDENCE) / 2
    with threadpool_limits(limits=1, user_api="blas"):
        means = bootstrap_means(diffs, resamples, boot_rng)
        hits = flip_exceedances(diffs, delta, resamples, flip_rng)
    ci_low, ci_high = np.quantile(means, [tail, 1 - tail], axis=0)
    p_value = (1 + hits) / (1 + resamples)
    zero = ~diffs.any(axis=0)
    for values, exact in ((delta, 0.0), (ci_low, 0.0), (ci_high, 0.0), (p_value, 1.0)):
        values[zero] = exact
    return PairedTests(delta, ci_low, ci_high, p_value)
