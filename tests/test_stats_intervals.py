"""The interval and its test: Student t for one component; Welch–Satterthwaite df or Banerjee's rule for several;
the p-value as the inversion of the same interval, checked against independent computations; Holm."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from aggregator.stats.intervals import METHODS, Component, combine, holm, satterthwaite_df
from tests import compare_reference as ref


@pytest.mark.parametrize("method", METHODS)
def test_one_component_is_the_student_t_interval_and_the_one_sample_t_test(method: str) -> None:
    rng = np.random.default_rng(5)
    for n in (3, 8, 50):
        for shift in (0.0, 0.2, 0.8):
            x = rng.normal(shift, 1, n)
            got = combine(np.array([x.mean()]), [Component(np.array([x.var(ddof=1) / n]), np.array([n - 1.0]))],
                          method)  # type: ignore[arg-type]
            low, high = stats.t.interval(0.95, n - 1, loc=x.mean(), scale=stats.sem(x))
            assert (got.ci_low[0], got.ci_high[0]) == pytest.approx((low, high), rel=1e-12)
            assert got.p_value[0] == pytest.approx(stats.ttest_1samp(x, 0).pvalue, rel=1e-9)


def test_banerjee_is_at_least_as_wide_as_each_component_and_at_most_their_sum() -> None:
    v = [np.array([0.01]), np.array([0.04])]
    d = [np.array([2.0]), np.array([40.0])]
    got = combine(np.array([0.3]), [Component(a, b) for a, b in zip(v, d)], "banerjee")
    widths = [stats.t.ppf(0.975, b[0]) * np.sqrt(a[0]) for a, b in zip(v, d)]
    half = got.ci_high[0] - 0.3
    assert max(widths) < half < sum(widths)
    assert half == pytest.approx(np.hypot(*widths))


def test_welch_satterthwaite_by_hand() -> None:
    # ν = (0.01 + 0.04)² / (0.01²/2 + 0.04²/40) = 0.0025 / 0.00009 = 27.78
    v, d = [np.array([0.01]), np.array([0.04])], [np.array([2.0]), np.array([40.0])]
    parts = [Component(a, b) for a, b in zip(v, d)]
    assert satterthwaite_df(parts)[0] == pytest.approx(0.0025 / 0.00009, rel=1e-12)
    got = combine(np.array([0.3]), parts)
    se = np.sqrt(0.05)
    assert got.se[0] == pytest.approx(se) and got.df[0] == pytest.approx(0.0025 / 0.00009)
    assert got.ci_high[0] - 0.3 == pytest.approx(stats.t.ppf(0.975, 0.0025 / 0.00009) * se, rel=1e-12)
    assert got.p_value[0] == pytest.approx(2 * stats.t.sf(0.3 / se, 0.0025 / 0.00009), rel=1e-12)
    narrower = combine(np.array([0.3]), parts, "banerjee")
    assert got.ci_high[0] < narrower.ci_high[0] and got.p_value[0] < narrower.p_value[0]


def test_an_unknown_method_is_refused() -> None:
    with pytest.raises(ValueError, match="welch, banerjee"):
        combine(np.array([0.3]), [Component(np.array([0.1]), np.array([3.0]))], "bonferroni")  # type: ignore[arg-type]


components = st.lists(st.tuples(st.floats(1e-6, 1.0), st.integers(1, 60)), min_size=1, max_size=3)


@settings(max_examples=150, deadline=None)
@given(components)
def test_the_satterthwaite_df_lies_between_the_smallest_and_the_sum(parts: list[tuple[float, int]]) -> None:
    df = satterthwaite_df([Component(np.array([v]), np.array([float(d)])) for v, d in parts])[0]
    assert min(d for _, d in parts) * (1 - 1e-12) <= df <= sum(d for _, d in parts) * (1 + 1e-12)


@settings(max_examples=150, deadline=None)
@given(components)
def test_welch_is_never_wider_than_banerjee(parts: list[tuple[float, int]]) -> None:
    comps = [Component(np.array([v]), np.array([float(d)])) for v, d in parts]
    welch, banerjee = (combine(np.array([0.1]), comps, m).ci_high[0] - 0.1 for m in METHODS)
    assert welch <= banerjee * (1 + 1e-12)


@settings(max_examples=150, deadline=None)
@given(st.floats(-2, 2), components, st.sampled_from(METHODS))
def test_multi_component_p_values_match_an_independent_computation(estimate: float, parts: list[tuple[float, int]],
                                                                   method: str) -> None:
    """p from scipy.stats.t (closed form for Welch, brentq on α for Banerjee) in tests/compare_reference.py."""
    got = combine(np.array([estimate]), [Component(np.array([v]), np.array([float(d)])) for v, d in parts],
                  method)  # type: ignore[arg-type]
    half, df, p = ref.interval_of(estimate, [(v, float(d)) for v, d in parts], method)
    assert got.ci_high[0] - got.estimate[0] == pytest.approx(half, rel=1e-9)
    assert got.p_value[0] == pytest.approx(p, rel=1e-8, abs=1e-300)
    if method == "welch":
        assert got.df[0] == pytest.approx(df, rel=1e-12)


@settings(max_examples=300, deadline=None)
@given(components, st.integers(1, 12), st.sampled_from([-1.0, 1.0]), st.sampled_from([-1.0, 1.0]), st.sampled_from(METHODS))
def test_the_interval_excludes_zero_exactly_when_p_is_below_005(parts: list[tuple[float, int]], digits: int,
                                                                side: float, sign: float, method: str) -> None:
    """No clamp: estimates within 10^-12 (relative) of the 95% half-width on either side, and the p-value,
    computed on its own, is below 0.05 exactly when the interval excludes 0 — before any rounding."""
    comps = [Component(np.array([v]), np.array([float(d)])) for v, d in parts]
    half = combine(np.array([1.0]), comps, method).ci_high[0] - 1.0  # type: ignore[arg-type]
    estimate = sign * half * (1 + side * 10.0**-digits)
    got = combine(np.array([estimate]), comps, method)  # type: ignore[arg-type]
    excludes = got.ci_low[0] > 0 or got.ci_high[0] < 0
    assert excludes == (side > 0)
    assert excludes == (got.p_value[0] < 0.05)
    _, _, p = ref.interval_of(estimate, [(v, float(d)) for v, d in parts], method)
    assert got.p_value[0] == pytest.approx(p, rel=1e-8)  # the test's own p, not one moved to the interval's side
    assert got.ci_low[0] <= estimate <= got.ci_high[0]
    assert 0 < got.p_value[0] <= 1


@pytest.mark.parametrize("method", METHODS)
def test_p_falls_as_the_estimate_moves_away_from_zero(method: str) -> None:
    estimates = np.linspace(0, 1, 30)
    parts = [Component(np.full(30, 0.02), np.full(30, 2.0)), Component(np.full(30, 0.01), np.full(30, 49.0))]
    p = combine(estimates, parts, method).p_value  # type: ignore[arg-type]
    assert p[0] == 1.0 and np.all(np.diff(p) < 0)


def test_no_variance_and_undefined_estimates() -> None:
    parts = [Component(np.zeros(3), np.full(3, 4.0))]
    got = combine(np.array([0.0, 0.5, np.nan]), parts)
    assert got.ci_low[:2].tolist() == [0.0, 0.5] and got.ci_high[:2].tolist() == [0.0, 0.5]
    assert got.p_value[:2].tolist() == [1.0, 0.0]
    assert np.isnan(got.ci_low[2]) and np.isnan(got.p_value[2])


def test_absent_components_are_left_out() -> None:
    with_nan = combine(np.array([0.1]), [Component(np.array([np.nan]), np.array([0.0])),
                                         Component(np.array([0.01]), np.array([9.0]))])
    alone = combine(np.array([0.1]), [Component(np.array([0.01]), np.array([9.0]))])
    assert with_nan.p_value[0] == alone.p_value[0] and with_nan.ci_low[0] == alone.ci_low[0]


@pytest.mark.parametrize("method", METHODS)
def test_rows_are_independent_and_degenerate_rows_raise_no_warning(method: str) -> None:
    """Each row is the interval it would be alone; zero, NaN and infinite parts warn nothing on the way."""
    estimates = np.array([0.3, -0.2, 0.0, np.nan, 0.5, 1e-300, 0.0, 100.0])  # the last: t = 10^5 on 40 df, p < 1e-150
    parts = [Component(np.array([0.01, 0.0, 0.02, 0.01, np.nan, 1e-12, 0.0, 1e-6]),
                       np.array([2.0, 4.0, 2.0, 2.0, 3.0, 1.0, 2.0, 40.0])),
             Component(np.array([0.04, 0.0, np.inf, 0.03, 0.0, 0.0, 0.0, 0.0]),
                       np.array([40.0, 9.0, 9.0, np.nan, 9.0, 0.0, 3.0, 1.0]))]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        together = combine(estimates, parts, method)  # type: ignore[arg-type]
        for row in range(len(estimates)):
            alone = combine(estimates[row:row + 1], [Component(c.variance[row:row + 1], c.df[row:row + 1]) for c in parts],
                            method)  # type: ignore[arg-type]
            for field in ("estimate", "se", "ci_low", "ci_high", "p_value", "df"):
                assert getattr(together, field)[row] == pytest.approx(getattr(alone, field)[0], nan_ok=True), (row, field)
    assert together.ci_low[1] == together.ci_high[1] == -0.2 and together.p_value[1] == 0.0  # no variance
    assert np.isnan(together.df[1]) and together.p_value[2] == 1.0  # no variance: no df; Δ = 0: p 1
    assert all(np.isnan(getattr(together, f)[3]) for f in ("se", "ci_low", "ci_high", "p_value", "df"))
    assert together.p_value[6] == 1.0 and together.p_value[7] < 1e-150
    if method == "banerjee":
        assert together.df.dtype == np.float64 and np.isnan(together.df).all()  # one df per component, none overall


def test_satterthwaite_df_of_degenerate_components_warns_nothing() -> None:
    """No component (NaN), a zero df (ν of that component: 0) and a zero variance, called on its own."""
    parts = [Component(np.array([0.0, 0.01, 0.0, 0.01, 0.0]), np.array([3.0, 0.0, np.nan, np.nan, 0.0])),
             Component(np.array([0.0, 0.0, 0.02, 0.02, 0.02]), np.array([5.0, 5.0, 4.0, 4.0, 4.0]))]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        df = satterthwaite_df(parts)
        got = combine(np.array([0.3] * 5), parts)
    # a component without df (NaN) or without variance (0, even with 0 df) is absent: rows 2–4 are the second alone
    assert np.isnan(df[0]) and df[1] == 0.0 and df[2:].tolist() == pytest.approx([4.0, 4.0, 4.0])
    assert got.se[2:].tolist() == pytest.approx([np.sqrt(0.02)] * 3)


def test_no_components_and_whole_numbers() -> None:
    got = combine(np.array([0, 3, np.nan]), [])
    assert got.estimate.dtype == np.float64 and got.se[:2].tolist() == [0.0, 0.0] and np.isnan(got.se[2])
    assert got.ci_low[:2].tolist() == got.ci_high[:2].tolist() == [0.0, 3.0] and got.p_value[:2].tolist() == [1.0, 0.0]
    assert np.isnan(got.df).all() and np.isnan(got.p_value[2])
    whole = combine(np.array([1]), [Component(np.array([1]), np.array([4]))])
    assert whole.estimate.dtype == np.float64
    assert whole.ci_high[0] == pytest.approx(1 + stats.t.ppf(0.975, 4))


def test_holm_by_hand() -> None:
    # sorted: 0.005 x4 = 0.02; 0.01 x3 = 0.03; 0.03 x2 = 0.06; 0.04 x1 = 0.04 -> max so far 0.06
    got = holm(np.array([0.01, 0.04, 0.03, 0.005, np.nan]))
    assert got[:4] == pytest.approx([0.03, 0.06, 0.06, 0.02]) and np.isnan(got[4])
    assert holm(np.array([0.5, 0.9])).tolist() == [1.0, 1.0]
    assert holm(np.array([0.6, 0.7])).tolist() == [1.0, 1.0]  # 2 × 0.6 = 1.2 is capped at 1
    assert holm(np.array([0.3])).tolist() == [0.3]
    assert holm([0.01, 0.6]).tolist() == pytest.approx([0.02, 0.6])  # type: ignore[arg-type]
    assert np.isnan(holm(np.array([np.nan]))).all()
