"""Coverage and false positives of the comparison's intervals on synthetic populations (tests/simulation.py).

Designs: n = 50 samples, 3 and 5 seeds, right-skewed per-sample scores, a seed-level random shift,
Δ = 0 and Δ ≠ 0, for a macro mean and a ratio of sums. Nominal 95% intervals must cover the
truth in at least 93% of replications, for the contrast and for a condition's mean, and at Δ = 0
reject in at most 5% plus two simulation standard errors. The fast version (in CI) uses 1,000
replications per design; ``--run-slow`` runs 4,000 with 2,000 resamples. docs/compare.md
reports the measured table (``python -m tests.simulation``).
"""

from __future__ import annotations

import math

import pytest

from tests.simulation import DESIGNS, Design, simulate

REQUIRED = [d for d in DESIGNS if d.seeds >= 3]


def check(design: Design, replications: int, resamples: int) -> None:
    got = simulate(design, replications=replications, resamples=resamples, seed=DESIGNS.index(design))
    allowed = 0.05 + 2 * math.sqrt(0.05 * 0.95 / replications)
    for metric in ("score", "rate"):
        assert got.contrast_coverage[metric] >= 0.93, (design.name, metric, got)
        assert got.mean_coverage[metric] >= 0.93, (design.name, metric, got)
        if design.delta == 0:
            assert got.rejections[metric] <= allowed, (design.name, metric, got)


@pytest.mark.parametrize("design", REQUIRED, ids=[d.name for d in REQUIRED])
def test_coverage_and_false_positives(design: Design) -> None:
    check(design, replications=1000, resamples=400)


@pytest.mark.slow
@pytest.mark.parametrize("design", REQUIRED, ids=[d.name for d in REQUIRED])
def test_coverage_and_false_positives_large(design: Design) -> None:
    check(design, replications=4000, resamples=2000)
