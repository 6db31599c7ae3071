"""Degenerate cases a reader must not mistake for findings, named in the notes and in ``--json``.

- ``zero_everywhere`` / ``undefined_everywhere``: metrics that are 0 (or blank) in every run of a
  condition: their mean, SD and interval say nothing about the condition;
- ``identical_runs``: two runs of a condition with the same samples and the same final tuple set
  on every sample: their seeds add no information;
- ``no_common_samples`` / ``small_contrast``: a contrast with no sample, or fewer than
  :data:`~aggregator.compare.contrasts.SMALL`, present in every run of both conditions.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np

from aggregator.compare.contrasts import SMALL

if TYPE_CHECKING:
    import polars as pl

    from aggregator.compare.runs import Run
    from aggregator.compare.samples import SampleCube

SHOWN = 8


def _constant(runs: Sequence[Run], kind: str) -> list[str]:
    names = runs[0].metrics.keys()
    if kind == "undefined_everywhere":
        return [m for m in names if all(r.metrics[m] is None for r in runs)]
    return [m for m in names if all(r.metrics[m] is not None and r.metrics[m] == 0 for r in runs)]


def degenerate_cases(runs: Sequence[Run], conditions: Sequence[str], cube: SampleCube,
                     paired: pl.DataFrame) -> list[dict[str, object]]:
    """Every degenerate case, as JSON-ready dicts with a ``kind``."""
    cases: list[dict[str, object]] = []
    for condition in conditions:
        rows = [i for i, r in enumerate(runs) if r.condition == condition]
        members = [runs[i] for i in rows]
        for kind in ("zero_everywhere", "undefined_everywhere"):
            metrics = _constant(members, kind)
            if metrics:
                cases.append({"kind": kind, "condition": condition, "metrics": metrics})
        for i, j in combinations(rows, 2):
            same = np.array_equal(cube.present[i], cube.present[j]) and np.array_equal(
                cube.final_set[i], cube.final_set[j])
            if same:
                cases.append({"kind": "identical_runs", "condition": condition,
                              "runs": [runs[i].run_id, runs[j].run_id]})
    pairs = paired.select("condition_a", "condition_b", "n_samples").unique(maintain_order=True)
    for a, b, n in pairs.iter_rows():
        if n == 0:
            cases.append({"kind": "no_common_samples", "condition_a": a, "condition_b": b, "n_samples": 0})
        elif n < SMALL:
            cases.append({"kind": "small_contrast", "condition_a": a, "condition_b": b, "n_samples": n})
    return cases


def _listed(items: Sequence[str]) -> str:
    more = f" and {len(items) - SHOWN} more" if len(items) > SHOWN else ""
    return ", ".join(items[:SHOWN]) + more


def degenerate_notes(cases: Sequence[dict[str, object]]) -> list[str]:
    """One sentence per case."""
    notes = []
    for case in cases:
        kind = case["kind"]
        if kind == "zero_everywhere":
            metrics = case["metrics"]
            assert isinstance(metrics, list)
            notes.append(f"{case['condition']}: {len(metrics)} metrics are 0 in every run ({_listed(metrics)}).")
        elif kind == "undefined_everywhere":
            metrics = case["metrics"]
            assert isinstance(metrics, list)
            notes.append(f"{case['condition']}: {len(metrics)} metrics are undefined in every run "
                         f"({_listed(metrics)}).")
        elif kind == "identical_runs":
            runs = case["runs"]
            assert isinstance(runs, list)
            a, b = runs
            notes.append(f"{case['condition']}: runs {a} and {b} are identical (same final tuples on every sample).")
        elif kind == "no_common_samples":
            notes.append(f"{case['condition_b']} vs {case['condition_a']}: no sample is present in every run of both; "
                         "not paired.")
        else:
            notes.append(f"{case['condition_b']} vs {case['condition_a']}: only {case['n_samples']} common samples "
                         f"(< {SMALL}); intervals rest on very few samples.")
    return notes
