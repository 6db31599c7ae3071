"""``aggregate compare`` end to end on scorecards written here, against the definitions of docs/compare.md.

Each sample has one gold tuple; a run's final answer on it is the gold tuple (F1 1), nothing (F1 0)
or the gold tuple and a wrong one (precision 1/2, recall 1: F1 2/3); stage 1 is always a wrong
tuple, so the sample is a fix when the final answer is exactly the gold and a still otherwise.
The expected per-sample values come from these codes, the expected statistics from the plain
implementation of tests/compare_reference.py over the same draws (they depend only on n, the
resamples and the seed; samples in key order).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from aggregator.compare.api import compare_loaded
from aggregator.compare.runs import load_runs
from aggregator.stats.bootstrap import draw_counts
from tests import compare_reference as ref
from tests.scorecard_rows import item, row, write_rows

GOLD = item("FOOD#QUALITY", "pizza", "positive")
WRONG = item("SERVICE#GENERAL", "waiter", "negative")
FINAL = {"correct": [GOLD], "empty": [], "extra": [GOLD, WRONG]}
F1 = {"correct": 1.0, "empty": 0.0, "extra": 2 / 3}
N, RESAMPLES, SEED = 12, 400, 5
KEYS = [f"s{i:02d}" for i in range(N)]


def codes(rng: np.random.Generator, shared: list[str]) -> list[str]:
    """A run's answers: each sample's shared answer (a sample effect), redrawn with probability 0.3 (run noise)."""
    return [str(rng.choice(list(FINAL))) if rng.random() < 0.3 else c for c in shared]


def write_run(root: Path, run_id: str, answers: list[str], *, reverse: bool = False) -> Path:
    rows = [row(key, gold=[GOLD], stage1=[WRONG], final=FINAL[code], run_id=run_id) for key, code in zip(KEYS, answers)]
    write_rows(root / run_id / "scorecards.jsonl", rows[::-1] if reverse else rows)
    return root / run_id


def data(answers: list[str]) -> np.ndarray:
    """Per sample: F1 S2, fix (1 when the final answer is the gold), fix + still (1: every sample has gold)."""
    return np.array([[F1[c], float(c == "correct"), 1.0] for c in answers])


def f1(run: np.ndarray, weights: np.ndarray) -> float:
    return ref.weighted_mean(run[:, :1], weights)


def fix_rate(run: np.ndarray, weights: np.ndarray) -> float:
    return ref.ratio_of_sums(run[:, 1:], weights)


STATISTICS = {"tuple_f1_s2": f1, "fix_rate": fix_rate}


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Path], dict[str, list[list[str]]]]:
    root = tmp_path_factory.mktemp("hand")
    rng = np.random.default_rng(11)
    shared = [str(c) for c in rng.choice(list(FINAL), N, p=[0.5, 0.25, 0.25])]
    answers = {"ca": [codes(rng, shared) for _ in range(2)], "cb": [codes(rng, shared) for _ in range(3)]}
    changed = [list(a) for a in answers["ca"]]
    first_empty = changed[0].index("empty")
    changed[0][first_empty] = "correct"
    answers["cc"] = changed
    paths = [write_run(root, f"{c}__seed{s + 1}", a, reverse=c == "cb") for c, runs in answers.items()
             for s, a in enumerate(runs)]
    return paths, answers


def check_row(got: dict[str, object], want: ref.Reference) -> None:
    for column, value in (("delta", want.estimate), ("mean", want.estimate), ("se", want.se),
                          ("ci_low", want.ci_low), ("ci_high", want.ci_high), ("p_value", want.p_value),
                          ("seed_share", want.seed_share)):
        if column in got:
            assert got[column] == pytest.approx(value, rel=1e-5, abs=1e-9), (column, got, want)


@pytest.mark.parametrize("method", ["welch", "banerjee"])
def test_contrasts_and_means_follow_the_definitions(written: tuple[list[Path], dict[str, list[list[str]]]],
                                                     method: str) -> None:
    paths, answers = written
    result = compare_loaded(load_runs(paths), resamples=RESAMPLES, seed=SEED, interval=method, contrasts=[("ca", "cb")])
    draws = draw_counts(N, RESAMPLES, SEED).astype(float)
    for metric, statistic in STATISTICS.items():
        want = ref.contrast([data(a) for a in answers["ca"]], [data(b) for b in answers["cb"]], draws, method, statistic)
        check_row(result.paired.filter(condition_a="ca", condition_b="cb", metric=metric).row(0, named=True), want)
        for condition in ("ca", "cb"):
            mean = ref.condition_mean([data(a) for a in answers[condition]], draws, "banerjee", statistic)
            check_row(result.conditions.filter(condition=condition, metric=metric).row(0, named=True), mean)


def test_one_changed_sample_moves_delta_by_one_over_n_seeds(written: tuple[list[Path], dict[str, list[list[str]]]]) -> None:
    """cc is ca with one sample of its first seed changed from empty (F1 0) to the gold (F1 1):
    Δ F1 = 1 / (n · 2 seeds), Δ fix rate the same; the SE is that of the definitions."""
    paths, answers = written
    result = compare_loaded(load_runs(paths), resamples=RESAMPLES, seed=SEED, contrasts=[("ca", "cc")])
    draws = draw_counts(N, RESAMPLES, SEED).astype(float)
    for metric, statistic in STATISTICS.items():
        got = result.paired.filter(condition_a="ca", condition_b="cc", metric=metric).row(0, named=True)
        assert got["delta"] == pytest.approx(1 / (N * 2), rel=1e-12)
        want = ref.contrast([data(a) for a in answers["ca"]], [data(c) for c in answers["cc"]], draws, "welch", statistic)
        check_row(got, want)
