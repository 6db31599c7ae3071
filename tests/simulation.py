"""Synthetic populations with a known truth, to measure the coverage of the comparison's intervals.

Each design draws, per replication, two conditions A and B of S seeds each over the same n samples:

- ``score`` (a macro mean): x = μ_c + s_cr + u_i + e_cri, with a shared, right-skewed sample effect
  u_i (centred gamma, shape 0.5), a seed shift s_cr ~ N(0, σ_seed²) and right-skewed run × sample
  noise e (centred exponential). Truth: μ_c; Δ = μ_B − μ_A.
- ``rate`` (a ratio of sums, like a fix rate): z_i ~ Bernoulli(0.4) marks the eligible samples
  (shared), y = z · Bernoulli(π_cr) with logit π_cr = logit π_c + s_cr. Truth: E_s[π_cr] (the
  expected per-seed rate), computed by quadrature.

Both go through the comparison's own path: a two-metric registry, its weighted form
(:mod:`aggregator.stats.weighted`), shared bootstrap draws, the seeds × samples components and the
interval of :mod:`aggregator.stats.intervals`. ``python -m tests.simulation`` prints the table in
docs/compare.md.
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import polars as pl
from scipy import integrate, special
from threadpoolctl import threadpool_limits

from aggregator.metrics.registry import Metric, Registry
from aggregator.stats.bootstrap import draw_counts, weighted_sums
from aggregator.stats.compile import compile_metrics
from aggregator.stats.components import ConditionReplicates, condition_replicates, contrast_inference, mean_inference
from aggregator.stats.intervals import METHODS, Method

if TYPE_CHECKING:
    from aggregator.stats.weighted import WeightedMetrics

METRICS = ("score", "rate")


@dataclass(frozen=True)
class Design:
    """One synthetic population; ``delta`` is the true B − A of both metrics' parameters."""

    name: str
    seeds: int
    delta: float
    seed_sd: float
    samples: int = 50
    score_mean: float = 0.5
    rate_logit: float = -0.4
    sample_sd: float = 0.15
    noise_sd: float = 0.1
    seeds_b: int | None = None
    """B's seeds when they differ from A's (``seeds``)."""

    @property
    def counts(self) -> tuple[int, int]:
        return self.seeds, self.seeds_b or self.seeds


DESIGNS = (
    Design("3 seeds, Δ = 0, no seed shift", 3, 0.0, 0.0),
    Design("3 seeds, Δ = 0, seed shift", 3, 0.0, 0.08),
    Design("3 seeds, Δ ≠ 0, seed shift", 3, 0.05, 0.08),
    Design("5 seeds, Δ = 0, seed shift", 5, 0.0, 0.08),
    Design("5 seeds, Δ ≠ 0, seed shift", 5, 0.05, 0.04),
    Design("1 seed, Δ = 0", 1, 0.0, 0.0),
    Design("3 vs 5 seeds, Δ = 0, seed shift", 3, 0.0, 0.08, seeds_b=5),
)


def registry() -> Registry:
    reg = Registry()
    reg.add(Metric("score", "Score", "mean score", "mean x", pl.col("x").mean(), requires_gold=False))
    reg.add(Metric("rate", "Rate", "ratio of sums", "Σ y / Σ z",
                   pl.when(pl.col("z").sum() > 0).then(pl.col("y").sum() / pl.col("z").sum()), requires_gold=False))
    return reg


def _expected_rate(logit: float, seed_sd: float) -> float:
    if seed_sd == 0:
        return float(special.expit(logit))
    density = lambda s: special.expit(logit + s) * np.exp(-0.5 * (s / seed_sd) ** 2)  # noqa: E731
    value, _ = integrate.quad(density, -12 * seed_sd, 12 * seed_sd)
    return value / (seed_sd * np.sqrt(2 * np.pi))


def truths(design: Design) -> dict[str, tuple[float, float]]:
    """Per metric: (true mean of A, true B − A)."""
    rate_a = _expected_rate(design.rate_logit, design.seed_sd)
    rate_b = _expected_rate(design.rate_logit + design.delta * 4, design.seed_sd)
    return {"score": (design.score_mean, design.delta), "rate": (rate_a, rate_b - rate_a)}


def _tables(design: Design, replications: int, rng: np.random.Generator) -> pl.DataFrame:
    """Rows in (replication, condition, seed, sample) order."""
    n, s = design.samples, max(design.counts)
    shape = (replications, 2, s, n)
    u = rng.gamma(0.5, design.sample_sd / np.sqrt(0.5), (replications, 1, 1, n)) - design.sample_sd * np.sqrt(0.5)
    shift = rng.normal(0, design.seed_sd, (replications, 2, s, 1))
    noise = rng.exponential(design.noise_sd, shape) - design.noise_sd
    mu = design.score_mean + design.delta * np.arange(2).reshape(1, 2, 1, 1)
    z = np.broadcast_to(rng.random((replications, 1, 1, n)) < 0.4, shape)
    logit = design.rate_logit + design.delta * 4 * np.arange(2).reshape(1, 2, 1, 1) + shift
    y = z & (rng.random(shape) < special.expit(logit))
    return pl.DataFrame({"x": (mu + shift + u + noise).ravel(), "y": y.ravel().astype(np.int64),
                         "z": z.ravel().astype(np.int64), "n_gold": np.ones(y.size, dtype=np.int64)})


@dataclass(frozen=True)
class Measured:
    """Per metric, of one interval method: coverage (share of intervals holding the truth), rejections
    (p < 0.05: false positives at a true Δ of 0, power otherwise), mean widths."""

    contrast_coverage: dict[str, float]
    mean_coverage: dict[str, float]
    rejections: dict[str, float]
    contrast_width: dict[str, float]
    mean_width: dict[str, float]
    seed_share: dict[str, float]
    naive_coverage: dict[str, float]
    """Δ coverage of the plain two-level percentile bootstrap (seeds and samples resampled), for comparison."""


def simulate(design: Design, *, replications: int, resamples: int, seed: int) -> dict[Method, Measured]:
    """The measurements of every interval method on the same synthetic replications."""
    with threadpool_limits(limits=1, user_api="blas"):
        return _simulate(design, replications=replications, resamples=resamples, seed=seed)


def _simulate(design: Design, *, replications: int, resamples: int, seed: int) -> dict[Method, Measured]:
    rng = np.random.default_rng(seed)
    reg = registry()
    table = _tables(design, replications, rng)
    weighted: WeightedMetrics = compile_metrics(reg, table.head(design.samples))
    n, s = design.samples, max(design.counts)
    matrix = weighted.sample_matrix(table).reshape(replications, 2 * s, n, -1)
    columns = matrix.shape[-1]
    points = weighted.evaluate(matrix.sum(axis=2).reshape(-1, columns)).reshape(replications, 2, s, -1)
    sums = np.empty((replications, 2 * s, resamples, columns))
    for r in range(replications):
        draws = draw_counts(n, resamples, int(rng.integers(2**32)))
        flat = np.moveaxis(matrix[r], 1, 0).reshape(n, -1)
        sums[r] = np.moveaxis(weighted_sums(draws, flat).dense().reshape(resamples, 2 * s, columns), 1, 0)
    reps = weighted.evaluate(sums.reshape(-1, columns)).reshape(replications, 2, s, resamples, -1)
    m = len(weighted.names)

    def condition(c: int) -> ConditionReplicates:
        used = design.counts[c]
        values = np.moveaxis(points[:, c, :used], 0, 1).reshape(used, replications * m)
        replicated = np.moveaxis(reps[:, c, :used], 0, 2).reshape(used, resamples, replications * m)
        return condition_replicates(zip(values, replicated), n)

    naive = _naive_intervals(reps, design.counts, rng)
    a, b = condition(0), condition(1)
    truth = truths(design)
    out = {}
    for method in METHODS:
        contrast, mean_a = contrast_inference(a, b, method), mean_inference(a)
        measured: dict[str, dict[str, float]] = {k: {} for k in ("cc", "mc", "rej", "w", "mw", "share", "naive")}
        for k, name in enumerate(weighted.names):
            cols = np.arange(replications) * m + k
            true_a, true_delta = truth[name]
            ci, mi = contrast.interval, mean_a.interval
            measured["cc"][name] = float(np.mean((ci.ci_low[cols] <= true_delta) & (true_delta <= ci.ci_high[cols])))
            measured["rej"][name] = float(np.mean(ci.p_value[cols] < 0.05))
            measured["w"][name] = float(np.mean(ci.ci_high[cols] - ci.ci_low[cols]))
            measured["mw"][name] = float(np.mean(mi.ci_high[cols] - mi.ci_low[cols]))
            measured["share"][name] = float(np.nanmean(contrast.seed_share[cols]))
            measured["mc"][name] = float(np.mean((mi.ci_low[cols] <= true_a) & (true_a <= mi.ci_high[cols])))
            low, high = naive[0][:, k], naive[1][:, k]
            measured["naive"][name] = float(np.mean((low <= true_delta) & (true_delta <= high)))
        out[method] = Measured(measured["cc"], measured["mc"], measured["rej"], measured["w"], measured["mw"],
                               measured["share"], measured["naive"])
    return out


def _naive_intervals(reps: np.ndarray, counts: tuple[int, int],
                     rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Percentile intervals of Δ when each resample also redraws each condition's seeds with replacement
    (the two-level bootstrap with seeds as a random effect), per replication and metric."""
    replications, _, _, resamples, _ = reps.shape
    if counts[0] == counts[1]:  # one draw for both conditions (the stream of the table in docs/compare.md)
        seeds = counts[0]
        picks = rng.multinomial(seeds, np.full(seeds, 1 / seeds), size=(replications, 2, resamples)) / seeds
        both = np.einsum("icbs,icsbm->icbm", picks, reps)
        low, high = np.nanpercentile(both[:, 1] - both[:, 0], [2.5, 97.5], axis=1)
        return low, high
    means = []
    for c, seeds in enumerate(counts):
        picks = rng.multinomial(seeds, np.full(seeds, 1 / seeds), size=(replications, resamples)) / seeds
        means.append(np.einsum("ibs,isbm->ibm", picks, reps[:, c, :seeds]))
    delta = means[1] - means[0]
    low, high = np.nanpercentile(delta, [2.5, 97.5], axis=1)
    return low, high


def _pair(got: dict[Method, Measured], field: str, name: str, form: str) -> str:
    """One cell: the Welch–Satterthwaite value, then Banerjee's."""
    values = [getattr(got[method], field)[name] for method in METHODS]
    return " / ".join("—" if np.isnan(v) else format(v, form) for v in values)


def main() -> None:
    parser = argparse.ArgumentParser(description="Measured coverage of the comparison's intervals")
    parser.add_argument("--replications", type=int, default=4000)
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    print(f"{args.replications} replications per design, {args.resamples} resamples, n = 50 samples; "
          f"each cell: {' / '.join(METHODS)}\n")
    print("| design | metric | Δ coverage | mean coverage | rejections at Δ = 0 | power at Δ ≠ 0 | mean Δ CI width | "
          "mean CI width | seed share | two-level percentile bootstrap: Δ coverage |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for i, design in enumerate(DESIGNS):
        started = time.perf_counter()
        got = simulate(design, replications=args.replications, resamples=args.resamples, seed=i)
        first = got[METHODS[0]]
        for name in METRICS:
            null = design.delta == 0
            print(f"| {design.name} | {name} | {_pair(got, 'contrast_coverage', name, '.1%')} | "
                  f"{_pair(got, 'mean_coverage', name, '.1%')} | "
                  f"{_pair(got, 'rejections', name, '.1%') if null else '—'} | "
                  f"{'—' if null else _pair(got, 'rejections', name, '.1%')} | "
                  f"{_pair(got, 'contrast_width', name, '.3f')} | {_pair(got, 'mean_width', name, '.3f')} | "
                  f"{first.seed_share[name]:.2f} | {first.naive_coverage[name]:.1%} |")
        print(f"<!-- {design.name}: {time.perf_counter() - started:.1f} s -->", flush=True)


if __name__ == "__main__":
    main()
