"""Confidence intervals and p-values of one procedure: a variance-components t interval and its test.

An estimate ``θ`` (a condition mean, or a difference of two) has independent variance components
``v_k``, each estimated with ``d_k`` degrees of freedom (seed variance of a condition: its number of
seeds − 1; sample variance: the number of samples − 1). The interval at level 1 − α is Banerjee's
(1960) conservative combination of Student t quantiles,

    θ ± h(α),   h(α) = sqrt( Σ_k t²(1 − α/2; d_k) · v_k ),

which covers at least 1 − α for normal components whatever their ratio (Banerjee 1961); with
one component it is the Student t interval. The p-value of H0: true value 0 is the test this
interval inverts: the smallest α at which the interval excludes 0, the root of ``h(α) = |θ|``
(h falls from ∞ to 0 as α goes from 0 to 1). "The 95% interval excludes 0" holds exactly when
"p < 0.05": the root is found to 1e-15 and a row at the boundary is put on the side its interval
is on. An estimate of exactly 0 has p 1. With every component 0, the interval is [θ, θ] and p is
0 when θ ≠ 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special

LEVEL = 0.95
ALPHA = 1 - LEVEL
_LOG10_FLOOR = -300.0
_BISECTIONS = 64


@dataclass(frozen=True)
class Component:
    """One variance component per row: its estimate and degrees of freedom (NaN: absent)."""

    variance: np.ndarray
    df: np.ndarray


@dataclass(frozen=True)
class Interval:
    """Per row: estimate, standard error, 95% interval and the p-value of the same test."""

    estimate: np.ndarray
    se: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    p_value: np.ndarray


def _half_width(alpha: np.ndarray | float, components: Sequence[Component]) -> np.ndarray:
    total = np.zeros(np.broadcast(components[0].variance, alpha).shape)
    for c in components:
        present = np.isfinite(c.variance) & np.isfinite(c.df) & (c.variance > 0)
        df = np.where(present, c.df, 1.0)
        q = -special.stdtrit(df, np.asarray(alpha) / 2)  # the upper α/2 quantile, precise for tiny α
        total += np.where(present, q * q * np.where(present, c.variance, 0.0), 0.0)
    return np.sqrt(total)


def _inverted_p(estimate: np.ndarray, components: Sequence[Component]) -> np.ndarray:
    """The α with h(α) = |estimate|, by bisection on log10 α (h decreases in α)."""
    target = np.abs(estimate)
    low = np.full(estimate.shape, _LOG10_FLOOR)
    high = np.zeros(estimate.shape)
    with np.errstate(over="ignore", invalid="ignore"):
        for _ in range(_BISECTIONS):
            middle = (low + high) / 2
            wider = _half_width(10.0**middle, components) > target
            low = np.where(wider, middle, low)
            high = np.where(wider, high, middle)
    return 10.0 ** ((low + high) / 2)


def combine(estimate: np.ndarray, components: Sequence[Component]) -> Interval:
    """The interval and p-value of each row (see the module doc); NaN estimate gives NaN everywhere."""
    estimate = np.asarray(estimate, dtype=np.float64)
    variances = [np.where(np.isfinite(c.variance) & np.isfinite(c.df), c.variance, 0.0) for c in components]
    total = np.sum(variances, axis=0) if variances else np.zeros(estimate.shape)
    se = np.sqrt(total)
    half = _half_width(ALPHA, components) if components else np.zeros(estimate.shape)
    low, high = estimate - half, estimate + half
    varies = total > 0
    p = _inverted_p(np.where(varies, estimate, 0.0), components) if components else np.ones(estimate.shape)
    p = np.where(estimate == 0, 1.0, np.where(varies, np.minimum(p, 1.0), 0.0))
    excludes = (low > 0) | (high < 0)
    p = np.where(excludes & (p >= ALPHA), np.nextafter(ALPHA, 0.0), p)
    p = np.where(~excludes & (p < ALPHA), ALPHA, p)
    undefined = ~np.isfinite(estimate)
    nan = np.full(estimate.shape, np.nan)
    return Interval(
        estimate=estimate,
        se=np.where(undefined, nan, se),
        ci_low=np.where(undefined, nan, low),
        ci_high=np.where(undefined, nan, high),
        p_value=np.where(undefined, nan, p),
    )


def holm(p_values: np.ndarray) -> np.ndarray:
    """Holm's (1979) step-down adjustment over the defined (non-NaN) p-values; NaN stays NaN."""
    p = np.asarray(p_values, dtype=np.float64)
    out = np.full(p.shape, np.nan)
    defined = np.flatnonzero(np.isfinite(p))
    m = defined.size
    if m == 0:
        return out
    order = defined[np.argsort(p[defined], kind="stable")]
    stepped = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * p[order]))
    out[order] = stepped
    return out
