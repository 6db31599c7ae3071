"""Memory (DIAGNOSTICS.md family 15): episodic memory retrieval and prompt injection.

Per row, ``MEM`` = top-level ``memory``, else ``meta.memory``, else ``{}`` (an object; any
other value reads as ``{}``):

- ``memory_k`` (k) = int ``MEM.retrieved_k`` when non-zero, else the length of
  ``MEM.retrieved_ids`` (0 when it is not a list);
- ``memory_injected`` = ``MEM.exposed_to_debate`` truthy and int ``MEM.prompt_injection_chars`` > 0;
- ``memory_trigger`` = ok(``MEM.injection_trigger_reason``) lower-cased, on injected rows only.

``changed`` here is ``sd_changed`` of family ``stage_change`` (``stage_delta.changed``
truthy), not the core's S1 ≠ S2. Every column is over all rows; only
``memory_used_changed_rate`` can be blank (no injected row).
"""

from __future__ import annotations

from typing import Any

import msgspec
import polars as pl

from aggregator.metrics.family import Family, RowInput
from aggregator.metrics.reads import Obj, as_int, first_truthy, ok, section, truthy
from aggregator.metrics.registry import Averaging, Metric, Registry
from aggregator.units.sample_counts import Column

TRIGGERS = ("conflict", "validator", "alignment", "explicit_grounding_failure")


class _Memory(msgspec.Struct, gc=False):
    retrieved_k: Any = None
    retrieved_ids: Any = None
    exposed_to_debate: Any = None
    prompt_injection_chars: Any = None
    injection_trigger_reason: Any = None


class _Meta(msgspec.Struct, gc=False):
    memory: Obj[_Memory] = None


class _Fields(msgspec.Struct, gc=False):
    memory: Obj[_Memory] = None
    meta: _Meta | None = None


COLUMNS = (
    Column("memory_present", "bool", "MEM (memory, else meta.memory) is an object"),
    Column("memory_k", "int", "k: memory.retrieved_k (else meta.memory) when non-zero, else the number of retrieved_ids"),
    Column("memory_used", "bool", "k > 0: the sample retrieved memory"),
    Column("memory_injected", "bool", "memory exposed to the debate with prompt_injection_chars > 0"),
    Column("memory_trigger", "label", "injection_trigger_reason lower-cased on injected rows (blank otherwise)",
           nullable=True),
)


def memory_of(row: Any) -> Any:
    """MEM: top-level ``memory``, else ``meta.memory``; None (reads as ``{}``) when neither is an object."""
    meta = row.meta
    return section(first_truthy(row.memory, meta.memory if meta is not None else None))


def retrieved(mem: Any) -> int:
    """k of a MEM section (None: 0)."""
    if mem is None:
        return 0
    ids = mem.retrieved_ids
    return as_int(mem.retrieved_k) or (len(ids) if isinstance(ids, list) else 0)


def injected(mem: Any) -> bool:
    """``injected`` of a MEM section (None: False)."""
    return mem is not None and truthy(mem.exposed_to_debate) and as_int(mem.prompt_injection_chars) > 0


def row(inp: RowInput) -> tuple[object, ...]:
    mem = memory_of(inp.row)
    k = retrieved(mem)
    hit = injected(mem)
    trigger = ok(mem.injection_trigger_reason).lower() if hit else None
    return (mem is not None, k, k > 0, hit, trigger)


def declare(reg: Registry) -> None:
    from aggregator.metrics.exprs import count, ratio

    k = pl.col("memory_k").cast(pl.Float64)
    injected_rows = pl.col("memory_injected")
    present = pl.col("memory_present").any()
    rows: list[tuple[str, str, str, str, pl.Expr, Averaging, str]] = [
        ("memory_used_rate", "Memory used rate", "share of rows that retrieved at least one memory",
         "Σ [k > 0] / N_rows", pl.col("memory_used").mean(), "pooled", ""),
        ("memory_retrieval_mean_k", "Memory mean k", "mean number of memories retrieved per row",
         "Σ k / N_rows", k.mean(), "pooled", ""),
        ("memory_retrieval_std_k", "Memory k std", "population standard deviation of k (0.0 with one row)",
         "sqrt(Σ (k − mean k)² / N_rows)", k.std(ddof=0), "pooled", ""),
        ("memory_used_changed_rate", "Injected-and-changed rate",
         "share of rows with memory injected into the prompt whose stage_delta says the output changed",
         "Σ [injected ∧ changed] / Σ [injected]",
         ratio(count(injected_rows & pl.col("sd_changed")), count(injected_rows)), "pooled",
         "no injected row"),
    ]
    for name, label, meaning, formula, expr, averaging, blank in rows:
        reg.add(Metric(name, label, meaning, formula, expr, averaging=averaging, requires_gold=False,
                       blank_when=blank, present=present))
    for trigger in TRIGGERS:
        reg.add(Metric(f"injection_trigger_{trigger}_n", f"Injections for {trigger}",
                       f"rows with memory injected because of {trigger.replace('_', ' ')}",
                       f"Σ [injected ∧ lower(ok(MEM.injection_trigger_reason)) = {trigger}]",
                       count(pl.col("memory_trigger") == trigger), kind="int", averaging="count",
                       requires_gold=False, present=present))


FAMILY = Family(
    name="memory",
    title="Memory",
    source="DIAGNOSTICS.md family 15",
    columns=COLUMNS,
    row=row,
    declare=declare,
    fields=_Fields,
    requires=("stage_change",),
)
