"""The headline intervals' bootstrap at scale (issue #17, item 10): memory bounded by a block of draws.

Measured without timing: numpy's allocations are traced by :mod:`tracemalloc`. Drawing a block
holds the block and one resample's indices and counts (not three arrays of the block's size); the
draws are those of drawing the block at once; checking that metrics commute with drawing rows
gathers only the columns they read; the stacked sample columns no longer hold the sample matrix.
"""

from __future__ import annotations

import tracemalloc
from types import SimpleNamespace

import numpy as np
import polars as pl
import pytest

from aggregator.metrics.structural import build_registry
from aggregator.stats.bootstrap import SampleColumns, block_rows, iter_draws, replicate_values, sample_mask
from aggregator.stats.compile import _columns_read, compile_metrics


def _drawn_at_once(n: int, resamples: int, seed: int) -> list[np.ndarray]:
    """The earlier implementation: a block's indices drawn in one call and counted in one bincount."""
    rng, step, out = np.random.default_rng(seed), block_rows(n), []
    for start in range(0, resamples, step):
        size = min(step, resamples - start)
        drawn = rng.integers(0, n, size=(size, n), dtype=np.int32) + (np.arange(size, dtype=np.int32) * n)[:, None]
        out.append(np.bincount(drawn.ravel(), minlength=size * n).reshape(size, n).astype(np.float32))
    return out


def test_drawing_a_block_holds_the_block_and_one_resample() -> None:
    n = 400_000  # blocks of 50 resamples: 80 MB of float32 counts
    tracemalloc.start()
    try:
        block = next(iter_draws(n, 60, seed=3))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert block.shape == (block_rows(n), n)
    assert peak < block.nbytes + 32 * n  # a few arrays of one resample; drawn at once: + 12 bytes a cell


def test_draws_are_those_of_drawing_each_block_at_once() -> None:
    for n, resamples, seed in [(1, 3, 0), (7, 5, 1), (101, 64, 2), (30_001, 700, 5)]:
        blocks = list(iter_draws(n, resamples, seed))
        expected = _drawn_at_once(n, resamples, seed)
        assert len(blocks) == len(expected)
        assert all(np.array_equal(a, b) for a, b in zip(blocks, expected))
    assert np.array_equal(next(iter_draws(50, 10, 4, np.float64)), next(iter_draws(50, 10, 4)))


def test_the_row_wise_check_draws_only_the_columns_it_reads() -> None:
    table = pl.DataFrame({"a": [1, 2, 3], "b": [True, False, True], "wide": ["x" * 100] * 3})
    assert _columns_read(table, [pl.col("a") * 2, pl.when(pl.col("b")).then(1)]).columns == ["a", "b"]
    assert _columns_read(table, [pl.all().first()]).columns == table.columns  # names not known beforehand
    assert _columns_read(table, [pl.col("a"), pl.all().first()]).columns == table.columns  # some of them


def test_stacked_columns_let_go_of_the_sample_matrix_and_give_the_same_replicates() -> None:
    rng = np.random.default_rng(0)
    n = 500
    table = pl.DataFrame({
        "has_gold": rng.random(n) < 0.9, "n_gold": rng.integers(0, 4, n),
        **{f"{u}_{s}_f1": rng.random(n) for u in ("refpol", "otepol") for s in ("s1", "s2")},
        **{f"{u}_transition": rng.choice(["fix", "break", "keep", "still"], n) for u in ("refpol", "otepol")},
    })
    registry = build_registry(("core",))
    weighted = compile_metrics(registry, table, ["tuple_f1_s1", "fix_rate", "break_rate_otepol"])
    matrix = weighted.sample_matrix(table)
    expected = replicate_values(weighted, iter_draws(n, 40, 9, np.float64), matrix, precise=True)
    given = matrix.copy(order="F")
    for columns in (SampleColumns([given], sample_mask(True)),
                    SampleColumns.of_columns(weighted.sample_columns(table), weighted.width, n)):
        got = replicate_values(weighted, iter_draws(n, 40, 9, np.float64), columns, precise=True)
        assert np.array_equal(expected, got, equal_nan=True)
        assert all(column.size == 0 for column in columns.wanted.values())  # none is held any more
    assert np.array_equal(given, matrix)  # the matrix given is left as it was


def test_columns_given_one_by_one_keep_the_distinct_varying_ones_and_give_the_same_sums() -> None:
    """A constant and a repeated column are not kept; the sums are those of the whole matrix."""
    rng = np.random.default_rng(1)
    base = rng.random((300, 3))
    matrix = np.asfortranarray(np.column_stack([np.ones(300), base[:, 0], base[:, 0], base[:, 1], base[:, 2]]))
    draws = next(iter_draws(300, 25, 4, np.float64))
    expected = SampleColumns([matrix], sample_mask(True)).sums(draws)[0].dense()
    columns = SampleColumns.of_columns(iter(matrix.T), matrix.shape[1], 300)
    assert len(columns.wanted) == 3
    assert np.array_equal(expected, columns.sums(draws)[0].dense())
    stacked = next(iter(columns._centred.values()))[0]
    assert stacked.shape == (300, 3)  # centred where the columns were written, no copy of them


def test_the_draws_are_the_same_whatever_the_block_size() -> None:
    """``cells`` chooses how many resamples a block holds, not what is drawn (the headline draws 4 MB blocks)."""
    n, resamples = 5_000, 230
    whole = np.concatenate(list(iter_draws(n, resamples, 7, np.float64, cells=n * resamples)))
    assert whole.shape == (resamples, n)
    for cells in (500_000, 123_457, n - 1):
        blocks = [block.copy() for block in iter_draws(n, resamples, 7, np.float64, reuse=True, cells=cells)]
        assert {len(b) for b in blocks[:-1]} == {block_rows(n, cells)}
        assert np.array_equal(np.concatenate(blocks), whole)


def test_headline_intervals_do_not_depend_on_the_block_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """The 4 MB blocks give the intervals of blocks of 1,000 resamples, as before (up to the products' last bits)."""
    from aggregator.run import intervals

    rng = np.random.default_rng(3)
    n = 1_200  # blocks of 416 resamples
    table = pl.DataFrame({
        "has_gold": rng.random(n) < 0.9, "n_gold": rng.integers(0, 4, n),
        **{f"{u}_{s}_{c}": rng.integers(0, 3, n) for u in ("refpol", "otepol") for s in ("s1", "s2")
           for c in ("tp", "fp", "fn")},
        **{f"{u}_{s}_f1": rng.random(n) for u in ("refpol", "otepol") for s in ("s1", "s2")},
        **{f"{u}_transition": rng.choice(["fix", "break", "keep", "still"], n) for u in ("refpol", "otepol")},
    })
    registry = build_registry(("core",))
    evaluation = SimpleNamespace(table=table, registry=registry, metrics={name: 0.5 for name in intervals.METRICS})
    found = []
    for cells in (intervals.BLOCK_CELLS, n * intervals.RESAMPLES):
        monkeypatch.setattr(intervals, "BLOCK_CELLS", cells)
        monkeypatch.setattr(intervals, "_last", [])
        found.append(intervals.headline_intervals(evaluation))  # type: ignore[arg-type]
    assert block_rows(n, intervals.BLOCK_CELLS) < intervals.RESAMPLES
    assert found[0].keys() == found[1].keys()
    defined = [name for name, bounds in found[1].items() if bounds != (None, None)]
    assert len(defined) >= 6
    for name in found[1]:
        assert found[0][name] == pytest.approx(found[1][name], abs=1e-12, rel=1e-12)
