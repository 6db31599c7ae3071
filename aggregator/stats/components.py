"""Seeds × samples: the variance components of a condition mean and of a difference of two.

Model (crossed random effects, seeds and samples): the value of a metric in run r of a condition on
a sample set is θ_r = μ + s_r + (sample effects shared by every run) + (run × sample noise). A
condition's estimate is the mean of θ_r over its S seeds (runs where the metric is defined);
inference is to new seeds *and* new samples.

- **Seed component** (S ≥ 2): ``var(θ_r, ddof=1) / S`` with S − 1 degrees of freedom, from the
  runs' own values. Resampling S seeds instead would estimate it with the factor (S − 1)/S and a
  normal tail, badly anti-conservative for 3–5 seeds; this unbiased estimate and its t quantile
  (:mod:`.intervals`) are the equivalent that keeps coverage.
- **Sample component**: the bootstrap variance over samples (draws shared by every run, and by both
  conditions of a contrast, so pairing is kept) of the seed-averaged statistic, times n/(n − 1),
  with n − 1 degrees of freedom. The run × sample noise is in both components; its share in the
  seed component, (mean over runs of the per-run bootstrap variance − bootstrap variance of the
  seed mean) / (S − 1), is taken out of the sample component (never below 0). Without this the
  pigeonhole bootstrap's double count (Owen 2007) remains and intervals are wider than needed.

With one seed, there is no seed component: the interval covers sample variation only, and the
output says that seed variation is not estimated. Undefined replicates (a ratio whose denominator
is 0 in that resample) are left out of the variances; their count is reported.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from aggregator.stats.intervals import DEFAULT_METHOD, Component, Interval, Method, combine


@dataclass(frozen=True)
class ConditionReplicates:
    """One condition over M metrics: per-run values and replicates, reduced to what inference needs.

    ``mean``: mean over the defined runs; ``seeds``: how many runs define each metric;
    ``seed_variance``: var(ddof=1)/seeds (NaN under 2 seeds); ``replicates`` (R, M): the seed mean
    in each resample; ``interaction``: the run × sample share to take out (0 under 2 seeds);
    ``replicate_variance``: the bootstrap variance of ``replicates`` (:func:`_bootstrap_variance`).
    """

    mean: np.ndarray
    seeds: np.ndarray
    seed_variance: np.ndarray
    replicates: np.ndarray
    interaction: np.ndarray
    n_samples: int
    replicate_variance: np.ndarray


def _variance(x: np.ndarray) -> np.ndarray:
    """Column variances (ddof 1) in three passes, shifted by the first row so the sums cancel little."""
    shifted = x - x[:1]
    total = shifted.sum(axis=0)
    squares = np.einsum("ij,ij->j", shifted, shifted)
    rows = x.shape[0]
    variances: np.ndarray = np.maximum(squares - total * total / rows, 0.0) / (rows - 1)
    return variances


def _bootstrap_variance(replicates: np.ndarray, n: int, fixed: np.ndarray | None = None) -> np.ndarray:
    """Variance over the defined resamples, times n/(n − 1); NaN with fewer than 2 defined. Columns of
    ``fixed`` are the same in every resample: 0 (NaN when undefined)."""
    factor = n / (n - 1) if n > 1 else np.nan
    width = replicates.shape[1]
    out = np.full(width, np.nan)
    if replicates.shape[0] < 2:
        return out
    if fixed is not None and fixed.any():
        out[fixed] = np.where(np.isfinite(replicates[0, fixed]), 0.0, np.nan)
        moving = np.flatnonzero(~fixed)
        out[moving] = _bootstrap_variance(replicates[:, moving], n)
        return out
    finite = np.isfinite(replicates)
    whole = finite.all(axis=0)
    if whole.all():
        return _variance(replicates) * factor
    if whole.any():
        out[whole] = _variance(replicates[:, whole]) * factor
    partial = ~whole
    if partial.any():
        part, kept = replicates[:, partial], finite[:, partial]
        defined = kept.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = np.where(kept, part, 0.0).sum(axis=0) / defined
            centred = np.where(kept, part - mean, 0.0)
            variance = (centred * centred).sum(axis=0) / (defined - 1)
        out[partial] = np.where(defined >= 2, variance * factor, np.nan)
    return out


Replicated = tuple[np.ndarray, np.ndarray] | tuple[np.ndarray, np.ndarray, np.ndarray]


def condition_replicates(runs: Iterable[Replicated], n_samples: int, n_runs: int | None = None) -> ConditionReplicates:
    """Reduce a condition's runs, each ``(values (M,), replicates (R, M)[, fixed (M,)])``, one run at a
    time (``fixed``: metrics that are the same in every resample).

    A metric undefined in a run (NaN value) leaves that run out of the metric's summaries. The runs'
    own bootstrap variances only enter the interaction, which needs 2 seeds: when ``n_runs`` says
    there is one run, they are not computed.
    """
    values: list[np.ndarray] = []
    run_variances: list[np.ndarray] = []
    total: np.ndarray | None = None
    count: np.ndarray | int = 0
    for value, replicates, *rest in runs:
        fixed = rest[0] if rest else None
        defined = np.isfinite(value)
        if defined.all() and np.isfinite(replicates).all():
            kept = replicates
            total = kept.copy() if total is None else np.add(total, kept, out=total)
            count = count + 1
        else:
            kept = np.where(defined, replicates, np.nan)
            finite = np.isfinite(kept)
            part = np.where(finite, kept, 0.0)
            total = part if total is None else np.add(total, part, out=total)
            count = count + finite.astype(np.int32)
        values.append(value)
        if n_runs != 1:
            run_variances.append(np.where(defined, _bootstrap_variance(kept, n_samples, fixed), np.nan))
    if total is None:
        raise ValueError("a condition needs at least one run")
    stacked = np.stack(values)
    defined = np.isfinite(stacked)
    seeds = defined.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns: "mean of empty slice"
        mean = np.where(seeds > 0, np.where(defined, stacked, 0.0).sum(axis=0) / seeds, np.nan)
        spread = np.where(defined, stacked - mean, 0.0)
        seed_variance = np.where(seeds >= 2, (spread * spread).sum(axis=0) / (seeds - 1) / seeds, np.nan)
        seed_mean = np.where(np.asarray(count) > 0, total / count, np.nan) if isinstance(count, np.ndarray) \
            else total / count
        run_variance = np.nanmean(np.stack(run_variances), axis=0) if run_variances else np.zeros(len(mean))
    pooled = _bootstrap_variance(seed_mean, n_samples)
    interaction = np.where(seeds >= 2, np.maximum(run_variance - pooled, 0.0) / np.maximum(seeds - 1, 1), 0.0)
    return ConditionReplicates(mean, seeds, seed_variance, seed_mean, np.nan_to_num(interaction), n_samples, pooled)


@dataclass(frozen=True)
class Inference:
    """An :class:`Interval` plus where its variance comes from."""

    interval: Interval
    seed_share: np.ndarray
    resamples_defined: np.ndarray


def _infer(estimate: np.ndarray, seeds: list[tuple[np.ndarray, np.ndarray]], replicates: np.ndarray,
           replicate_variance: np.ndarray, interaction: np.ndarray, n: int, method: Method) -> Inference:
    sample = np.maximum(replicate_variance - interaction, 0.0)
    components = [Component(variance, count - 1.0) for variance, count in seeds]
    components.append(Component(sample, np.full(estimate.shape, n - 1.0)))
    interval = combine(estimate, components, method)
    seed_total = np.sum([np.nan_to_num(c.variance) for c in components[:-1]], axis=0) if seeds else 0.0
    total = seed_total + np.nan_to_num(sample)
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(total > 0, seed_total / total, np.nan)
    return Inference(interval, share, np.isfinite(replicates).sum(axis=0))


def mean_inference(condition: ConditionReplicates) -> Inference:
    """The interval of a condition's mean over seeds, always by Banerjee's rule: its one seed component
    has S − 1 df (2 with 3 seeds), where Welch–Satterthwaite df are liberal (91.8% coverage measured
    for a nominal 95%, docs/compare.md), while Banerjee's rule covers 96–97%."""
    return _infer(condition.mean, [(condition.seed_variance, condition.seeds)], condition.replicates,
                  condition.replicate_variance, condition.interaction, condition.n_samples, "banerjee")


def contrast_inference(a: ConditionReplicates, b: ConditionReplicates, method: Method = DEFAULT_METHOD) -> Inference:
    """The interval and p-value of mean_b − mean_a over the same samples (paired draws).

    Components: the seeds of A, the seeds of B (each var(ddof 1)/S with S − 1 df) and the paired
    samples (bootstrap variance of the replicate differences b − a, times n/(n − 1), less both
    conditions' run × sample shares, n − 1 df). Two conditions made of the same runs differ by
    exactly 0 (Δ 0, p 1) and their sample component is exactly 0 (the draws are paired); their
    interval is that of the seeds alone: the model treats the second copy as new seeds.
    """
    if a.n_samples != b.n_samples:
        raise ValueError(f"a contrast pairs the same samples: {a.n_samples} and {b.n_samples}")
    differences = b.replicates - a.replicates
    return _infer(b.mean - a.mean, [(a.seed_variance, a.seeds), (b.seed_variance, b.seeds)], differences,
                  _bootstrap_variance(differences, a.n_samples), a.interaction + b.interaction, a.n_samples, method)
