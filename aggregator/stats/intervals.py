"""Confidence intervals and p-values of one procedure: a variance-components t interval and its test.

An estimate ``θ`` (a condition mean, or a difference of two) has independent variance components
``v_k``, each estimated with ``d_k`` degrees of freedom (seed variance of a condition: its number of
seeds − 1; sample variance: the number of samples − 1); ``se = sqrt(Σ_k v_k)``. Two ways of making
a level 1 − α interval ``θ ± h(α)`` from them (:data:`METHODS`):

- ``welch`` (the default): Welch–Satterthwaite degrees of freedom (Satterthwaite 1946; Welch 1947),
  ``ν = (Σ_k v_k)² / Σ_k (v_k² / d_k)``, and ``h(α) = t(1 − α/2; ν) · se``. The p-value of H0: true
  value 0 is the closed form ``2 · P(T_ν > |θ| / se)``, the α at which ``h(α) = |θ|``.
- ``banerjee``: Banerjee's (1960) conservative combination of Student t quantiles,
  ``h(α) = sqrt(Σ_k t²(1 − α/2; d_k) · v_k)``, which covers at least 1 − α for normal components
  whatever their ratio (Banerjee 1961). The p-value is the root of ``h(α) = |θ|`` (h falls from ∞
  to 0 as α goes from 0 to 1), found by bisection on log10 α to the precision of a double.

With one component both are the Student t interval and the one-sample t test. In both, p is the
exact inversion of the interval itself, nothing forces the two to agree: "the 95% interval excludes
0" holds exactly when "p < 0.05", up to the last bits of a double at the boundary itself. Components
of variance 0 or NaN are left out (they carry no information about the df). An estimate of exactly 0
has p 1. With every component 0 the interval is [θ, θ] and p is 0 when θ ≠ 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import special

LEVEL = 0.95
ALPHA = 1 - LEVEL
Method = Literal["welch", "banerjee"]
METHODS: tuple[Method, ...] = ("welch", "banerjee")
DEFAULT_METHOD: Method = "welch"
_LOG10_FLOOR = -300.0
_BISECTIONS = 64


@dataclass(frozen=True)
class Component:
    """One variance component per row: its estimate and degrees of freedom (NaN: absent)."""

    variance: np.ndarray
    df: np.ndarray


@dataclass(frozen=True)
class Interval:
    """Per row: estimate, standard error, 95% interval and the p-value of the same test; ``df``: the
    degrees of freedom of the t quantile (Welch–Satterthwaite; NaN for Banerjee's rule, which has one per component)."""

    estimate: np.ndarray
    se: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    p_value: np.ndarray
    df: np.ndarray


def _present(c: Component) -> np.ndarray:
    return np.asarray(np.isfinite(c.variance) & np.isfinite(c.df) & (c.variance > 0))


def _upper(alpha: np.ndarray | float, df: np.ndarray) -> np.ndarray:
    """The upper α/2 quantile of Student t with ``df`` degrees of freedom (precise for tiny α)."""
    return np.asarray(-special.stdtrit(df, np.asarray(alpha) / 2))


def satterthwaite_df(components: Sequence[Component]) -> np.ndarray:
    """ν = (Σ v_k)² / Σ (v_k² / d_k) over the present components (Satterthwaite 1946); NaN when none is."""
    with np.errstate(invalid="ignore", divide="ignore"):
        present = [_present(c) for c in components]
        total = np.sum([np.where(p, c.variance, 0.0) for p, c in zip(present, components)], axis=0)
        spread = np.sum([np.where(p, c.variance * c.variance / c.df, 0.0) for p, c in zip(present, components)], axis=0)
        return np.where(spread > 0, total * total / spread, np.nan)


def _banerjee_half_width(alpha: np.ndarray | float, components: Sequence[Component]) -> np.ndarray:
    """sqrt(Σ t²(1 − α/2; d_k) · v_k) over the present components."""
    squares = [np.where(_present(c), _upper(alpha, c.df) ** 2 * c.variance, 0.0) for c in components]
    return np.asarray(np.sqrt(np.sum(squares, axis=0)))


def _banerjee_p(estimate: np.ndarray, components: Sequence[Component]) -> np.ndarray:
    """The α with h(α) = |estimate|, by bisection on log10 α (h decreases in α)."""
    target = np.abs(estimate)
    low = np.full(estimate.shape, _LOG10_FLOOR)
    high = np.zeros(estimate.shape)
    with np.errstate(over="ignore", invalid="ignore"):
        for _ in range(_BISECTIONS):
            middle = (low + high) / 2
            wider = _banerjee_half_width(10.0**middle, components) > target
            low = np.where(wider, middle, low)
            high = np.where(wider, high, middle)
    return np.asarray(10.0 ** ((low + high) / 2))


def combine(estimate: np.ndarray, components: Sequence[Component], method: Method = DEFAULT_METHOD) -> Interval:
    """The interval and p-value of each row by ``method`` (see the module doc); NaN estimate gives NaN everywhere."""
    if method not in METHODS:
        raise ValueError(f"interval method {method!r}: one of {', '.join(METHODS)}")
    estimate = np.asarray(estimate, dtype=np.float64)
    nan = np.full(estimate.shape, np.nan)
    if not components:
        components = [Component(np.zeros(estimate.shape), nan)]
    total = np.sum([np.where(_present(c), c.variance, 0.0) for c in components], axis=0)
    se = np.sqrt(total)
    varies = total > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        if method == "welch":
            df = satterthwaite_df(components)
            half = _upper(ALPHA, df) * se
            p = 2 * special.stdtr(df, -np.abs(estimate) / se)
        else:
            df = nan
            half = _banerjee_half_width(ALPHA, components)
            p = _banerjee_p(estimate, components)
    half = np.where(varies, half, 0.0)
    p = np.where(estimate == 0, 1.0, np.where(varies, p, 0.0))
    undefined = ~np.isfinite(estimate)
    return Interval(
        estimate=estimate,
        se=np.where(undefined, nan, se),
        ci_low=estimate - half,  # NaN with the estimate
        ci_high=estimate + half,
        p_value=np.where(undefined, nan, p),
        df=np.where(undefined | ~varies, nan, df),
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
