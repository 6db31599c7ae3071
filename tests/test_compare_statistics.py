"""The comparison's variance components, pairing, degrees of freedom and p-values, worked by hand.

Every expected number is computed here from the definitions in docs/compare.md ("How the intervals
and p-values are made"), by literal arithmetic or by the plain second implementation of
tests/compare_reference.py (no code shared with aggregator.stats), never read from the tool.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from aggregator.stats.components import ConditionReplicates, Inference, condition_replicates, contrast_inference, mean_inference
from tests import compare_reference as ref

# n = 3 samples, 4 resamples (draw counts, each row sums to n), A: 2 seeds, B: 3 seeds; metric: the mean.
DRAWS = np.array([[1, 1, 1], [2, 1, 0], [0, 1, 2], [1, 0, 2]], dtype=float)
A = [np.array([0.2, 0.5, 0.8]), np.array([0.4, 0.6, 0.8])]
B = [np.array([0.3, 0.6, 0.9]), np.array([0.5, 0.7, 0.9]), np.array([0.6, 0.8, 1.0])]


def replicates(values: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """The mean of ``values`` on each resample: Σ_i w_i x_i / n."""
    return draws @ values / draws.shape[1]


def tool(runs: list[np.ndarray], draws: np.ndarray) -> ConditionReplicates:
    """The tool's reduction of a condition, fed the per-run values and replicates of one metric."""
    return condition_replicates(((np.array([x.mean()]), replicates(x, draws)[:, None]) for x in runs), draws.shape[1])


def as_data(runs: list[np.ndarray]) -> list[np.ndarray]:
    return [x[:, None] for x in runs]


def check(got: Inference, want: ref.Reference, rel: float = 1e-9) -> None:
    interval = got.interval
    assert interval.estimate[0] == pytest.approx(want.estimate, rel=rel, abs=1e-15)
    assert interval.se[0] == pytest.approx(want.se, rel=rel)
    assert interval.ci_low[0] == pytest.approx(want.ci_low, rel=rel, abs=1e-12)
    assert interval.ci_high[0] == pytest.approx(want.ci_high, rel=rel, abs=1e-12)
    assert interval.p_value[0] == pytest.approx(want.p_value, rel=max(rel, 1e-9), abs=1e-300)
    if np.isfinite(want.df):
        assert interval.df[0] == pytest.approx(want.df, rel=rel)
    assert got.seed_share[0] == pytest.approx(want.seed_share, rel=rel, abs=1e-12)


def test_the_hand_worked_contrast() -> None:
    a, b = tool(A, DRAWS), tool(B, DRAWS)
    # θ_A = 0.5, 0.6; θ_B = 0.6, 0.7, 0.8: Δ = 0.7 − 0.55 = 0.15
    assert a.mean[0] == pytest.approx(0.55) and b.mean[0] == pytest.approx(0.7)
    # seed components: var(ddof 1) / S = 0.005 / 2 and 0.01 / 3
    assert a.seed_variance[0] == pytest.approx(0.0025) and b.seed_variance[0] == pytest.approx(0.01 / 3)
    # seed-mean replicates, e.g. resample 2 (counts 2, 1, 0): A (0.9/3 + 1.4/3)/2, B (1.2 + 1.7 + 2.0)/9
    assert a.replicates[:, 0] == pytest.approx([0.55, 2.3 / 6, 4.3 / 6, 3.8 / 6])
    assert b.replicates[:, 0] == pytest.approx([0.7, 4.9 / 9, 7.7 / 9, 7.0 / 9])
    # paired differences b − a per resample: [0.15, 29/180, 25/180, 26/180]
    differences = np.array([0.15, 29 / 180, 25 / 180, 26 / 180])
    boot = np.var(differences, ddof=1) * 3 / 2  # times n/(n − 1)
    # interactions: (mean over runs of the run's bootstrap variance − that of the seed mean) / (S − 1)
    run_boot_a = np.mean([np.var(replicates(x, DRAWS), ddof=1) * 1.5 for x in A])
    interaction_a = max(run_boot_a - np.var(a.replicates[:, 0], ddof=1) * 1.5, 0.0)
    run_boot_b = np.mean([np.var(replicates(x, DRAWS), ddof=1) * 1.5 for x in B])
    interaction_b = max(run_boot_b - np.var(b.replicates[:, 0], ddof=1) * 1.5, 0.0) / 2
    assert a.interaction[0] == pytest.approx(interaction_a) and b.interaction[0] == pytest.approx(interaction_b)
    sample = max(boot - interaction_a - interaction_b, 0.0)
    variances = [0.0025, 0.01 / 3, sample]
    df = sum(variances) ** 2 / (0.0025**2 / 1 + (0.01 / 3) ** 2 / 2 + sample**2 / 2)
    se = np.sqrt(sum(variances))
    got = contrast_inference(a, b)
    assert got.interval.estimate[0] == pytest.approx(0.15)
    assert got.interval.se[0] == pytest.approx(se)
    assert got.interval.df[0] == pytest.approx(df)
    half = stats.t.ppf(0.975, df) * se
    assert (got.interval.ci_low[0], got.interval.ci_high[0]) == pytest.approx((0.15 - half, 0.15 + half))
    assert got.interval.p_value[0] == pytest.approx(2 * stats.t.sf(0.15 / se, df), rel=1e-9)
    assert got.seed_share[0] == pytest.approx((0.0025 + 0.01 / 3) / sum(variances))
    check(got, ref.contrast(as_data(A), as_data(B), DRAWS, "welch"))
    banerjee = contrast_inference(a, b, "banerjee")
    assert banerjee.interval.ci_high[0] - 0.15 == pytest.approx(np.sqrt(
        stats.t.ppf(0.975, 1) ** 2 * 0.0025 + stats.t.ppf(0.975, 2) ** 2 * 0.01 / 3 + stats.t.ppf(0.975, 2) ** 2 * sample))
    check(banerjee, ref.contrast(as_data(A), as_data(B), DRAWS, "banerjee"))


def every_draw(n: int) -> np.ndarray:
    """All n^n ordered draws of n samples as count rows: the exact bootstrap distribution."""
    return np.array([np.bincount(i, minlength=n) for i in itertools.product(range(n), repeat=n)], dtype=float)


def test_the_sample_component_is_s2_over_n_under_the_exact_bootstrap() -> None:
    """Over all n^n draws, var*(mean*) = s²(ddof 0)/n, so times n/(n − 1) it is s²(ddof 1)/n (the R/(R − 1)
    of the replicates' ddof 1 aside): one seed against one seed is the paired t interval."""
    draws = every_draw(4)
    a, b = np.array([0.1, 0.4, 0.4, 0.9]), np.array([0.3, 0.3, 0.7, 1.0])
    got = contrast_inference(tool([a], draws), tool([b], draws))
    d = b - a
    r = draws.shape[0]
    assert got.interval.se[0] ** 2 == pytest.approx(np.var(d, ddof=1) / 4 * r / (r - 1), rel=1e-12)
    assert got.interval.df[0] == 3.0  # one component: n − 1
    assert got.seed_share[0] == 0.0  # no seed component
    t = d.mean() / got.interval.se[0]
    assert got.interval.p_value[0] == pytest.approx(2 * stats.t.sf(t, 3), rel=1e-12)
    # without the n/(n − 1) the variance would be 3/4 of this; unpaired, it would hold both samples' spread
    assert got.interval.se[0] ** 2 < (np.var(a, ddof=1) + np.var(b, ddof=1)) / 4


def test_the_interaction_under_the_exact_bootstrap() -> None:
    """For a mean over all n^n draws: I = (mean_r s_r² − s²(per-sample mean over runs)) / (n (S − 1)) · R/(R − 1)."""
    draws = every_draw(4)
    runs = [np.array([0.1, 0.4, 0.4, 0.9]), np.array([0.2, 0.2, 0.5, 0.9]), np.array([0.0, 0.5, 0.6, 0.7])]
    got = tool(runs, draws)
    r = draws.shape[0]
    spread = np.mean([np.var(x, ddof=1) for x in runs]) - np.var(np.mean(runs, axis=0), ddof=1)
    assert got.interaction[0] == pytest.approx(spread / (4 * 2) * r / (r - 1), rel=1e-12)
    mean = mean_inference(got)
    seed = np.var([x.mean() for x in runs], ddof=1) / 3
    sample = np.var(np.mean(runs, axis=0), ddof=1) / 4 * r / (r - 1) - got.interaction[0]
    assert mean.interval.se[0] ** 2 == pytest.approx(seed + sample, rel=1e-12)
    check(mean, ref.condition_mean(as_data(runs), draws, "banerjee"))


def test_a_shift_of_every_sample_is_paired_away() -> None:
    """B = A + 0.1 on every sample of every run: Δ = 0.1, and every paired replicate difference is
    0.1, so the sample component is 0 and the variance is the seeds' alone (ν = 2 (S − 1))."""
    rng = np.random.default_rng(1)
    runs = [rng.random(12) for _ in range(3)]
    draws = rng.multinomial(12, np.full(12, 1 / 12), size=300).astype(float)
    a, b = tool(runs, draws), tool([x + 0.1 for x in runs], draws)
    got = contrast_inference(a, b)
    seed = np.var([x.mean() for x in runs], ddof=1) / 3
    assert got.interval.estimate[0] == pytest.approx(0.1)
    assert got.interval.se[0] ** 2 == pytest.approx(2 * seed, rel=1e-9)
    assert got.interval.df[0] == pytest.approx(4.0)
    assert got.seed_share[0] == pytest.approx(1.0)
    check(got, ref.contrast(as_data(runs), as_data([x + 0.1 for x in runs]), draws, "welch"))


def test_a_condition_against_itself_on_the_general_path() -> None:
    """The same runs on both sides: Δ exactly 0 and p 1; the paired sample component is exactly 0; the
    interval is the seeds' alone, ±t(2 (S − 1)) · sqrt(2 v_seed)."""
    rng = np.random.default_rng(2)
    runs = [rng.random(10) for _ in range(4)]
    draws = rng.multinomial(10, np.full(10, 0.1), size=200).astype(float)
    a = tool(runs, draws)
    got = contrast_inference(a, a)
    seed = np.var([x.mean() for x in runs], ddof=1) / 4
    assert got.interval.estimate[0] == 0.0 and got.interval.p_value[0] == 1.0
    assert got.interval.se[0] ** 2 == pytest.approx(2 * seed, rel=1e-12)
    assert got.interval.df[0] == pytest.approx(6.0)
    assert got.interval.ci_high[0] == pytest.approx(stats.t.ppf(0.975, 6) * np.sqrt(2 * seed), rel=1e-12)
    assert got.interval.ci_low[0] == -got.interval.ci_high[0]


def test_one_sample_changed_gives_a_known_delta_and_se() -> None:
    """B is A with sample 7 of run 0 raised by d: Δ = d / (n S) exactly; the SE follows the definitions."""
    rng = np.random.default_rng(3)
    n, d = 20, 0.3
    runs = [rng.random(n) for _ in range(3)]
    changed = [x.copy() for x in runs]
    changed[0][7] += d
    draws = rng.multinomial(n, np.full(n, 1 / n), size=500).astype(float)
    a, b = tool(runs, draws), tool(changed, draws)
    got = contrast_inference(a, b)
    assert got.interval.estimate[0] == pytest.approx(d / (n * 3), rel=1e-12)
    # the paired replicate differences are d·w_7 / (n S): their variance is (d / (n S))² var(w_7)
    w7 = draws[:, 7]
    assert np.var(b.replicates[:, 0] - a.replicates[:, 0], ddof=1) == pytest.approx(
        (d / (n * 3)) ** 2 * np.var(w7, ddof=1), rel=1e-9)
    want = ref.contrast(as_data(runs), as_data(changed), draws, "welch")
    check(got, want)
    check(contrast_inference(a, b, "banerjee"), ref.contrast(as_data(runs), as_data(changed), draws, "banerjee"))
    check(mean_inference(b), ref.condition_mean(as_data(changed), draws, "banerjee"))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.integers(1, 4), st.integers(5, 15), st.sampled_from(["welch", "banerjee"]),
       st.floats(0.0, 0.3), st.floats(0.0, 0.2), st.integers(0, 2**32 - 1))
def test_random_contrasts_match_the_reference(seeds_a: int, seeds_b: int, n: int, method: str, seed_sd: float,
                                              shift: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    samples = rng.gamma(0.5, 0.2, n)
    a = [samples + rng.normal(0, seed_sd) + rng.exponential(0.1, n) for _ in range(seeds_a)]
    b = [samples + shift + rng.normal(0, seed_sd) + rng.exponential(0.1, n) for _ in range(seeds_b)]
    draws = rng.multinomial(n, np.full(n, 1 / n), size=150).astype(float)
    got = contrast_inference(tool(a, draws), tool(b, draws), method)  # type: ignore[arg-type]
    check(got, ref.contrast(as_data(a), as_data(b), draws, method), rel=1e-7)
    check(mean_inference(tool(b, draws)), ref.condition_mean(as_data(b), draws, "banerjee"), rel=1e-7)


def ratio_replicates(data: np.ndarray, draws: np.ndarray) -> np.ndarray:
    """Σ w·y / Σ w·z per resample; NaN where no eligible sample is drawn."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return (draws @ data[:, 0]) / (draws @ data[:, 1])


def test_a_ratio_whose_resamples_are_sometimes_undefined() -> None:
    """A rate over 2 eligible samples of 8 (the same in every run): resamples drawing neither are
    undefined and left out of every variance, as docs/compare.md says; the rest follows the definitions."""
    rng = np.random.default_rng(4)
    eligible = np.array([1, 0, 0, 1, 0, 0, 0, 0], dtype=float)
    runs = {c: [np.column_stack([eligible * (rng.random(8) < p), eligible]) for _ in range(seeds)]
            for c, p, seeds in (("a", 0.4, 3), ("b", 0.7, 4))}
    draws = rng.multinomial(8, np.full(8, 1 / 8), size=400).astype(float)
    undefined = (draws @ eligible) == 0
    assert 0 < undefined.sum() < 400  # about (6/8)^8 = 10% of the resamples

    def reduce(condition: str) -> ConditionReplicates:
        return condition_replicates(((np.array([ref.ratio_of_sums(x, np.ones(8))]), ratio_replicates(x, draws)[:, None])
                                     for x in runs[condition]), 8)

    a, b = reduce("a"), reduce("b")
    assert np.isnan(a.replicates[undefined, 0]).all() and np.isfinite(a.replicates[~undefined, 0]).all()
    for method in ("welch", "banerjee"):
        check(contrast_inference(a, b, method), ref.contrast(runs["a"], runs["b"], draws, method, ref.ratio_of_sums))
    check(mean_inference(b), ref.condition_mean(runs["b"], draws, "banerjee", ref.ratio_of_sums))
    assert contrast_inference(a, b).resamples_defined[0] == 400 - undefined.sum()


@pytest.mark.parametrize(("draws", "values"), [
    (np.array([[2.0, 0.0], [0.0, 2.0]]), np.array([0.1, 0.5])),
    (np.array([[3.0, 0.0, 0.0], [0.0, 1.0, 2.0]]), np.array([0.1, 0.5, 0.9])),
])
def test_few_samples_and_two_resamples(draws: np.ndarray, values: np.ndarray) -> None:
    """n = 2 or 3 samples (n/(n − 1) = 2 or 1.5) and exactly two resamples still give a sample component.
    The seeds differ by a constant (no interaction), B adds a per-sample effect."""
    n = len(values)
    runs = [values, values + 0.1]
    shifted = [x + np.array([0.0, 0.3, 0.1][:n]) for x in runs]
    a, b = tool(runs, draws), tool(shifted, draws)
    assert a.interaction[0] == pytest.approx(0.0, abs=1e-15)
    check(contrast_inference(a, b), ref.contrast(as_data(runs), as_data(shifted), draws, "welch"))
    differences = replicates(shifted[0], draws) - replicates(runs[0], draws)
    sample = np.var(differences, ddof=1) * n / (n - 1)
    assert sample > 0
    assert contrast_inference(a, b).interval.se[0] ** 2 == pytest.approx(a.seed_variance[0] + b.seed_variance[0] + sample)


def test_one_sample_has_no_sample_component() -> None:
    """n = 1: the bootstrap cannot vary (and n/(n − 1) is undefined): the interval is the seeds' alone."""
    draws = np.ones((5, 1))
    runs, other = [np.array([0.2]), np.array([0.4])], [np.array([0.5]), np.array([0.9]), np.array([0.7])]
    got = contrast_inference(tool(runs, draws), tool(other, draws))
    seeds = np.var([0.2, 0.4], ddof=1) / 2 + np.var([0.5, 0.9, 0.7], ddof=1) / 3
    assert got.interval.se[0] == pytest.approx(np.sqrt(seeds)) and got.seed_share[0] == 1.0


def test_the_seed_mean_variance_keeps_its_digits_far_from_zero() -> None:
    """Replicates near 10^8 that differ by 10^-3: the variance is that of the spread, not of the rounding."""
    rng = np.random.default_rng(6)
    spread = rng.normal(0, 1e-3, (300, 1))
    condition = condition_replicates([(np.array([1e8]), 1e8 + spread)], 10)
    mean = mean_inference(condition)
    assert mean.interval.se[0] ** 2 == pytest.approx(np.var(1e8 + spread, ddof=1) * 10 / 9, rel=1e-4)


def test_a_contrast_needs_the_same_samples() -> None:
    a = tool([np.array([0.1, 0.2])], np.array([[1.0, 1.0]]))
    b = tool([np.array([0.1, 0.2, 0.3])], np.array([[1.0, 1.0, 1.0]]))
    with pytest.raises(ValueError, match="a contrast pairs the same samples: 2 and 3"):
        contrast_inference(a, b)
