"""Paired bootstrap CI and sign-flip permutation test over per-sample differences."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from aggregator.compare.stats import paired_tests

RESAMPLES = 300
scores = arrays(np.float64, st.tuples(st.integers(1, 40), st.integers(1, 4)),
                elements=st.floats(0, 1, allow_nan=False, width=32))


@settings(max_examples=40, deadline=None)
@given(scores, st.integers(0, 2**32))
def test_a_condition_against_itself_is_exactly_zero_and_p_one(a: np.ndarray, seed: int) -> None:
    tests = paired_tests(a - a, resamples=RESAMPLES, seed=seed)
    assert tests.delta.tolist() == [0.0] * a.shape[1]
    assert tests.ci_low.tolist() == [0.0] * a.shape[1]
    assert tests.ci_high.tolist() == [0.0] * a.shape[1]
    assert tests.p_value.tolist() == [1.0] * a.shape[1]


@settings(max_examples=40, deadline=None)
@given(scores, scores, st.integers(0, 2**32))
def test_bounds_and_symmetry(a: np.ndarray, b: np.ndarray, seed: int) -> None:
    n, k = min(len(a), len(b)), min(a.shape[1], b.shape[1])
    diffs = b[:n, :k] - a[:n, :k]
    tests = paired_tests(diffs, resamples=RESAMPLES, seed=seed)
    assert np.all(tests.p_value >= 1 / (RESAMPLES + 1)) and np.all(tests.p_value <= 1)
    assert np.all(tests.ci_low <= tests.ci_high)
    assert np.all(tests.ci_low >= diffs.min(axis=0) - 1e-12) and np.all(tests.ci_high <= diffs.max(axis=0) + 1e-12)
    np.testing.assert_allclose(tests.delta, diffs.mean(axis=0), rtol=0, atol=1e-15)
    swapped = paired_tests(-diffs, resamples=RESAMPLES, seed=seed)
    assert swapped.p_value.tolist() == tests.p_value.tolist()
    np.testing.assert_allclose(swapped.ci_low, -tests.ci_high, atol=1e-12)


def test_columns_are_independent_of_their_neighbours() -> None:
    rng = np.random.default_rng(1)
    diffs = rng.normal(0.1, 1, size=(60, 3))
    alone = paired_tests(diffs[:, [1]], resamples=500, seed=3)
    together = paired_tests(diffs, resamples=500, seed=3)
    assert alone.p_value[0] == together.p_value[1]
    assert alone.ci_low[0] == pytest.approx(together.ci_low[1], abs=1e-14)


def test_sign_flip_p_value_approaches_the_exact_value() -> None:
    # Sign flips of (1, 2, 3): |mean| >= 2 only for all + or all -, so the exact p is 2/8.
    tests = paired_tests(np.array([[1.0], [2.0], [3.0]]), resamples=20_000, seed=0)
    assert tests.p_value[0] == pytest.approx(0.25, abs=0.015)


def test_bootstrap_ci_of_a_clear_shift_excludes_zero_and_p_is_small() -> None:
    rng = np.random.default_rng(7)
    tests = paired_tests(rng.normal(0.5, 0.2, size=(200, 1)), resamples=2000, seed=0)
    assert 0 < tests.ci_low[0] < tests.delta[0] < tests.ci_high[0]
    assert tests.p_value[0] == 1 / 2001


def test_ci_coverage_and_null_rejection_rate_are_calibrated() -> None:
    rng = np.random.default_rng(11)
    datasets = 200
    shifted = rng.normal(0.3, 1, size=(50, datasets))
    covered = paired_tests(shifted, resamples=1000, seed=1)
    coverage = np.mean((covered.ci_low <= 0.3) & (0.3 <= covered.ci_high))
    null = paired_tests(rng.normal(0, 1, size=(50, datasets)), resamples=1000, seed=2)
    rejected = np.mean(null.p_value < 0.05)
    assert 0.88 <= coverage <= 0.99
    assert 0.01 <= rejected <= 0.11


def test_same_seed_same_numbers_other_seed_other_numbers() -> None:
    diffs = np.random.default_rng(2).normal(0, 1, size=(30, 2))
    first, again = paired_tests(diffs, resamples=400, seed=5), paired_tests(diffs, resamples=400, seed=5)
    other = paired_tests(diffs, resamples=400, seed=6)
    assert first.ci_low.tolist() == again.ci_low.tolist() and first.p_value.tolist() == again.p_value.tolist()
    assert first.ci_low.tolist() != other.ci_low.tolist()


def test_no_samples_gives_nan() -> None:
    tests = paired_tests(np.empty((0, 2)), resamples=10, seed=0)
    assert np.isnan(tests.delta).all() and np.isnan(tests.p_value).all()
