"""Undefined values and replicates in the variance components, against the definitions of docs/compare.md.

A replicate that is NaN (a ratio whose denominator is 0 in that resample) is left out of its column's
bootstrap variance; a run whose value is undefined is left out of the condition's mean, seed variance,
seed-mean replicates and interaction; a column the same in every resample has sample variance 0. Each
expected number is computed here by loops over plain lists, never read from the tool; the layouts are
chosen so that every path of the reduction is reached (columns with 0, 1, 2 and all replicates defined,
resample rows defined in only one run, 1 and 2 resamples, n = 1 and 2).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from aggregator.stats.components import _bootstrap_variance, condition_replicates

NAN = float("nan")


def boot(column: list[float], n: int) -> float:
    """var(ddof 1) of the defined replicates × n/(n − 1); NaN under 2 defined or n ≤ 1."""
    kept = [x for x in column if math.isfinite(x)]
    if len(kept) < 2 or n <= 1:
        return NAN
    mean = sum(kept) / len(kept)
    return sum((x - mean) ** 2 for x in kept) / (len(kept) - 1) * n / (n - 1)


def close(got: np.ndarray, want: list[float]) -> None:
    assert np.asarray(got).shape == (len(want),)
    for g, w in zip(got.tolist(), want, strict=True):
        assert (math.isnan(g) and math.isnan(w)) or g == pytest.approx(w, rel=1e-12, abs=1e-15), (got, want)


def layout(rows: int, rng: np.random.Generator) -> np.ndarray:
    """Columns with every replicate, all but one, two, one and none defined, then a random half."""
    x = 1_000.0 + rng.normal(0.0, 1.0, (rows, 6))
    x[0, 1] = NAN
    x[2:, 2] = NAN
    x[1:, 3] = NAN
    x[:, 4] = NAN
    x[rng.random(rows) < 0.5, 5] = NAN
    return x


@pytest.mark.parametrize("rows", [3, 5, 40])
@pytest.mark.parametrize("n", [2, 3, 50])
def test_each_column_is_the_variance_of_its_defined_replicates(rows: int, n: int) -> None:
    x = layout(rows, np.random.default_rng(rows * 100 + n))
    close(_bootstrap_variance(x, n), [boot(x[:, j].tolist(), n) for j in range(x.shape[1])])
    whole = x[:, :1]  # every replicate defined: the same rule on the fast path
    close(_bootstrap_variance(whole, n), [boot(whole[:, 0].tolist(), n)])


def test_two_resamples_are_enough_and_one_is_not() -> None:
    two = np.array([[0.2, 0.5, NAN], [0.6, NAN, NAN]])
    close(_bootstrap_variance(two, 4), [boot([0.2, 0.6], 4), NAN, NAN])
    close(_bootstrap_variance(two[:1], 4), [NAN, NAN, NAN])


def test_one_sample_has_no_bootstrap_variance() -> None:
    close(_bootstrap_variance(np.array([[0.1], [0.3], [0.7]]), 1), [NAN])


def test_a_fixed_column_has_variance_zero_or_none() -> None:
    x = np.array([[0.4, 0.5, NAN, 0.1], [0.4, 0.9, NAN, NAN], [0.4, 0.2, NAN, 0.3]])
    fixed = np.array([True, False, True, False])
    close(_bootstrap_variance(x, 5, fixed), [0.0, boot([0.5, 0.9, 0.2], 5), NAN, boot([0.1, 0.3], 5)])


def test_a_condition_leaves_out_what_is_undefined() -> None:
    """Three runs, five metrics: all defined; run 3's value undefined; replicates undefined in different rows
    of each run (rows 0 and 1 defined in one run only, row 2 in none); defined in one run only; never defined."""
    rng = np.random.default_rng(11)
    resamples, n = 30, 7
    values = [np.array([0.50, 0.30, 0.60, 0.20, NAN]), np.array([0.55, 0.35, 0.65, NAN, NAN]),
              np.array([0.70, NAN, 0.40, NAN, NAN])]
    reps = [v + rng.normal(0.0, 0.05, (resamples, 5)) for v in values]
    for run, rows in enumerate(([1, 2], [0, 2], [2, 3])):  # metric 2: row 0 only in run 0, row 1 only in run 1
        reps[run][rows, 2] = NAN
    condition = condition_replicates(list(zip(values, reps)), n)

    runs = range(len(values))
    for metric in range(5):
        kept = [r for r in runs if math.isfinite(values[r][metric])]
        thetas = [float(values[r][metric]) for r in kept]
        seeds = len(kept)
        assert condition.seeds[metric] == seeds
        mean = sum(thetas) / seeds if seeds else NAN
        seed_variance = (sum((t - mean) ** 2 for t in thetas) / (seeds - 1) / seeds) if seeds >= 2 else NAN
        seed_mean = []
        for b in range(resamples):
            defined = [float(reps[r][b, metric]) for r in kept if math.isfinite(reps[r][b, metric])]
            seed_mean.append(sum(defined) / len(defined) if defined else NAN)
        run_boots = [boot(reps[r][:, metric].tolist(), n) for r in kept]
        run_boots = [v for v in run_boots if math.isfinite(v)]
        interaction = 0.0
        if seeds >= 2:
            interaction = max(sum(run_boots) / len(run_boots) - boot(seed_mean, n), 0.0) / (seeds - 1)
        close(condition.mean[metric:metric + 1], [mean])
        close(condition.seed_variance[metric:metric + 1], [seed_variance])
        close(condition.replicates[:, metric], seed_mean)
        close(condition.interaction[metric:metric + 1], [interaction])
    assert np.isnan(condition.replicates[2, 2]) and np.isfinite(condition.replicates[:2, 2]).all()
    assert (condition.interaction[[0, 1, 2]] > 0).all()  # the interaction is reached, not clamped away


def test_a_condition_needs_a_run() -> None:
    with pytest.raises(ValueError, match="^a condition needs at least one run$"):
        condition_replicates([], 5)


def test_a_run_with_every_value_but_not_every_replicate_defined() -> None:
    """Run 1 defines its value but not its replicate in resample 0: that resample's seed mean is run 2's
    alone (not NaN); run 2 leaves no replicate out, so only run 1 takes the path for undefined replicates."""
    one = (np.array([0.4]), np.array([[NAN], [0.5], [0.3]]))
    two = (np.array([0.6]), np.array([[0.7], [0.6], [0.5]]))
    condition = condition_replicates([one, two], 4)
    close(condition.replicates[:, 0], [0.7, 0.55, 0.4])
    close(condition.interaction, [max((boot([0.5, 0.3], 4) + boot([0.7, 0.6, 0.5], 4)) / 2
                                      - boot([0.7, 0.55, 0.4], 4), 0.0)])


def test_one_run_said_to_be_alone_gives_the_condition_without_its_own_variance() -> None:
    """With ``n_runs=1`` the run's bootstrap variance (which only enters the interaction, 0 under 2 seeds) is
    not computed; every field is the same, bit for bit, and the replicates' variance is the one inference reads."""
    rng = np.random.default_rng(5)
    value = np.array([0.4, NAN, 0.2])
    reps = value + rng.normal(0.0, 0.05, (40, 3))
    reps[[3, 8], 2] = NAN
    told, untold = condition_replicates([(value, reps)], 9, n_runs=1), condition_replicates([(value, reps)], 9)
    for field in ("mean", "seeds", "seed_variance", "replicates", "interaction", "replicate_variance"):
        assert np.array_equal(getattr(told, field), getattr(untold, field), equal_nan=True), field
    assert not told.interaction.any()
    close(told.replicate_variance, [boot(reps[:, m].tolist(), 9) for m in range(3)])
