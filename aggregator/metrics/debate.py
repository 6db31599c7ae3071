"""Debate mapping and override counters (DIAGNOSTICS.md family 12).

Per row, ``MST`` = ``debate.mapping_stats``, else ``meta.debate_mapping_stats`` (an object;
any other value reads as ``{}``) and ``tot`` = Σ of the int values of **all** its keys. A row
with ``tot > 0`` is *mapped*; for it ``FAIL`` = ``debate.mapping_fail_reasons``, else
``meta.debate_mapping_fail_reasons``. ``OV`` is the override statistics object of
:mod:`aggregator.metrics.override`.

- coverage, direct, fallback and none rates: means over mapped rows of the per-row shares
  (direct + fallback) / tot, direct / tot, fallback / tot, none / tot; blank with no mapped row;
- fail rates: Σ over mapped rows of int ``FAIL.<key>`` / Σ tot; blank with no mapped row;
- override counters: Σ over all rows of int ``OV.applied``, ``OV.skipped_low_signal``,
  ``OV.skipped_conflict``, ``OV.skipped_already_confident``; the already-confident rate is
  its counter over the sum of the four (blank when that sum is 0).
"""

from __future__ import annotations

from typing import Any

import msgspec
import polars as pl

from aggregator.metrics.family import Family, RowInput
from aggregator.metrics.override import override_stats, stat
from aggregator.metrics.reads import Obj, as_int, first_truthy, section
from aggregator.metrics.registry import Metric, Registry
from aggregator.units.sample_counts import Column

SHARES = ("direct", "fallback", "none")
FAILS = ("no_aspects", "no_match", "neutral_stance", "fallback_used")
COUNTERS = ("applied", "skipped_low_signal", "skipped_conflict", "skipped_already_confident")


class _Fail(msgspec.Struct, gc=False):
    no_aspects: Any = None
    no_match: Any = None
    neutral_stance: Any = None
    fallback_used: Any = None


class _Debate(msgspec.Struct, gc=False):
    mapping_stats: Any = None
    mapping_fail_reasons: Obj[_Fail] = None
    override_stats: msgspec.Raw = msgspec.Raw()


class _Meta(msgspec.Struct, gc=False):
    debate_mapping_stats: Any = None
    debate_mapping_fail_reasons: Obj[_Fail] = None
    debate_override_stats: msgspec.Raw = msgspec.Raw()


class _Fields(msgspec.Struct, gc=False):
    debate: Obj[_Debate] = None
    meta: _Meta | None = None


COLUMNS = (
    Column("debate_mapping_present", "bool", "MST (debate.mapping_stats, else meta.debate_mapping_stats) is a non-empty object"),
    Column("debate_map_total", "int", "tot: Σ of the int values of debate.mapping_stats (else meta.debate_mapping_stats)"),
    Column("debate_mapped", "bool", "mapped row: tot > 0"),
    Column("debate_map_covered_share", "float", "(direct + fallback) / tot on mapped rows", nullable=True),
    *(Column(f"debate_map_{key}_share", "float", f"{key} / tot on mapped rows", nullable=True) for key in SHARES),
    *(Column(f"debate_map_fail_{key}", "int", f"int mapping_fail_reasons.{key} on mapped rows (0 otherwise)")
      for key in FAILS),
    *(Column(f"override_stat_{key}", "int", f"int OV.{key} (0 when absent)") for key in COUNTERS),
)


def _pick(debate: Any, meta: Any, debate_key: str, meta_key: str) -> Any:
    """``debate.<debate_key>``, else ``meta.<meta_key>`` (first truthy), else None."""
    return first_truthy(getattr(debate, debate_key) if debate is not None else None,
                        getattr(meta, meta_key) if meta is not None else None)


def row(inp: RowInput) -> tuple[object, ...]:
    data = inp.row
    debate, meta = section(data.debate), data.meta
    mst = _pick(debate, meta, "mapping_stats", "debate_mapping_stats")
    stats = mst if isinstance(mst, dict) else {}
    tot = sum(as_int(v) for v in stats.values())
    ov = override_stats(data)
    counters = tuple(stat(ov, key) for key in COUNTERS)
    if tot <= 0:
        return (bool(stats), tot, False, None, *(None for _ in SHARES), *(0 for _ in FAILS), *counters)
    direct, fallback, none = (as_int(stats.get(key)) for key in SHARES)
    fail = section(_pick(debate, meta, "mapping_fail_reasons", "debate_mapping_fail_reasons"))
    return (
        True,
        tot,
        True,
        (direct + fallback) / tot,
        direct / tot,
        fallback / tot,
        none / tot,
        *(as_int(getattr(fail, key)) if fail is not None else 0 for key in FAILS),
        *counters,
    )


def declare(reg: Registry) -> None:
    from aggregator.metrics.exprs import ratio

    mapped = pl.col("debate_mapped")
    present = pl.col("debate_mapping_present").any()

    def add(name: str, label: str, meaning: str, formula: str, expr: pl.Expr, **extra: Any) -> None:
        reg.add(Metric(name, label, meaning, formula, expr, requires_gold=False, **extra))

    def mapping(name: str, label: str, meaning: str, formula: str, expr: pl.Expr, **extra: Any) -> None:
        add(name, label, meaning, formula, expr, blank_when="no mapped row", present=present, **extra)

    mapping("debate_mapping_coverage", "Debate mapping coverage",
        "mean share of a row's debate rebuttals mapped to an aspect (directly or by fallback)",
        "mean over mapped rows of (direct + fallback) / tot", pl.col("debate_map_covered_share").filter(mapped).mean(),
        averaging="macro", higher_is_better=True)
    for key in SHARES:
        mapping(f"debate_mapping_{key}_rate", f"Debate mapping {key}",
            f"mean share of a row's debate rebuttals mapped {'to no aspect' if key == 'none' else key}",
            f"mean over mapped rows of {key} / tot", pl.col(f"debate_map_{key}_share").filter(mapped).mean(),
            averaging="macro")
    total = pl.col("debate_map_total").filter(mapped).sum()
    for key in FAILS:
        mapping(f"debate_fail_{key}_rate", f"Debate mapping failure: {key}",
            f"mapping failures of kind {key.replace('_', ' ')} per mapped rebuttal",
            f"Σ over mapped rows of FAIL.{key} / Σ tot", ratio(pl.col(f"debate_map_fail_{key}").filter(mapped).sum(), total),
            averaging="pooled", higher_is_better=False)
    for key in COUNTERS:
        add(f"debate_override_{key}", f"Debate override {key.replace('_', ' ')}",
            f"Σ of the debate override counter {key} over all rows", f"Σ int(OV.{key})",
            pl.col(f"override_stat_{key}").sum(), kind="int", averaging="count")
    four = sum((pl.col(f"override_stat_{key}").sum() for key in COUNTERS[1:]), pl.col("override_stat_applied").sum())
    add("debate_override_skipped_already_confident_rate", "Override skipped: already confident",
        "share of override decisions skipped because the label was already confident",
        "skipped_already_confident / (applied + skipped_low_signal + skipped_conflict + skipped_already_confident)",
        ratio(pl.col("override_stat_skipped_already_confident").sum(), four), averaging="pooled",
        blank_when="the four counters sum to 0")


FAMILY = Family(
    name="debate",
    title="Debate mapping and override counters",
    source="DIAGNOSTICS.md family 12",
    columns=COLUMNS,
    row=row,
    declare=declare,
    fields=_Fields,
)
