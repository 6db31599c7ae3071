"""What a reader must know about the inputs, in words: unequal seeds, missing samples, gaps.

Each note is one sentence; :func:`ranked_notes` puts them in the order of what matters most: the
coded warnings (those that make a unit unmeasurable first), skipped inputs, samples missing or
with differing gold, seeds, degenerate cases, undefined metrics, and last the notes that only
say all is well. The terminal prints the first few; ``comparison.md`` and ``--json`` all.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from aggregator.compare.samples import SampleCube, all_equal, split_id
from aggregator.compare.tables import HEADLINE

if TYPE_CHECKING:
    from aggregator.compare.runs import Run

SHOWN = 5


def _listed(items: Sequence[str]) -> str:
    more = f" and {len(items) - SHOWN} more" if len(items) > SHOWN else ""
    return ", ".join(items[:SHOWN]) + more


def _named(split: str, key: str) -> str:
    return f"{split}/{key}" if split else key


def _seeds(runs: Sequence[Run]) -> str:
    seeds = sorted(r.seed for r in runs if r.seed is not None)
    return ", ".join(map(str, seeds)) if seeds else "no seed"


def missing_samples(runs: Sequence[Run], cube: SampleCube) -> pl.DataFrame:
    """Samples absent from some run: ``split``, ``sample_key``, ``n_runs`` (runs that have it),
    ``missing_from`` (run ids)."""
    absent = ~cube.present
    rows = [
        {"split": split_id(key)[0], "sample_key": split_id(key)[1], "n_runs": int(cube.present[:, j].sum()),
         "missing_from": [runs[i].run_id for i in np.flatnonzero(absent[:, j]).tolist()]}
        for j, key in enumerate(cube.keys) if absent[:, j].any()
    ]
    schema: dict[str, pl.DataType | type[pl.DataType]] = {
        "split": pl.String, "sample_key": pl.String, "n_runs": pl.Int64, "missing_from": pl.List(pl.String)}
    return pl.DataFrame(rows, schema=schema, orient="row")


ALL_PRESENT = "samples are present in every run."


def ranked_notes(*groups: Sequence[str]) -> list[str]:
    """The notes of ``groups`` (given from the most to the least important), the notes that only say
    all is well (every sample present) moved last."""
    notes = [note for group in groups for note in group]
    return [n for n in notes if not n.endswith(ALL_PRESENT)] + [n for n in notes if n.endswith(ALL_PRESENT)]


def seed_notes(runs: Sequence[Run], conditions: Sequence[str]) -> list[str]:
    """Unequal run counts, seeds some conditions lack, and seeds used twice in one condition."""
    members = {c: [r for r in runs if r.condition == c] for c in conditions}
    notes = []
    if len({len(m) for m in members.values()}) > 1:
        counts = "; ".join(f"{c}: {len(m)} ({_seeds(m)})" for c, m in members.items())
        notes.append(f"Unequal numbers of runs per condition ({counts}); condition statistics average over "
                     "different numbers of seeds.")
    all_seeds = {r.seed for r in runs if r.seed is not None}
    for condition, group in members.items():
        lacking = sorted(all_seeds - {r.seed for r in group})
        if lacking and len(all_seeds) > 1:
            notes.append(f"{condition} lacks seed(s) {', '.join(map(str, lacking))} that other conditions have.")
        twice = sorted(s for s, n in Counter(r.seed for r in group if r.seed is not None).items() if n > 1)
        if twice:
            notes.append(f"{condition} has seed(s) {', '.join(map(str, twice))} in more than one run.")
        if len(group) == 1:
            notes.append(f"{condition} has one run: no std and no self-consistency.")
    return notes


def sample_notes(runs: Sequence[Run], cube: SampleCube, missing: pl.DataFrame) -> list[str]:
    """Samples missing from some runs, samples without gold, and samples whose gold differs between runs."""
    total = len(cube.keys)
    if missing.height == 0:
        notes = [f"All {total} {ALL_PRESENT}"]
    else:
        shown = [f"{_named(row['split'], row['sample_key'])} (missing from {len(row['missing_from'])} run(s))"
                 for row in missing.iter_rows(named=True)]
        notes = [f"{missing.height} of {total} samples are missing from some runs: {_listed(shown)}. Paired statistics and flips use the samples "
                 "present in both conditions (n_only_a / n_only_b count the others); a sample's score in a "
                 "condition is its mean over the runs that have it."]
    no_gold = cube.present & ~cube.counts
    if no_gold.any():
        notes.append(f"{int(no_gold.any(axis=0).sum())} samples have no gold in some run: they count in the run "
                     "metrics as the core defines, but not in paired statistics, flips or correctness agreement.")
    differs = ~all_equal(cube.gold_set, cube.present)
    if differs.any():
        keys = [_named(*split_id(cube.keys[j])) for j in np.flatnonzero(differs)]
        notes.append(f"Gold differs between runs for {len(keys)} samples: {_listed(keys)}.")
    return notes


def metric_notes(runs: Sequence[Run]) -> list[str]:
    """Headline metrics that are blank (undefined) in every run, or in some runs."""
    blank = {m: [r.run_id for r in runs if r.metrics[m] is None] for m in HEADLINE}
    everywhere = [m for m, ids in blank.items() if len(ids) == len(runs)]
    notes = [f"Undefined in every run: {', '.join(everywhere)}."] if everywhere else []
    for metric, ids in blank.items():
        if ids and metric not in everywhere:
            notes.append(f"{metric} is undefined in {len(ids)} run(s) ({_listed(ids)}); condition statistics "
                         "use the runs where it is defined.")
    return notes
