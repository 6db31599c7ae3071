"""A comparison prepares the next condition (its products with the draws) in a worker thread while it
reduces the current one (``Resampler.ahead``); the products are made in the same order, batches and
cache states as one condition at a time, so every output is the same bytes."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace

import numpy as np
import pytest

from aggregator.compare import api
from aggregator.compare.api import compare_loaded
from aggregator.compare.files import comparison_files
from aggregator.compare.resampled import Resampler, _Ahead
from aggregator.compare.runs import Run, load_runs
from aggregator.metrics.registry import RunContext
from aggregator.metrics.structural import STRUCTURAL
from tests.conftest import RUNS


@pytest.fixture(scope="module")
def runs() -> list[Run]:
    return load_runs(sorted(RUNS.iterdir()))


def _files(runs: Sequence[Run], monkeypatch: pytest.MonkeyPatch, *, ahead: bool) -> tuple[dict[str, bytes], list[int]]:
    """The comparison's files, with the conditions prepared ahead or one at a time, and the plans' lengths."""
    plans: list[int] = []
    original = api._Conditions.plan

    def plan(self: api._Conditions, *args: object) -> list[tuple[list[int], np.ndarray]]:
        made = original(self, *args) if ahead else []  # type: ignore[arg-type]
        plans.append(len(made))
        return made

    with monkeypatch.context() as patch:
        patch.setattr(api._Conditions, "plan", plan)
        files = comparison_files(compare_loaded(runs, resamples=400, seed=3, by=["aspect_count"]))
    return files, plans


def test_conditions_prepared_ahead_give_the_bytes_of_one_at_a_time(runs: list[Run],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    taken = []
    original = _Ahead.take

    def take(self: _Ahead, rows: Sequence[int], samples: np.ndarray) -> object:
        taken.append(list(rows))
        return original(self, rows, samples)

    monkeypatch.setattr(_Ahead, "take", take)
    ahead, plans = _files(runs, monkeypatch, ahead=True)
    assert plans == [3] and len(taken) == 9  # the 13 runs' three conditions, then three in each aspect_count level
    alone, _ = _files(runs, monkeypatch, ahead=False)
    assert ahead == alone


def test_a_contrast_over_fewer_samples_than_its_conditions_plans_nothing_ahead(runs: list[Run],
                                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A run without its first sample: the contrasts of its condition are over fewer samples than the
    other condition's own, so their products would come between the planned ones; nothing is planned."""
    table = runs[0].table.slice(1)
    short = [replace(runs[0], table=table, metrics=STRUCTURAL.compute(table, RunContext(all_rows=table))), *runs[1:]]
    files, plans = _files(short, monkeypatch, ahead=True)
    assert plans == [0] and "paired.csv" in files


def _ahead(plan: list[tuple[list[int], np.ndarray]], prepare: object) -> _Ahead:
    from collections import deque
    from concurrent.futures import ThreadPoolExecutor

    return _Ahead(ThreadPoolExecutor(1), deque(plan), prepare)  # type: ignore[arg-type]


def test_the_plan_is_prepared_in_order_at_most_one_condition_ahead() -> None:
    started: list[int] = []

    def prepare(rows: Sequence[int], samples: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        started.append(rows[0])
        return [(samples, samples)]

    plan = [([k], np.arange(k + 1)) for k in range(4)]
    ahead = _ahead(plan, prepare)
    for k in range(4):
        time.sleep(0.02)  # time for a worker that ran ahead to show it
        assert started == list(range(k + 1))
        assert np.array_equal(ahead.take([k], np.arange(k + 1))[0][0], np.arange(k + 1))
    ahead.stop()
    assert started == [0, 1, 2, 3]


def test_a_condition_asked_out_of_plan_is_refused_and_a_failure_reaches_the_caller() -> None:
    plan = [([0], np.arange(3)), ([1], np.arange(3))]
    ahead = _ahead(plan, lambda rows, samples: [(samples, samples)])
    with pytest.raises(RuntimeError, match="out of the planned order"):
        ahead.take([1], np.arange(3))
    with pytest.raises(RuntimeError, match="out of the planned order"):
        ahead.take([0], np.arange(2))
    ahead.stop()

    def fail(rows: Sequence[int], samples: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        raise ValueError("broken run")

    failing = _ahead(plan, fail)
    with pytest.raises(ValueError, match="broken run"):
        failing.take([0], np.arange(3))
    failing.stop()


def test_an_empty_plan_leaves_the_resampler_as_it_was(runs: list[Run]) -> None:
    resampler = Resampler(STRUCTURAL, None, runs, [], 10, 0)  # type: ignore[arg-type]
    with resampler.ahead([]):
        assert resampler._ahead is None


def test_a_level_makes_each_conditions_replicates_once(runs: list[Run], monkeypatch: pytest.MonkeyPatch) -> None:
    """The 13 runs share their samples, so a level's contrasts are over the conditions' own samples: three
    conditions, three replicate sets per level (the baseline's no longer made again for each contrast)."""
    made: list[tuple[tuple[int, ...], bytes]] = []
    original = Resampler.condition

    def condition(self: Resampler, rows: Sequence[int], samples: np.ndarray) -> object:
        made.append((tuple(rows), samples.tobytes()))
        return original(self, rows, samples)

    monkeypatch.setattr(Resampler, "condition", condition)
    result = compare_loaded(runs, resamples=50, seed=1, by=["aspect_count"])
    levels = result.subsets.get_column("level").n_unique()
    assert levels >= 2 and len(made) == 3 + 3 * levels  # the main pass's three, then three a level (was seven)


@pytest.mark.parametrize("short", [False, True])
def test_levels_prepared_ahead_give_the_bytes_of_one_at_a_time(runs: list[Run], monkeypatch: pytest.MonkeyPatch,
                                                               short: bool) -> None:
    """``--by`` levels plan their replicate sets too (the baseline's over the common samples among them); with a
    run lacking a sample (``short``) a level's contrasts are over fewer samples than its conditions' own."""
    if short:
        table = runs[0].table.slice(1)
        runs = [replace(runs[0], table=table, metrics=STRUCTURAL.compute(table, RunContext(all_rows=table))), *runs[1:]]

    def files() -> bytes:
        result = compare_loaded(runs, resamples=300, seed=5, by=["gold_polarity", "aspect_count"])
        return comparison_files(result)["subsets.csv"]

    ahead = files()

    @contextmanager
    def alone(self: Resampler, plan: object) -> Iterator[None]:
        yield

    monkeypatch.setattr(Resampler, "ahead", alone)
    assert files() == ahead


def test_sample_sets_drawn_in_blocks_are_not_prepared_ahead(runs: list[Run], monkeypatch: pytest.MonkeyPatch) -> None:
    """Beyond the draws kept whole, a prepared condition would be its runs' placed matrices: not held twice."""
    from aggregator.compare import resampled

    resampler = Resampler(STRUCTURAL, None, runs, [], 100, 0)  # type: ignore[arg-type]
    monkeypatch.setattr(resampled, "DRAW_CACHE_CELLS", 100 * 50 - 1)
    with resampler.ahead([([0], np.arange(50))]):
        assert resampler._ahead is None
    monkeypatch.setattr(resampled, "DRAW_CACHE_CELLS", 100 * 50)
    with resampler.ahead([([0], np.arange(50))]):
        assert resampler._ahead is not None
