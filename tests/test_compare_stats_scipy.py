"""The hand-vectorised paired statistics agree with scipy.stats on the same data.

Ours draws resamples once and shares them across all columns (matrix products), which
scipy's per-call API cannot; these tests pin the results to scipy's within Monte Carlo error.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from aggregator.compare.stats import paired_tests


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_sign_flip_p_matches_scipys_exact_paired_permutation_test(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a, b = rng.random(10), rng.random(10) + 0.15
    exact = stats.permutation_test(
        (b, a), lambda x, y: np.mean(x - y), permutation_type="samples", alternative="two-sided"
    ).pvalue  # 2**10 sign patterns: scipy enumerates them all
    ours = paired_tests((b - a)[:, None], resamples=20_000, seed=seed).p_value[0]
    assert ours == pytest.approx(exact, abs=0.015)


@pytest.mark.parametrize("seed", [4, 5])
def test_bootstrap_ci_matches_scipys_percentile_bootstrap(seed: int) -> None:
    rng = np.random.default_rng(seed)
    diffs = rng.normal(0.05, 0.3, 400)
    theirs = stats.bootstrap((diffs,), np.mean, n_resamples=20_000, method="percentile",
                             confidence_level=0.95, random_state=seed).confidence_interval
    ours = paired_tests(diffs[:, None], resamples=20_000, seed=seed)
    assert ours.ci_low[0] == pytest.approx(theirs.low, abs=0.004)
    assert ours.ci_high[0] == pytest.approx(theirs.high, abs=0.004)
