"""Agreement across runs (DIAGNOSTICS.md family 17): the same sample in several runs of a merged file.

Per row: ``case_key`` = ``meta.case_id``, else ``meta.text_id``, else ``meta.uid`` (first
truthy; it ignores run id **and** split, unlike the sample key; rows without one are left
out); ``agreement_label`` = the top-level ``final_result.label`` when that object carries a
label, else ``meta.label`` when present (null → ``"None"``), else ``""``; ``risk_id_multiset`` =
the sorted ``risk_id``s of every validator block's ``structural_risks`` (missing id = ``""``).

Rows are grouped by case key over **all** input rows, also under ``--profile`` (quirk Q13);
T = size of the largest group, K = number of groups (a group of one agrees). When T < 2:
the rates are blank, the two eligibility flags False and ``n_trials`` 1. When ``--profile``
matched no row (SCORECARDS.md), the columns are not computed: the same values as T < 2.
Else ``self_consistency_exact``, ``risk_set_consistency``, ``tuple_agreement_rate`` = groups
whose label / risk-id multiset / final EvalTuple set is the same in every row, / K;
``variance`` = ``flip_flop_rate`` = 1 − ``self_consistency_exact``.

Scorecards carry neither a top-level ``final_result`` nor ``meta.label``, so
``self_consistency_exact`` is 1.0 in every real merged run (quirk Q12);
``self_consistency_exact_fixed`` compares the final label that scorecards do carry:
``moderator.final_label``, else ``runtime.parsed_output.final_result.label``.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, TypeAlias

import msgspec
import polars as pl

from aggregator.metrics.family import Family, RowInput
from aggregator.metrics.reads import Items, Obj, first_truthy, objects, section
from aggregator.metrics.registry import Metric, Registry, RunContext
from aggregator.units.sample_counts import Column

KEY = "case_key"
COMPARED = {"label": "agreement_label", "label_fixed": "agreement_label_fixed",
            "risks": "risk_id_multiset", "tuples": "final_tuples"}
Q12 = ("reads a top-level final_result.label / meta.label that scorecards do not carry: 1.0 "
       "(variance and flip-flop 0.0) in every merged run (quirk Q12)")


class _Risk(msgspec.Struct, gc=False):
    risk_id: Any = None


class _Block(msgspec.Struct, gc=False):
    structural_risks: Items[_Risk] = None


_Blocks: TypeAlias = Items[_Block]
_BLOCKS = msgspec.json.Decoder(_Blocks)


class _Labelled(msgspec.Struct, gc=False):
    label: Any = None


class _Meta(msgspec.Struct, gc=False):
    label: Any = msgspec.UNSET


class _Moderator(msgspec.Struct, gc=False):
    final_label: Any = None


class _ParsedOutput(msgspec.Struct, gc=False):
    final_result: _Labelled | None = None


class _Runtime(msgspec.Struct, gc=False):
    parsed_output: Obj[_ParsedOutput] = None


class _Fields(msgspec.Struct, gc=False):
    meta: _Meta | None = None
    final_result: Obj[_Labelled] = None
    validator: msgspec.Raw = msgspec.Raw()
    moderator: Obj[_Moderator] = None
    runtime: _Runtime | None = None


COLUMNS = (
    Column(KEY, "str", "case key: meta.case_id, else meta.text_id, else meta.uid (blank: left out of family 17)",
           nullable=True),
    Column("agreement_label", "label", "label compared across runs: top-level final_result.label, else meta.label, else \"\""),
    Column("agreement_label_fixed", "label",
           "final label compared across runs: moderator.final_label, else runtime.parsed_output.final_result.label"),
    Column("risk_id_multiset", "str", "sorted risk_ids of every validator block, as a JSON list"),
)


def _text(value: Any) -> str:
    """Python's ``str`` of a JSON value (a string as is, null ``None``; lists and objects as JSON text)."""
    if isinstance(value, str):
        return value
    if value is None or isinstance(value, (bool, int, float)):
        return str(value)
    return msgspec.json.encode(value).decode()


def case_key(meta: Any) -> str | None:
    """The case key of a row's ``meta`` (None when it has none)."""
    if meta is None:
        return None
    key = first_truthy(meta.case_id, meta.text_id, meta.uid)
    return None if key is None else _text(key)


def label(data: Any) -> str:
    """The label self-consistency compares (quirk Q12)."""
    final = section(data.final_result)
    if final is not None and final.label is not None:
        return _text(final.label)
    meta = data.meta
    if meta is None or meta.label is msgspec.UNSET:
        return ""
    return _text(meta.label)


def label_fixed(data: Any) -> str:
    """The final label scorecards carry: ``moderator.final_label``, else ``PO.final_result.label``."""
    moderator = section(data.moderator)
    runtime = data.runtime
    parsed = section(runtime.parsed_output) if runtime is not None else None
    final = parsed.final_result if parsed is not None else None
    found = first_truthy(moderator.final_label if moderator is not None else None,
                         final.label if final is not None else None)
    return "" if found is None else _text(found)


def risk_ids(validator: Any) -> str:
    """The sorted risk ids of every block (missing or null id ``""``) as a JSON list."""
    ids = sorted(_text(r.risk_id) if r.risk_id is not None else ""
                 for block in objects(validator) for r in objects(block.structural_risks))
    return msgspec.json.encode(ids).decode()


def row(inp: RowInput) -> tuple[object, ...]:
    data = inp.row
    return (case_key(data.meta), label(data), label_fixed(data), risk_ids(_BLOCKS.decode(data.validator) if data.validator else None))


def _grouped(rows: pl.DataFrame) -> pl.DataFrame | None:
    """Per case key: its size and whether each compared column agrees; None when T < 2.

    Whether any key repeats is asked first: grouping a million single-row cases with four
    distinct counts each held 60 MB more, at the peak of a run, to find that none repeats."""
    keys = rows.get_column(KEY).drop_nulls()
    if keys.n_unique() == keys.len():
        return None
    groups = rows.filter(pl.col(KEY).is_not_null()).group_by(KEY).agg(
        pl.len().alias("size"), *(pl.col(c).n_unique().eq(1).alias(name) for name, c in COMPARED.items())
    )
    if not (groups.get_column("size") >= 2).any():
        return None
    return groups


_last: tuple[weakref.ref[pl.DataFrame], pl.DataFrame | None] | None = None
"""The rows last grouped and their groups: the eleven columns of a run group its rows once."""


def _groups(table: pl.DataFrame, ctx: RunContext) -> pl.DataFrame | None:
    """:func:`_grouped` of all input rows (the table when the context has none); None when not computed."""
    global _last
    if ctx.profile_fallback:
        return None
    rows = ctx.all_rows if ctx.all_rows is not None else table
    last = _last
    if last is not None and last[0]() is rows:
        return last[1]
    groups = _grouped(rows)
    _last = (weakref.ref(rows), groups)
    return groups


def _share(name: str) -> Callable[[pl.DataFrame, RunContext], float | None]:
    def share(table: pl.DataFrame, ctx: RunContext) -> float | None:
        groups = _groups(table, ctx)
        if groups is None:
            return None
        agreed = groups.get_column(name).mean()
        assert isinstance(agreed, float), agreed  # a boolean column's mean over rows
        return agreed

    return share


def _disagreement(name: str) -> Callable[[pl.DataFrame, RunContext], float | None]:
    def disagreement(table: pl.DataFrame, ctx: RunContext) -> float | None:
        agreed = _share(name)(table, ctx)
        return None if agreed is None else 1.0 - agreed

    return disagreement


def _trials(table: pl.DataFrame, ctx: RunContext) -> int:
    groups = _groups(table, ctx)
    if groups is None:
        return 1
    size = groups.get_column("size").max()
    assert isinstance(size, int), size  # a count column over rows
    return size


def _eligible(table: pl.DataFrame, ctx: RunContext) -> bool:
    return _groups(table, ctx) is not None


def declare(reg: Registry) -> None:
    blank = "fewer than two rows share a case key, or --profile matched no row"

    def add(name: str, label: str, meaning: str, formula: str, run_level: Any, **extra: Any) -> None:
        reg.add(Metric(name, label, meaning, formula, None, requires_gold=False, run_level=run_level, **extra))

    add("n_trials", "Runs per case", "T: the most rows sharing one case key (1 for a single run)",
        "max over case keys of the group size", _trials, kind="int", averaging="count")
    for name in ("self_consistency_eligible", "tuple_agreement_eligible"):
        add(name, "Cross-run groups present", "some case key has rows in two or more runs (T ≥ 2)", "T ≥ 2",
            _eligible, kind="bool", averaging="flag")
    label_formula = "groups whose label is the same in every row / groups"
    add("self_consistency_exact", "Self-consistency (compat)", "share of cases whose label is the same in every run",
        label_formula, _share("label"), averaging="pooled", blank_when=blank, higher_is_better=True, compat=Q12)
    add("self_consistency_exact_fixed", "Self-consistency", "share of cases whose final label is the same in every run",
        label_formula + " (label: moderator.final_label, else PO.final_result.label)", _share("label_fixed"),
        averaging="pooled", blank_when=blank, higher_is_better=True, fixes="self_consistency_exact")
    add("risk_set_consistency", "Risk-set consistency", "share of cases whose validator risk ids are the same in every run",
        "groups whose sorted risk_id multiset is the same in every row / groups", _share("risks"),
        averaging="pooled", blank_when=blank, higher_is_better=True)
    add("tuple_agreement_rate", "Tuple agreement", "share of cases whose final tuples are the same in every run",
        "groups whose S2 EvalTuple set is the same in every row / groups", _share("tuples"),
        averaging="pooled", blank_when=blank, higher_is_better=True)
    for name in ("variance", "flip_flop_rate"):
        add(name, "Label flip-flop (compat)", "share of cases whose label differs between runs",
            "1 − self_consistency_exact", _disagreement("label"), averaging="pooled", blank_when=blank,
            higher_is_better=False, compat=Q12)
        add(f"{name}_fixed", "Label flip-flop", "share of cases whose final label differs between runs",
            "1 − self_consistency_exact_fixed", _disagreement("label_fixed"), averaging="pooled",
            blank_when=blank, higher_is_better=False, fixes=name)


FAMILY = Family(
    name="agreement",
    title="Agreement across runs",
    source="DIAGNOSTICS.md family 17",
    columns=COLUMNS,
    row=row,
    declare=declare,
    fields=_Fields,
)
