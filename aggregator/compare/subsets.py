"""``subsets.csv``: the shown metrics per condition within subsets of samples (``--by``).

``--by`` names a per-sample column that is boolean or text (a level per value), or one of the
built-in groupings of :data:`BUILT_IN`. A sample belongs to a level in a run when its row there has
that value (a sample whose gold has several polarities or categories belongs to each of them).
Per level and condition: the samples in the level (``n_samples``, over the condition's runs),
the mean over seeds with its 95% interval, and against the baseline, over the samples in the
level in every run of both, Δ with its interval and p-value — the procedures of
``conditions.csv`` and ``paired.csv``. Levels with fewer than
:data:`~aggregator.compare.contrasts.SMALL` samples are marked ``small``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from aggregator.compare.conditions import ConditionInput, condition_rows
from aggregator.compare.contrasts import SMALL, SampleSplit, contrast_rows, sample_split
from aggregator.compare.resampled import Resampler
from aggregator.stats.compile import compile_metrics
from aggregator.stats.intervals import DEFAULT_METHOD, Method, holm
from aggregator.text import is_text
from scorecards.errors import InputError

if TYPE_CHECKING:
    from aggregator.compare.runs import Run
    from aggregator.compare.samples import SampleCube
    from aggregator.stats.components import ConditionReplicates

MAX_LEVELS = 50
_GOLD = pl.col("gold_tuples").str.json_decode(pl.List(pl.List(pl.String)))
BUILT_IN: dict[str, tuple[str, pl.Expr]] = {
    "gold_explicitness": ("explicit only, implicit only, mixed or no gold", pl.concat_list(
        pl.when((pl.col("n_gold_explicit") > 0) & (pl.col("n_gold_implicit") > 0)).then(pl.lit("mixed"))
        .when(pl.col("n_gold_explicit") > 0).then(pl.lit("explicit"))
        .when(pl.col("n_gold_implicit") > 0).then(pl.lit("implicit"))
        .otherwise(pl.lit("no gold")))),
    "aspect_count": ("single- or multi-aspect gold", pl.concat_list(
        pl.when(pl.col("n_gold") == 1).then(pl.lit("single")).when(pl.col("n_gold") > 1).then(pl.lit("multi"))
        .otherwise(pl.lit("no gold")))),
    "gold_polarity": ("the polarities in the gold", _GOLD.list.eval(pl.element().list.get(2)).list.unique()),
    "aspect_category": ("the entity part (before #) of the gold aspect refs",
                        _GOLD.list.eval(pl.element().list.get(0).str.split("#").list.first().str.strip_chars())
                        .list.eval(pl.element().filter(pl.element() != "")).list.unique()),
}
SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "by": pl.String,
    "level": pl.String,
    "condition": pl.String,
    "metric": pl.String,
    "n_samples": pl.Int64,
    "small": pl.Boolean,
    "n_runs": pl.Int64,
    "mean": pl.Float64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
    "baseline": pl.String,
    "n_paired": pl.Int64,
    "delta": pl.Float64,
    "delta_ci_low": pl.Float64,
    "delta_ci_high": pl.Float64,
    "p_value": pl.Float64,
    "p_holm": pl.Float64,
    "note": pl.String,
}


def level_expr(by: str, table: pl.DataFrame) -> pl.Expr:
    """A list of levels per row; :class:`InputError` when ``by`` is neither built in nor a boolean or text column."""
    if by in BUILT_IN:
        return BUILT_IN[by][1]
    if by not in table.columns:
        known = ", ".join(sorted(BUILT_IN))
        raise InputError(f"--by {by}: no such per-sample column (built in: {known})")
    dtype = table.schema[by]
    if dtype == pl.Boolean:
        return pl.concat_list(pl.when(pl.col(by)).then(pl.lit("True")).when(~pl.col(by)).then(pl.lit("False"))
                              ).list.drop_nulls()
    if is_text(dtype):
        return pl.concat_list(pl.col(by).cast(pl.String)).list.drop_nulls()
    raise InputError(f"--by {by}: a {dtype} column; needs a boolean or text column")


def _levels(runs: Sequence[Run], by: str) -> tuple[list[str], list[pl.Series]]:
    lists = [r.table.select(level_expr(by, r.table).alias("levels")).to_series() for r in runs]
    levels = sorted({v for s in lists for v in s.explode().drop_nulls().to_list()})
    if len(levels) > MAX_LEVELS:
        raise InputError(f"--by {by}: {len(levels)} different values; not a categorical column (at most {MAX_LEVELS})")
    return levels, lists


def subsets_table(resampler: Resampler, cube: SampleCube, rows_of: dict[str, np.ndarray], by: Sequence[str],
                  shown: Sequence[str], baseline: str, *, ddof: int, holm: bool,
                  method: Method = DEFAULT_METHOD) -> pl.DataFrame:
    """All ``--by`` groupings, levels (sorted), conditions and shown metrics."""
    rows: list[dict[str, object]] = []
    computed = resampler.registry.only(shown)  # a level's runs need the shown metrics alone
    for name in by:
        levels, lists = _levels(resampler.runs, name)
        for level in levels:
            masks = [s.list.contains(level).fill_null(False) for s in lists]
            members = [replace(r, table=r.table.filter(m)) for r, m in zip(resampler.runs, masks)]
            members = [replace(r, metrics=computed.compute(r.table)) if r.table.height else r for r in members]
            rows += _level_rows(resampler, cube, rows_of, members, masks, name, level, shown, baseline, ddof, method)
    frame = pl.DataFrame(rows, schema=SCHEMA, orient="row")
    if holm and frame.height:
        adjusted = holm_column(frame.get_column("p_value"))
        frame = frame.with_columns(adjusted.alias("p_holm"))
    return frame


def holm_column(p: pl.Series) -> pl.Series:
    return pl.Series(holm(p.to_numpy().astype(np.float64))).fill_nan(None)


def _level_rows(resampler: Resampler, cube: SampleCube, rows_of: dict[str, np.ndarray], members: list[Run],
                masks: list[pl.Series], by: str, level: str, shown: Sequence[str], baseline: str,
                ddof: int, method: Method) -> list[dict[str, object]]:
    present = np.zeros_like(cube.present)
    positions = []
    for i, (position, mask) in enumerate(zip(resampler.positions, masks)):
        kept = position[mask.to_numpy()]
        present[i, kept] = True
        positions.append(kept)
    non_empty = [r for r in members if r.table.height]
    if not non_empty:
        return []
    weighted = compile_metrics(resampler.registry, non_empty[0].table, shown)
    sub = Resampler(resampler.registry.only(shown), weighted, members, positions, resampler.resamples, resampler.seed)
    metrics = [resampler.registry[m] for m in shown]
    asks = [_ask(condition, rows, members, present, rows_of[baseline], baseline) for condition, rows in rows_of.items()]
    made: dict[tuple[tuple[int, ...], bytes], ConditionReplicates] = {}
    keys_of = [[_key(rows, samples) for rows, samples in ask.replicates] for ask in asks]
    plan = {key: replicate for ask, keys in zip(asks, keys_of) for key, replicate in zip(keys, ask.replicates)}
    uses = Counter(key for keys in keys_of for key in keys)
    out: list[dict[str, object]] = []
    with sub.ahead(list(plan.values())):  # each replicate set made once, in the order first asked, kept while asked
        for ask, keys in zip(asks, keys_of):
            if len(ask.samples) == 0:
                continue
            for key, (rows, samples) in zip(keys, ask.replicates):
                if key not in made:
                    made[key] = sub.condition(rows, samples)
            own, *pair = [made[key] for key in keys]
            uses.subtract(keys)
            for key in keys:
                if uses[key] <= 0:
                    made.pop(key, None)
            runs = [members[i] for i in ask.own]
            summary = condition_rows(resampler.registry, ConditionInput(ask.condition, runs, len(ask.samples), own),
                                     weighted.names, weighted.not_resampled, ddof, metrics=metrics)
            contrast = {}
            if ask.split is not None:
                reps = (pair[0], pair[1]) if pair else None
                contrast = {r["metric"]: r for r in contrast_rows(resampler.registry, (baseline, ask.condition), ask.split,
                                                                   reps, weighted.names, weighted.not_resampled,
                                                                   metrics=metrics, method=method)}
            for row in summary:
                paired = contrast.get(row["metric"], {})
                out.append({
                    "by": by, "level": level, "condition": ask.condition, "metric": row["metric"],
                    "n_samples": len(ask.samples), "small": len(ask.samples) < SMALL, "n_runs": row["n_defined"],
                    "mean": row["mean"], "ci_low": row["ci_low"], "ci_high": row["ci_high"],
                    "baseline": baseline if paired else None, "n_paired": paired.get("n_samples"),
                    "delta": paired.get("delta"), "delta_ci_low": paired.get("ci_low"),
                    "delta_ci_high": paired.get("ci_high"), "p_value": paired.get("p_value"), "p_holm": None,
                    "note": "; ".join(str(n) for n in (row["note"], paired.get("note")) if n) or None,
                })
    return out


@dataclass(frozen=True)
class _Ask:
    """What one condition of a level needs: its runs with rows in the level (``own``), their samples, the split
    against the baseline (None for the baseline) and the replicate sets, in order: its own, then, over the
    samples common with the baseline, the baseline's and its own."""

    condition: str
    own: list[int]
    samples: np.ndarray
    split: SampleSplit | None
    replicates: list[tuple[list[int], np.ndarray]]


def _key(rows: Sequence[int], samples: np.ndarray) -> tuple[tuple[int, ...], bytes]:
    return tuple(rows), samples.tobytes()


def _ask(condition: str, rows: np.ndarray, members: list[Run], present: np.ndarray, baseline_rows: np.ndarray,
         baseline: str) -> _Ask:
    own = [int(i) for i in rows if members[i].table.height]
    samples = np.flatnonzero(present[rows].any(axis=0))
    if len(samples) == 0:
        return _Ask(condition, own, samples, None, [])
    replicates = [(own, samples)]
    split = None
    if condition != baseline:
        split = sample_split(present, baseline_rows, rows)
        if len(split.common):
            replicates += [(baseline_rows.tolist(), split.common), (rows.tolist(), split.common)]
    return _Ask(condition, own, samples, split, replicates)
