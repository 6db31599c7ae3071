"""A second, plain implementation of the comparison's statistics, written from docs/compare.md alone.

It shares no code with :mod:`aggregator.stats`: loops over runs, ``numpy.var``, ``scipy.stats.t`` and
``scipy.optimize.brentq``. Per condition c with S_c runs, each run r with per-sample data and the
draw matrix W (resamples × n, shared by every run and both conditions):

- θ_r = statistic(data_r, weights 1); the condition's estimate is the mean of θ_r over its runs;
- replicate of run r in resample b: statistic(data_r, W[b]); the seed mean's replicate is their mean;
- boot(x) = var(x, ddof 1) · n/(n − 1) (the bootstrap variance over samples, times n/(n − 1));
- seed component v_c = var(θ_r, ddof 1) / S_c with S_c − 1 df (S_c ≥ 2);
- interaction I_c = max(mean_r boot(rep_r) − boot(seed mean), 0) / (S_c − 1) (0 under 2 runs);
- a contrast Δ = mean_B − mean_A has sample component max(boot(seed mean_B − seed mean_A) − I_A − I_B, 0)
  with n − 1 df; a condition mean has max(boot(seed mean) − I, 0);
- Welch–Satterthwaite: ν = (Σ v_k)² / Σ (v_k² / d_k), interval Δ ± t(0.975; ν)·sqrt(Σ v_k),
  p = 2·P(T_ν > |Δ| / sqrt(Σ v_k));
- Banerjee: interval Δ ± sqrt(Σ t²(0.975; d_k) v_k), p = the α whose interval ends at 0.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

Statistic = Callable[[np.ndarray, np.ndarray], float]
"""(per-sample data of one run (n × k), weights (n,)) -> the metric on those weights."""


def weighted_mean(data: np.ndarray, weights: np.ndarray) -> float:
    """A macro mean of column 0."""
    return float(np.sum(weights * data[:, 0]) / np.sum(weights))


def ratio_of_sums(data: np.ndarray, weights: np.ndarray) -> float:
    """Σ w·y / Σ w·z of columns 0 (y) and 1 (z); NaN when Σ w·z = 0."""
    denominator = float(np.sum(weights * data[:, 1]))
    return float(np.sum(weights * data[:, 0])) / denominator if denominator else float("nan")


@dataclass(frozen=True)
class Reference:
    estimate: float
    components: list[tuple[float, float]]
    """(variance, df) of each component present (seeds of A, seeds of B, samples), in that order."""
    se: float
    df: float
    ci_low: float
    ci_high: float
    p_value: float
    seed_share: float


def boot(replicates: np.ndarray, n: int) -> float:
    finite = replicates[np.isfinite(replicates)]
    return float(np.var(finite, ddof=1)) * n / (n - 1)


def _condition(runs: Sequence[np.ndarray], draws: np.ndarray, statistic: Statistic) -> tuple[float, float | None, np.ndarray, float]:
    """Mean, seed variance (None under 2 runs), seed-mean replicates and interaction of one condition."""
    n = draws.shape[1]
    thetas = [statistic(data, np.ones(n)) for data in runs]
    reps = np.array([[statistic(data, w) for w in draws] for data in runs])
    seeds = len(runs)
    seed_mean = reps.mean(axis=0)
    seed_variance = float(np.var(thetas, ddof=1)) / seeds if seeds >= 2 else None
    interaction = 0.0
    if seeds >= 2:
        interaction = max(float(np.mean([boot(r, n) for r in reps])) - boot(seed_mean, n), 0.0) / (seeds - 1)
    return float(np.mean(thetas)), seed_variance, seed_mean, interaction


def interval_of(estimate: float, components: list[tuple[float, float]], method: str) -> tuple[float, float, float]:
    """(half-width, df, p) of the 95% interval by ``method``, from components (variance, df)."""
    parts = [(v, d) for v, d in components if v > 0]
    total = sum(v for v, _ in parts)
    if total == 0:
        return 0.0, float("nan"), 1.0 if estimate == 0 else 0.0
    if method == "welch":
        df = total**2 / sum(v * v / d for v, d in parts)
        half = stats.t.ppf(0.975, df) * np.sqrt(total)
        p = 2 * stats.t.sf(abs(estimate) / np.sqrt(total), df)
        return float(half), float(df), float(p) if estimate != 0 else 1.0

    def width(alpha: float) -> float:
        with np.errstate(over="ignore"):
            return float(np.sqrt(sum(stats.t.isf(alpha / 2, d) ** 2 * v for v, d in parts)))

    if estimate == 0:
        return width(0.05), float("nan"), 1.0
    log_alpha = optimize.brentq(lambda a: width(10.0**a) - abs(estimate), -250, 0, xtol=1e-14, rtol=1e-14)
    return width(0.05), float("nan"), float(10.0**log_alpha)


def contrast(a: Sequence[np.ndarray], b: Sequence[np.ndarray], draws: np.ndarray, method: str,
             statistic: Statistic = weighted_mean) -> Reference:
    """Δ = mean_B − mean_A over the same samples and draws."""
    n = draws.shape[1]
    mean_a, var_a, reps_a, i_a = _condition(a, draws, statistic)
    mean_b, var_b, reps_b, i_b = _condition(b, draws, statistic)
    sample = max(boot(reps_b - reps_a, n) - i_a - i_b, 0.0)
    seeds = [(v, len(runs) - 1.0) for v, runs in ((var_a, a), (var_b, b)) if v is not None]
    return _reference(mean_b - mean_a, seeds, (sample, n - 1.0), method)


def condition_mean(runs: Sequence[np.ndarray], draws: np.ndarray, method: str,
                   statistic: Statistic = weighted_mean) -> Reference:
    """The interval of one condition's mean over its runs."""
    n = draws.shape[1]
    mean, variance, reps, interaction = _condition(runs, draws, statistic)
    sample = max(boot(reps, n) - interaction, 0.0)
    seeds = [(variance, len(runs) - 1.0)] if variance is not None else []
    return _reference(mean, seeds, (sample, n - 1.0), method)


def _reference(estimate: float, seeds: list[tuple[float, float]], sample: tuple[float, float], method: str) -> Reference:
    components = [*seeds, sample]
    total = sum(v for v, _ in components)
    half, df, p = interval_of(estimate, components, method)
    seed_total = sum(v for v, _ in seeds)
    return Reference(estimate, components, float(np.sqrt(total)), df, estimate - half, estimate + half, p,
                     seed_total / total)
