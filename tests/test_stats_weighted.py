"""Registry metrics as functions of weighted sums: every replicate equals the metric on the drawn rows."""

from __future__ import annotations

import math
import warnings

import numpy as np
import polars as pl
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from aggregator.metrics.registry import Metric, Registry
from aggregator.metrics.structural import STRUCTURAL
from aggregator.run.pipeline import evaluate_run
from aggregator.stats import compile as compile_module
from aggregator.stats.bootstrap import (
    ProductCache,
    SampleColumns,
    draw_counts,
    iter_draws,
    percentile_interval,
    replicate_values,
    replicates_and_fixed,
    weighted_sums,
)
from aggregator.stats.compile import _same, compile_metrics
from aggregator.stats.leaves import Leaf, NotResampled, Rewriter, _row_expr
from aggregator.stats.sums import ColumnSums, Rounding, leaf_spread, spread_rounding
from tests.conftest import RUNS


@pytest.fixture(scope="module")
def table() -> pl.DataFrame:
    return evaluate_run(RUNS / "cr_n50_m2_v2__seed42").table


def same(expected: object, got: float, tolerance: float) -> bool:
    if expected is None:
        return bool(np.isnan(got))
    return abs(float(expected) - got) <= tolerance * max(1.0, abs(float(expected)))  # type: ignore[arg-type]


def test_every_metric_but_the_run_level_ones_is_resampled(table: pl.DataFrame) -> None:
    weighted = compile_metrics(STRUCTURAL, table)
    run_level = {m.name for m in STRUCTURAL if m.run_level is not None}
    assert set(weighted.not_resampled) == run_level
    assert set(weighted.names) | run_level == set(STRUCTURAL.names)


@pytest.mark.parametrize(("precise", "tolerance"), [(True, 1e-9), (False, 1e-5)])
def test_each_replicate_is_the_registry_on_the_drawn_rows(table: pl.DataFrame, precise: bool, tolerance: float) -> None:
    """Summed in float64 the replicates are the registry's values (to rounding); in float32, the
    default, within 1e-5."""
    weighted = compile_metrics(STRUCTURAL, table)
    n = table.height
    draws = draw_counts(n, 6, seed=11)
    replicates = weighted.evaluate(weighted_sums(draws, weighted.sample_matrix(table), np.asarray(precise)))
    for b in range(draws.shape[0]):
        rows = np.repeat(np.arange(n), draws[b].astype(np.int64))
        expected = STRUCTURAL.compute(table[rows])
        bad = [m for k, m in enumerate(weighted.names) if not same(expected[m], replicates[b, k], tolerance)]
        assert not bad, bad


def test_draws_depend_only_on_n_resamples_and_seed() -> None:
    first = draw_counts(30, 250, seed=4)
    assert first.shape == (250, 30) and (first.sum(axis=1) == 30).all()
    assert np.array_equal(first, draw_counts(30, 250, seed=4))
    assert not np.array_equal(first, draw_counts(30, 250, seed=5))


def test_no_resamples_draw_an_empty_float32_matrix() -> None:
    empty = draw_counts(30, 0, seed=4)
    assert empty.shape == (0, 30) and empty.dtype == np.float32
    assert draw_counts(30, 3, seed=4).dtype == np.float32


def test_percentile_interval_is_numpys_linear_quantiles_of_the_defined_replicates() -> None:
    """Column 0: 1..5, quantile q at position 4q: 0.25 → 2, 0.75 → 4 (level 0.5); 0.025 → 1.1, 0.975 → 4.9
    (0.95). Column 1: the finite 10, 20, 30 only, position 2q: 0.25 → 15, 0.75 → 25. Column 2: none defined,
    blank. No replicate: blank. Nothing is said on the terminal (numpy warns about an all-NaN column)."""
    nan, inf = float("nan"), float("inf")
    replicates = np.array([[1, nan, nan], [2, 10, nan], [3, inf, inf], [4, 20, nan], [5, 30, -inf]], dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        low, high = percentile_interval(replicates, 0.5)
        assert np.array_equal(low, [2, 15, nan], equal_nan=True) and np.array_equal(high, [4, 25, nan], equal_nan=True)
        low, high = percentile_interval(replicates)
        assert np.allclose(low, [1.1, 10.5, nan], equal_nan=True)
        assert np.allclose(high, [4.9, 29.5, nan], equal_nan=True)
        low, high = percentile_interval(np.zeros((0, 2)))
    assert low.shape == high.shape == (2,) and np.isnan(low).all() and np.isnan(high).all()


@pytest.mark.parametrize("n", [0, 1])
def test_sums_of_no_sample_or_one_sample(n: int) -> None:
    """No sample: every sum is 0. One sample, drawn once in each resample: every sum is its value."""
    matrix = np.array([[2.5, 4.0, 7.0]])[:n]
    draws = np.ones((2, n), dtype=np.float32)
    expected = np.repeat(matrix, 2, axis=0) if n else np.zeros((2, 3))
    for columns in (SampleColumns([matrix], None), SampleColumns.of_columns(iter(matrix.T), 3, n)):
        sums = columns.sums(draws)[0]
        assert sums.rows == 2 and np.array_equal(sums.dense(), expected)
    assert np.array_equal(weighted_sums(draws, matrix).dense(), expected)


def test_float32_sums_are_exact_for_integers_and_keep_the_spread_of_other_columns() -> None:
    """Integer columns are summed exactly: 1,000 counts below 16,000 (n·max < 2**24), where sums centred on
    their mean would be off by up to 0.5. Other columns are centred on their own mean first, so 10⁶ + 0.1 and
    0.1 keep their decimals (uncentred, float32 holds 10⁶ + 0.125; centred on the mean of both columns, 0.1 is
    5·10⁵ from it)."""
    counts = np.random.default_rng(0).integers(0, 16_000, 1000).astype(np.float64)[:, None]
    draws = draw_counts(1000, 20, seed=1)
    assert np.array_equal(weighted_sums(draws, counts).dense(), draws.astype(np.float64) @ counts)
    matrix = np.array([[1e6 + 0.1, 0.1], [1e6 + 0.2, 0.2], [1e6 + 0.4, 0.4]])
    draws = np.array([[0, 0, 3], [3, 0, 0], [1, 1, 1]], dtype=np.float32)
    assert np.allclose(weighted_sums(draws, matrix).dense(), draws.astype(np.float64) @ matrix, rtol=0.0, atol=1e-6)


def test_reused_blocks_hold_the_draws_of_fresh_ones() -> None:
    """6,000 samples: blocks of 833 resamples, so 900 resamples come in two blocks (the second one shorter)."""
    fresh = list(iter_draws(6000, 900, 2))
    reused = [block.copy() for block in iter_draws(6000, 900, 2, reuse=True)]
    assert [b.shape for b in reused] == [(833, 6000), (67, 6000)]
    assert all(a.dtype == np.float32 and np.array_equal(a, b) for a, b in zip(reused, fresh, strict=True))


def test_no_resample_has_no_sums() -> None:
    matrix = np.array([[1.0, 5.0], [2.0, 5.0], [4.0, 5.0]])
    for columns in (SampleColumns([matrix], None), SampleColumns.of_columns(iter(matrix.T), 2, 3)):
        assert columns.sums(np.zeros((0, 3), dtype=np.float32))[0].dense().shape == (0, 2)


def test_a_column_whose_product_is_cached_is_not_multiplied_again() -> None:
    """The cache holds products with one draw matrix: asked again with other draws, it gives the first ones
    (draws 3·1 = 3 and 1·2 + 2·4 = 10), which shows that it was used."""
    matrix = np.array([[1.0], [2.0], [4.0]])
    draws, other = (np.array(d, dtype=np.float32) for d in ([[3, 0, 0], [0, 1, 2]], [[1, 1, 1], [0, 0, 3]]))
    cache = ProductCache()
    assert np.array_equal(weighted_sums(draws, matrix, cache=cache).dense(), [[3.0], [10.0]])
    assert np.array_equal(weighted_sums(other, matrix, cache=cache).dense(), [[3.0], [10.0]])
    assert np.array_equal(weighted_sums(other, matrix).dense(), [[7.0], [12.0]])
    wide = np.array([[1.0, 0.5], [2.0, 0.25], [4.0, 2.0]])  # columns given one by one, the first one cached
    cache = ProductCache()
    weighted_sums(draws, matrix, np.array(True), cache)
    got = SampleColumns.of_columns(iter(wide.T), 2, 3).sums(draws, cache)[0].dense()
    assert np.array_equal(got, [[3.0, 1.5], [10.0, 4.25]])
    frame = pl.DataFrame({"x": [1, 2, 4], "n_gold": 1})
    weighted = compile_metrics(_registry(("sum", pl.col("x").sum())), frame)
    cache = ProductCache()
    assert replicate_values(weighted, draws, weighted.sample_matrix(frame), cache=cache).tolist() == [[3.0], [10.0]]
    assert replicate_values(weighted, other, weighted.sample_matrix(frame), cache=cache).tolist() == [[3.0], [10.0]]


def test_blocks_of_draws_give_the_replicates_of_the_whole_draw_matrix() -> None:
    """Resample i draws sample i only: its mean is value i and its spreads are exactly 0, whether the draws
    come as one matrix or in blocks (the blocks' sums keep the rounding of their float32 products); no block:
    no replicate."""
    values = [0.3, -1e4, 1e4]
    frame = pl.DataFrame({"x": values, "n_gold": 1})
    reg = _registry(("mean", pl.col("x").mean()), ("std", pl.col("x").std()), ("var0", pl.col("x").var(ddof=0)))
    weighted = compile_metrics(reg, frame)
    matrix = weighted.sample_matrix(frame)
    draws = np.diag(np.full(3, 3, dtype=np.float32))
    whole = replicate_values(weighted, draws, matrix)
    blocks = replicate_values(weighted, iter([draws[:2], draws[2:]]), matrix)
    assert np.allclose(whole[:, 0], values, rtol=1e-6) and np.allclose(blocks[:, 0], values, rtol=1e-6)
    assert (whole[:, 1:] == 0.0).all() and (blocks[:, 1:] == 0.0).all()
    assert replicate_values(weighted, iter([]), matrix).shape == (0, 3)
    columns = SampleColumns.of_columns(weighted.sample_columns(frame), weighted.width, 3)
    assert replicate_values(weighted, iter([]), columns).shape == (0, 3)


def test_a_full_product_cache_lets_go_of_its_oldest_product_first() -> None:
    cache = ProductCache(2)
    for name in (b"a", b"b", b"c"):
        cache.put((name, True), (np.zeros(1), 0.0))
    assert (b"a", True) not in cache and (b"b", True) in cache and (b"c", True) in cache


def test_leaf_spread_of_a_mean_and_of_spreads_with_too_few_values() -> None:
    """A mean is values / presence (6/3, 5/1; blank with no value). The values 1 and 3 (V = 4, N = 2, Q = 10):
    Σ(x − x̄)² = 10 − 16/2 = 2, so var 2/2 = 1 (ddof 0), 2/1 = 2 (ddof 1), blank for ddof 2 (N − ddof = 0);
    std √2 (ddof 1). No value: blank. Nothing is said on the terminal."""
    nan = float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        means = leaf_spread(Leaf("mean", None, "m"), np.array([[6.0, 3.0], [5.0, 1.0], [0.0, 0.0]]))
        assert np.array_equal(means, [2.0, 5.0, nan], equal_nan=True)
        sums = np.array([[4.0, 2.0, 10.0], [0.0, 0.0, 0.0]])
        for kind, ddof, want in (("var", 0, 1.0), ("var", 1, 2.0), ("var", 2, nan), ("std", 1, 2**0.5)):
            got = leaf_spread(Leaf(kind, None, "s", ddof), sums)
            assert np.allclose(got, [want, nan], equal_nan=True), (kind, ddof)


def test_column_sums_keep_a_column_no_resample_changes_once() -> None:
    """Columns 0 and 2 are the same in both resamples, column 1 varies: only it is kept per resample."""
    dense = np.array([[5.0, 1.0, 2.0], [5.0, 3.0, 2.0]])
    sums = ColumnSums.of(dense)
    assert sums.rows == 2 and sums.varying.tolist() == [1] and sums.values.tolist() == [[1.0], [3.0]]
    assert sums.first.tolist() == [5.0, 1.0, 2.0] and np.array_equal(sums.dense(), dense)
    assert sums.columns([2, 1]).tolist() == [[2.0, 1.0], [2.0, 3.0]]
    empty = ColumnSums.of(np.zeros((0, 3)))
    assert empty.rows == 0 and empty.dense().shape == (0, 3)


def test_rounding_of_sums_too_long_for_their_type_is_unbounded() -> None:
    """γ_k = k·u / (1 − k·u) needs k·u < 1: 2**25 float32 products (+ 4) have no bound, and no warning."""
    u32 = float(np.finfo(np.float32).eps) / 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rounding = Rounding.of(np.array([2**25, 10]), [np.float32])
    assert rounding.gamma[0] == np.inf and rounding.gamma[1] == pytest.approx(14 * u32 / (1 - 14 * u32), rel=1e-12, abs=0)
    assert rounding.added.tolist() == [0.0, 0.0]


def test_spread_rounding_is_the_documented_bound() -> None:
    """The bound of ``spread_rounding``'s docstring, term by term: e_Q = γ_Q·(2Q + 2|a_Q|) + f_Q,
    e_V = γ_V·(√(N·Q) + 2|a_V| + |V|) + f_V, then e_Q + (2|V| + e_V)·e_V / N + 4·(u·(Q + V²/N) + η). Without a
    ``Rounding``: plain float64 sums of N terms (γ = (N + 4)·u / (1 − (N + 4)·u), f = (N + 4)·η, nothing added).
    With no value drawn (N = 0) the bound is blank, and nothing is said on the terminal."""
    u, eta = float(np.finfo(np.float64).eps) / 2, float(np.finfo(np.float64).smallest_subnormal)

    def bound(v: float, n: float, q: float, gamma: tuple[float, float], added: tuple[float, float],
              floor: tuple[float, float]) -> float:
        error_q = gamma[1] * (2 * q + 2 * abs(added[1])) + floor[1]
        error_v = gamma[0] * (math.sqrt(n * q) + 2 * abs(added[0]) + abs(v)) + floor[0]
        return error_q + (2 * abs(v) + error_v) * error_v / n + 4 * (u * (q + v * v / n) + eta)

    def plain(k: int) -> float:
        return (k + 4) * u / (1 - (k + 4) * u)

    sums = np.array([[2.0, 4.0, 9.0], [-3.0, 5.0, 7.0]])
    given = Rounding(added=np.array([1.5, 0.0, -2.0]), gamma=np.array([1e-7, 5e-8, 2e-7]),
                     floor=np.array([1e-30, 0.0, 3e-30]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert spread_rounding(sums) == pytest.approx(
            [bound(2, 4, 9, (plain(4),) * 2, (0, 0), (8 * eta,) * 2),
             bound(-3, 5, 7, (plain(5),) * 2, (0, 0), (9 * eta,) * 2)], rel=1e-12, abs=0)
        assert spread_rounding(sums, given) == pytest.approx(
            [bound(2, 4, 9, (1e-7, 2e-7), (1.5, -2.0), (1e-30, 3e-30)),
             bound(-3, 5, 7, (1e-7, 2e-7), (1.5, -2.0), (1e-30, 3e-30))], rel=1e-12, abs=0)
        floors_only = Rounding(added=np.zeros(3), gamma=given.gamma, floor=given.floor)  # no value apart: e_Q = f_Q
        assert spread_rounding(np.array([[0.0, 2.0, 0.0]]), floors_only) == pytest.approx(
            [bound(0, 2, 0, (1e-7, 2e-7), (0, 0), (1e-30, 3e-30))], rel=1e-12, abs=0)
        exact = Rounding(added=np.zeros(3), gamma=np.zeros(3), floor=np.array([1e-30, 0.0, 0.0]))  # e_V = f_V only
        assert spread_rounding(np.array([[1e-20, 1.0, 1e-40]]), exact) == pytest.approx(
            [bound(1e-20, 1, 1e-40, (0, 0), (0, 0), (1e-30, 0))], rel=1e-12, abs=0)
        nothing = Rounding(added=np.zeros(3), gamma=np.zeros(3), floor=np.zeros(3))  # what is left: 4η
        assert spread_rounding(np.array([[0.0, 1.0, 0.0]]), nothing).tolist() == [4 * eta]
        at_the_bound = np.array([[0.0, 1.0, 4 * eta], [0.0, 1.0, 8 * eta]])  # S = Q − 0 = 4η (within it), 8η
        assert leaf_spread(Leaf("var", None, "s"), at_the_bound, nothing).tolist() == [0.0, 8 * eta]
        assert np.isnan(spread_rounding(np.zeros((1, 3)), given)).all()
        assert np.isnan(spread_rounding(np.zeros((1, 3)))).all()


def _registry(*metrics: tuple[str, pl.Expr]) -> Registry:
    reg = Registry()
    for name, expr in metrics:
        reg.add(Metric(name, name, name, name, expr, requires_gold=False))
    return reg


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.floats(-5, 5, allow_nan=False, width=32), st.booleans(), st.integers(0, 4)),
                min_size=2, max_size=30), st.integers(0, 2**32 - 1))
@example([(0.0, False, 0), (6.103515625e-05, False, 0), (0.0, False, 0), (1.0, False, 0)], 0)  # a tiny float64 spread
@example([(1.0, False, 0), (0.0, False, 0), (1.1920928955078125e-07, False, 0)], 0)  # a tiny spread far from the centre
@example([(2.0, False, 0), (0.0, False, 0), (1.1920928955078125e-07, False, 0)], 0)  # the same, unresolved in float64
def test_spreads_means_and_filtered_sums_match_polars(rows: list[tuple[float, bool, int]], seed: int) -> None:
    frame = pl.DataFrame(rows, schema={"x": pl.Float64, "g": pl.Boolean, "k": pl.Int64}, orient="row").with_columns(
        pl.lit(1).alias("n_gold"))
    reg = _registry(("std", pl.col("x").std()), ("var0", pl.col("x").filter(pl.col("g")).var(ddof=0)),
                    ("mean", pl.col("x").filter(pl.col("g")).mean()), ("ratio", pl.col("k").sum() / pl.len()),
                    ("count", pl.col("x").filter(pl.col("k") > 1).count()))
    weighted = compile_metrics(reg, frame)
    assert weighted.names == reg.names
    draws = draw_counts(frame.height, 3, seed)
    matrix = weighted.sample_matrix(frame)
    exact, rounded = (replicate_values(weighted, draws, matrix, precise=p) for p in (True, False))
    for b in range(3):
        drawn = frame[np.repeat(np.arange(frame.height), draws[b].astype(np.int64))]
        expected = reg.compute(drawn)
        for k, name in enumerate(weighted.names):
            value = expected[name]
            if value is None:
                assert np.isnan(exact[b, k]) and np.isnan(rounded[b, k]), name
            elif name in SPREADS:  # summed in float64; float32 resolves a spread only down to ~1e-7 of those sums
                assert _deviation(value, exact[b, k], drawn, name) <= _resolution(frame, drawn, name), name
            else:
                assert value == pytest.approx(exact[b, k], rel=1e-9, abs=1e-9), name
                assert value == pytest.approx(rounded[b, k], rel=1e-4, abs=1e-4), name


SPREADS = {"std": (pl.col("x"), 1), "var0": (pl.col("x").filter(pl.col("g")), 0)}


def _deviation(expected: float, got: float, drawn: pl.DataFrame, name: str) -> float:
    """How far apart two values of spread ``name`` are as Σ (x − x̄)² over the drawn rows."""
    x, ddof = SPREADS[name]
    power = 2 if name == "std" else 1
    return abs(expected**power - got**power) * (drawn.select(x.count()).item() - ddof)


def _resolution(frame: pl.DataFrame, drawn: pl.DataFrame, name: str) -> float:
    """How finely float64 sums resolve Σ (x − x̄)² over the drawn rows: 1e-9 of it, and 16·(n + 4)·u of
    the sums of squares about the run's mean that it is cancelled from (drawn rows and whole run; u
    the float64 unit roundoff, n the samples summed: the bound of sums of products, Higham 2002 §3.1)."""
    x, _ = SPREADS[name]
    centre = frame.select(x.mean()).item()
    spread, drawn_squares = drawn.select(((x - x.mean()) ** 2).sum().alias("spread"),
                                         ((x - centre) ** 2).sum().alias("squares")).row(0)
    run_squares = frame.select(((x - centre) ** 2).sum()).item()
    return 1e-9 * spread + 16 * (frame.height + 4) * float(np.finfo(np.float64).eps) / 2 * (drawn_squares + run_squares)


@pytest.mark.parametrize("values", [[0.3, -1e4, 1e4], [0.3, -1e4, 1e4, 0.1, 7.0]])
def test_equal_drawn_values_far_from_the_centre_have_no_spread(values: list[float]) -> None:
    """Resamples that draw one sample only have spread exactly 0, however far the other samples put
    the centres the columns are summed about (the centre added back is part of the sums' rounding)."""
    frame = pl.DataFrame({"x": values, "n_gold": 1})
    reg = _registry(("std", pl.col("x").std()), ("var0", pl.col("x").var(ddof=0)))
    weighted = compile_metrics(reg, frame)
    draws = np.diag(np.full(len(values), len(values), dtype=np.float32))  # resample i draws sample i only
    for precise in (True, False):
        assert (replicate_values(weighted, draws, weighted.sample_matrix(frame), precise=precise) == 0.0).all(), precise


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.floats(-1e4, 1e4, allow_nan=False, width=32), st.booleans()), min_size=2, max_size=40),
       st.data())
def test_equal_drawn_values_have_no_spread(rows: list[tuple[float, bool]], data: st.DataObject) -> None:
    """Any resample of equal values (some samples with the same value, drawn any number of times, and
    rows without a value) gives spread exactly 0, summed in float32 or float64."""
    frame = pl.DataFrame(rows, schema={"x": pl.Float64, "g": pl.Boolean}, orient="row").with_columns(
        pl.lit(1).alias("n_gold"))
    reg = _registry(("std", pl.col("x").filter(pl.col("g")).std()), ("var0", pl.col("x").var(ddof=0)))
    weighted = compile_metrics(reg, frame)
    n = frame.height
    chosen = data.draw(st.integers(0, n - 1))
    equal = np.flatnonzero(frame["x"].to_numpy() == rows[chosen][0])
    draws = np.zeros((1, n), dtype=np.float32)
    for _ in range(n):
        draws[0, data.draw(st.sampled_from(list(equal)))] += 1
    expected = reg.compute(frame[np.repeat(np.arange(n), draws[0].astype(np.int64))])
    for precise in (True, False):
        got = replicate_values(weighted, draws, weighted.sample_matrix(frame), precise=precise)[0]
        assert [None if np.isnan(v) else v for v in got] == [None if expected[m] is None else 0.0 for m in reg.names]


def test_a_tiny_spread_far_from_the_centre_is_kept() -> None:
    """Drawn values 0, 0 and 2⁻²³ a third away from the run's mean: their spread is 3e-14 of the sum of
    squares about that mean, far below 1e-12 of it, yet 30 times the float64 rounding of the sums: kept."""
    frame = pl.DataFrame({"x": [1.0, 0.0, 2.0**-23], "n_gold": 1})
    reg = _registry(("std", pl.col("x").std()))
    weighted = compile_metrics(reg, frame)
    draws = np.array([[0, 2, 1]], dtype=np.float32)
    got = replicate_values(weighted, draws, weighted.sample_matrix(frame), precise=True)
    assert got[0, 0] == pytest.approx(reg.compute(frame[[1, 1, 2]])["std"], rel=1e-3)


def test_a_part_that_reads_other_rows_inside_an_aggregation_is_refused_by_name() -> None:
    frame = pl.DataFrame({"x": [1.0, 2.0, 4.0, 8.0], "y": [4, 3, 2, 1], "g": [True, False, True, True],
                          "n_gold": [1, 1, 1, 1]})
    inside = {"len()": (pl.col("x") * pl.len()).sum(), "agg": (pl.col("x") - pl.col("x").mean()).sum(),
              "filter": (pl.col("x").filter(pl.col("g")) + 1).sum(), "slice": pl.col("x").head(3).sum(),
              "gather": pl.col("x").gather([0, 1]).sum(), "sort": pl.col("x").sort().sum(),
              "sortby": pl.col("x").sort_by("y").sum()}
    weighted = compile_metrics(_registry(*inside.items(), ("kept", pl.col("x").filter(pl.col("g")).mean())), frame)
    assert weighted.names == ["kept"]
    assert weighted.not_resampled == {name: f"{name} inside a per-sample expression" for name in inside}
    listed = compile_metrics(_registry(("listed", pl.max_horizontal(pl.col("x"), pl.col("x").sort()).sum())), frame)
    assert listed.not_resampled == {"listed": "sort inside a per-sample expression"}  # one of a function's inputs


def test_len_counts_every_drawn_row_and_count_the_drawn_values() -> None:
    """x has a null: len() of x (or of x shifted, still one per row) is Σw, count() is Σw over the rows with a
    value. Resample (2, 0, 1, 1): len 4, count 3; the registry on the drawn rows says the same."""
    frame = pl.DataFrame({"x": [1.0, 2.0, None, 8.0], "n_gold": [1, 1, 1, 1]})
    reg = _registry(("len", pl.col("x").len()), ("count", pl.col("x").count()),
                    ("shifted_len", pl.col("x").shift(1).len()))
    weighted = compile_metrics(reg, frame)
    assert weighted.names == ["len", "count", "shifted_len"]
    draws = np.array([[2, 0, 1, 1]], dtype=np.float32)
    drawn = reg.compute(frame[[0, 0, 2, 3]])
    assert drawn == {"len": 4, "count": 3, "shifted_len": 4}
    assert replicate_values(weighted, draws, weighted.sample_matrix(frame)).tolist() == [[4.0, 3.0, 4.0]]


def test_a_window_node_is_refused_inside_and_outside_an_aggregation() -> None:
    """``over()`` as Polars 1.x serializes it (a ``Window`` node; Polars 2 writes ``Over``, refused by the
    row-wise check instead)."""
    window = {"Window": {"function": {"Agg": {"Mean": {"Column": "x"}}}, "partition_by": [{"Column": "g"}]}}
    with pytest.raises(NotResampled, match="^window inside a per-sample expression$"):
        _row_expr({"BinaryExpr": {"left": {"Column": "x"}, "op": "Minus", "right": window}})
    with pytest.raises(NotResampled, match="^a per-sample column outside an aggregation$"):
        Rewriter().rewrite({"Window": {**window["Window"], "partition_by": []}})  # refused as a window, not for g


def test_a_part_that_is_not_row_wise_at_all_is_found_one_leaf_at_a_time() -> None:
    """x.unique() has 3 rows where the table has 4, so the two row-wise leaves cannot be computed side by side: each is
    checked on its own, and only the sum of x itself is resampled. Only the metrics asked for are compiled;
    a run-level metric and a text column are reported, whatever their place."""
    frame = pl.DataFrame({"x": [1.0, 1.0, 2.0, 3.0], "n_gold": [1, 1, 1, 1]})
    reg = _registry(("uniq", pl.col("x").unique().sum()), ("fine", pl.col("x").sum()))
    reg.add(Metric("run", "run", "run", "run", None, requires_gold=False, run_level=lambda table, context: 1.0))
    reg.add(Metric("text", "text", "text", "text", pl.lit("v").first(), kind="str", requires_gold=False))
    reg.add(Metric("last", "last", "last", "last", pl.len(), requires_gold=False))  # no row-wise part
    weighted = compile_metrics(reg, frame)
    assert weighted.names == ["fine", "last"]
    assert weighted.not_resampled == {"uniq": "a per-sample part depends on other samples",
                                      "run": "run-level metric (not an expression over samples)",
                                      "text": "text column (no number to resample)"}
    asked = compile_metrics(reg, frame, ["fine"])
    assert asked.names == ["fine"] and asked.not_resampled == {}
    assert compile_metrics(reg, frame, ["run"]).names == []  # nothing to compile


def test_replicates_of_integer_aggregations_are_integers() -> None:
    """1,000 counts below 20,000 (n·max > 2**24: summed centred in float32, off by a little): the leaves of
    sum, count and len keep the aggregation's integer type, so each replicate is a whole number, within 1 of
    the exact sum."""
    counts = np.random.default_rng(0).integers(0, 20_000, 1000)
    frame = pl.DataFrame({"k": counts, "n_gold": 1})
    reg = _registry(("sum", pl.col("k").sum()), ("count", pl.col("k").filter(pl.col("k") > 100).count()),
                    ("len", pl.len() * 1))
    weighted = compile_metrics(reg, frame)
    assert weighted.names == ["sum", "count", "len"]
    draws = draw_counts(1000, 5, seed=3)
    got = replicate_values(weighted, draws, weighted.sample_matrix(frame))
    assert (got == np.rint(got)).all() and (got[:, 2] == 1000).all()
    assert np.abs(got[:, 0] - draws.astype(np.float64) @ counts).max() <= 1
    assert np.array_equal(got[:, 1], draws.astype(np.float64) @ (counts > 100))


def test_a_compiled_value_is_the_metrics_within_1e9_relative_or_absolute_below_1() -> None:
    assert _same(None, float("nan")) and not _same(None, 1.0) and not _same(1.0, float("nan"))
    assert _same(1.0, 1.0 + 0.5e-9) and not _same(1.0, 1.0 + 1.5e-9) and not _same(0.5, 0.5 + 1.5e-9)
    assert _same(1e6, 1e6 + 5e-4) and not _same(1e6, 1e6 + 2e-3)


def test_spreads_are_summed_about_the_mean_so_values_far_from_zero_keep_them() -> None:
    """x = 10⁸ + (1, 2, 3, 4): var (ddof 1) 5/3, std √(5/3) of the whole run (all weights 1, float64 sums).
    Uncentred, Σx² ≈ 4·10¹⁶ would cancel to within its rounding (4 at that size) and lose the spread."""
    frame = pl.DataFrame({"x": [1e8 + 1, 1e8 + 2, 1e8 + 3, 1e8 + 4], "n_gold": 1})
    weighted = compile_metrics(_registry(("var", pl.col("x").var()), ("std", pl.col("x").std())), frame)
    got = replicate_values(weighted, np.ones((1, 4), dtype=np.float32), weighted.sample_matrix(frame), precise=True)
    assert got[0].tolist() == pytest.approx([5 / 3, (5 / 3) ** 0.5], rel=1e-9)


def test_no_leaf_no_sample_column() -> None:
    frame = pl.DataFrame({"x": [1.0, 2.0], "n_gold": 1})
    weighted = compile_metrics(_registry(("largest", pl.col("x").max())), frame)
    assert weighted.names == [] and weighted.sample_matrix(frame).shape == (2, 0)


def test_metrics_whose_leaves_do_not_vary_are_fixed_and_follow_their_own_values() -> None:
    """c is 5 in every sample, so sum(c) is the same in every resample (fixed) and sum(x) is not; a fixed
    value is kept for the next call with the same leaves only (70 calls with c = 0..69, more than the 64
    kept). Sums given as a bare array are plain float64 sums."""
    frame = pl.DataFrame({"x": [1.0, 2.0, 4.0], "c": [5.0, 5.0, 5.0], "n_gold": 1})
    weighted = compile_metrics(_registry(("x", pl.col("x").sum()), ("c", pl.col("c").sum())), frame)
    draws = np.array([[3, 0, 0], [0, 1, 2]], dtype=np.float32)
    values, fixed = replicates_and_fixed(weighted, draws, weighted.sample_matrix(frame))
    assert values.tolist() == [[3.0, 15.0], [10.0, 15.0]] and fixed.tolist() == [False, True]
    for c in range(70):
        other = frame.with_columns(pl.lit(float(c)).alias("c"))
        assert replicate_values(weighted, draws, weighted.sample_matrix(other))[:, 1].tolist() == [3.0 * c] * 2
    assert weighted.evaluate(np.array([[1.0, 2.0], [3.0, 2.0]])).tolist() == [[1.0, 2.0], [3.0, 2.0]]


def test_a_mean_with_no_value_drawn_is_blank_without_a_warning() -> None:
    """x = 0.1, null, 0.2, null: a resample of the two nulls has no value (its float32 values sum, centred on
    0.075, comes back as a rounding residue, not 0); the other one's mean is 0.15; the spread of equal
    resamples (every one drawing sample 0 only) is 0."""
    frame = pl.DataFrame({"x": [0.1, None, 0.2, None], "k": [1, None, 2, None], "n_gold": 1})  # k: summed exactly, 0/0
    weighted = compile_metrics(_registry(("mean", pl.col("x").mean()), ("var", pl.col("x").var(ddof=0)),
                                         ("mean_k", pl.col("k").mean())), frame)
    draws = np.array([[0, 2, 0, 2], [2, 0, 2, 0]], dtype=np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = replicate_values(weighted, draws, weighted.sample_matrix(frame))
        same = replicate_values(weighted, np.array([[4, 0, 0, 0]] * 2, dtype=np.float32), weighted.sample_matrix(frame))
    assert np.isnan(got[0]).all() and got[1].tolist() == pytest.approx([0.15, 0.0025, 1.5], rel=1e-6)
    assert same[:, 1].tolist() == [0.0, 0.0]


def test_what_cannot_be_resampled_is_reported_with_the_reason() -> None:
    frame = pl.DataFrame({"x": [1.0, 2.0, 4.0, 8.0], "n_gold": [1, 1, 1, 1]})
    reg = _registry(("largest", pl.col("x").max()), ("shifted", pl.col("x").shift(1).sum()),
                    ("ranked", (pl.col("x").rank() * pl.col("x")).sum()), ("fine", pl.col("x").sum()),
                    ("bare", pl.col("x").sum() + pl.col("x")), ("filtered_len", pl.col("x").filter(pl.col("x") > 1).len()))
    weighted = compile_metrics(reg, frame)
    assert weighted.names == ["fine"]
    assert weighted.not_resampled["filtered_len"] == "the weighted form does not reproduce the metric"  # len() is Σw
    assert weighted.not_resampled["bare"] == "a per-sample column outside an aggregation"
    assert weighted.not_resampled["largest"] == "aggregation max has no weighted form"
    assert weighted.not_resampled["shifted"] == "a per-sample part depends on other samples"
    assert weighted.not_resampled["ranked"] == "a per-sample part depends on other samples"


def test_float32_sums_are_the_float32_products_of_the_centred_columns() -> None:
    """The module's rule for a column that is not summed precisely: centred on its mean c, multiplied in
    float32, c·n added back in float64. x = 0.1, 0.2, 0.4 (c = 7/30) and resamples that draw one sample three
    times: each sum is f32(3·f32(x_i − c)) + 3c (one rounding per resample, whatever the order of the sum),
    which is not the float64 sum 3·x_i. Replicate values and their fixed flags sum that way unless asked to be
    precise."""
    x = np.array([0.1, 0.2, 0.4])
    draws = np.array([[0, 0, 3], [3, 0, 0], [0, 3, 0]], dtype=np.float32)
    centre = x.mean()
    centred = (x - centre).astype(np.float32)
    expected = [float(np.float32(3) * centred[i]) + 3 * centre for i in (2, 0, 1)]
    exact = [float(3 * (x[i] - centre)) + 3 * centre for i in (2, 0, 1)]
    assert expected != exact
    assert weighted_sums(draws, x[:, None]).dense()[:, 0].tolist() == expected
    assert weighted_sums(draws, x[:, None], np.array(True)).dense()[:, 0].tolist() == exact
    frame = pl.DataFrame({"x": x, "n_gold": 1})
    weighted = compile_metrics(_registry(("sum", pl.col("x").sum())), frame)
    matrix = weighted.sample_matrix(frame)
    assert replicate_values(weighted, draws, matrix)[:, 0].tolist() == expected
    assert replicates_and_fixed(weighted, draws, matrix)[0][:, 0].tolist() == expected
    assert replicate_values(weighted, draws, matrix, precise=True)[:, 0].tolist() == exact


def test_an_integer_column_too_large_for_float32_is_centred_so_its_sums_stay_exact() -> None:
    """32 samples of 2**20 + 1 and 2**20 + 3: n·max ≥ 2**24, so the column is centred on its mean 2**20 + 2
    and the products of the counts with ±1 are exact; summed as it is, 32·2**20 would need 26 bits."""
    x = np.tile([2.0**20 + 1, 2.0**20 + 3], 16)[:, None]
    draws = draw_counts(32, 50, seed=4)
    assert np.array_equal(weighted_sums(draws, x).dense(), draws.astype(np.float64) @ x)


def test_an_integer_column_is_summed_as_it_is_only_below_2_to_the_24() -> None:
    """The rule's bound is strict: 16 samples up to 2**20 (n·max = 2**24) are centred, on their mean 2**20/16,
    which the sums' Rounding records as added (c·n = 2**20); up to 2**20 − 1 they are not (nothing added)."""
    draws = draw_counts(16, 3, seed=5)
    for top, added in ((2.0**20, 2.0**20), (2.0**20 - 1, 0.0)):
        x = np.zeros((16, 1))
        x[0] = top
        rounding = weighted_sums(draws, x).rounding
        assert rounding is not None and rounding.added.tolist() == [added]


def test_a_spread_of_whole_numbers_among_many_samples_is_kept() -> None:
    """x = 1, −1 and 7,998 zeros (mean 0): an integer column is summed as it is, nothing added back, so the
    bound of the rounding of its float32 sums stays near γ·2Q ≈ 0.002, far below S = Σ(x − x̄)² = 2; the
    whole run's std is √(2/7999)."""
    x = np.zeros(8000)
    x[:2] = [1.0, -1.0]
    frame = pl.DataFrame({"x": x, "n_gold": 1})
    weighted = compile_metrics(_registry(("std", pl.col("x").std())), frame)
    got = replicate_values(weighted, np.ones((1, 8000), dtype=np.float32), weighted.sample_matrix(frame))
    assert got[0, 0] == pytest.approx((2 / 7999) ** 0.5, rel=1e-6)


def test_a_product_cache_holds_512_products_by_default() -> None:
    cache = ProductCache()
    for i in range(513):
        cache.put((i.to_bytes(2, "big"), False), (np.zeros(1), 0.0))
    assert (b"\x00\x00", False) not in cache and (b"\x00\x01", False) in cache and (b"\x02\x00", False) in cache


def test_a_compiled_value_within_exactly_1e9_of_0_is_the_same() -> None:
    assert _same(0.0, 1e-9) and not _same(0.0, np.nextafter(1e-9, 1.0))


def test_integer_leaves_keep_polars_integer_types_so_replicates_are_the_metric_on_the_drawn_rows() -> None:
    """sum(flag) − len() in Polars' own types (UInt32) wraps below 0, on the whole run as on drawn rows; the
    replicates are what Polars gives on the drawn rows (1 − 3 and 0 − 3 as UInt32)."""
    frame = pl.DataFrame({"flag": [True, False, False], "n_gold": 1})
    reg = _registry(("wrapped", pl.col("flag").sum() - pl.len()))
    weighted = compile_metrics(reg, frame)
    assert weighted.names == ["wrapped"]
    draws = np.array([[1, 2, 0], [0, 1, 2]], dtype=np.float32)
    expected = [reg.compute(frame[rows])["wrapped"] for rows in ([0, 1, 1], [1, 2, 2])]
    assert expected == [2**32 - 2, 2**32 - 3]
    assert replicate_values(weighted, draws, weighted.sample_matrix(frame))[:, 0].tolist() == expected


def test_row_wise_parts_are_checked_on_the_first_rows_with_fixed_picks(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check reads the first 50,000 rows only (memory), draws its rows with a fixed seed (the same
    outcome on every call) and works on a one-row table (the one row drawn)."""
    seen: list[tuple[int, list[int]]] = []
    check = compile_module._row_local

    def spy(leaves: list[Leaf], table: pl.DataFrame, picks: np.ndarray) -> dict[str, bool]:
        seen.append((table.height, picks.tolist()))
        return check(leaves, table, picks)

    monkeypatch.setattr(compile_module, "_row_local", spy)
    reg = _registry(("sum", (pl.col("x") * 2).sum()))
    large = pl.DataFrame({"x": np.arange(50_001, dtype=np.float64), "n_gold": 1})
    for _ in range(2):
        assert compile_metrics(reg, large).names == ["sum"]
    assert [height for height, _ in seen] == [50_000, 50_000] and seen[0][1] == seen[1][1]
    one = pl.DataFrame({"x": [3.0], "n_gold": 1})
    weighted = compile_metrics(reg, one)
    assert seen[2] == (1, [0]) and weighted.names == ["sum"]
    assert replicate_values(weighted, np.array([[1.0]], dtype=np.float32), weighted.sample_matrix(one)).tolist() == [[6.0]]
