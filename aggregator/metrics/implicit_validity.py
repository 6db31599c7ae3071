"""Implicit-gold validity and parse failures (DIAGNOSTICS.md family 5).

Over the implicit gold samples (core ``implicit_eligible``: gold has an implicit tuple with
polarity positive, negative or neutral), per sample, False on the other samples:

- ``implicit_coverage_fail``: S2 has no tuple with a basic polarity (``mixed`` does not count);
- ``implicit_null_fail``: some object item of FR.final_tuples or FR.final_aspects has an empty
  ok(``polarity``, else ``label``);
- ``implicit_parse_fail``: flags (top-level ``flags`` when truthy, else ``runtime.flags``) has
  ``parse_failed`` or ``generate_failed`` truthy; or ok(``runtime.error``) is non-empty; or some
  ``process_trace`` entry has a string ``notes`` containing ``atsa_parse`` or ``json_parse``;
- ``implicit_invalid``: any of the three.

Over all rows: ``parse_generate_failed``: top-level ``flags.parse_failed`` or
``flags.generate_failed`` truthy (no ``runtime.flags`` fallback); null when the row has no
top-level ``flags`` object.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

import msgspec
import polars as pl

from aggregator.metrics.family import Family, RowInput
from aggregator.metrics.reads import Items, Obj, first_truthy, objects, ok, raw_truthy, section, truthy
from aggregator.metrics.registry import Metric, Registry
from aggregator.units.sample_counts import BASIC_POLARITIES, Column


class _Flags(msgspec.Struct, gc=False):
    parse_failed: Any = None
    generate_failed: Any = None


class _Runtime(msgspec.Struct, gc=False):
    flags: Obj[_Flags] = None
    error: Any = None


class _Fields(msgspec.Struct, gc=False):
    flags: Obj[_Flags] = None
    runtime: _Runtime | None = None


class _Labelled(msgspec.Struct, gc=False):
    polarity: Any = None
    label: Any = None


class _TraceEntry(msgspec.Struct, gc=False):
    notes: msgspec.Raw = msgspec.Raw()


_LabelledItem: TypeAlias = Obj[_Labelled]
_Trace: TypeAlias = Items[_TraceEntry]
_ITEM_DECODER = msgspec.json.Decoder(_LabelledItem)
_TRACE_DECODER = msgspec.json.Decoder(_Trace)
_STR_DECODER = msgspec.json.Decoder(str)
PARSE_STEMS = (b"atsa", b"json")
PARSE_SUFFIX = b"_parse"
PARSE_NOTES = tuple((stem + PARSE_SUFFIX).decode() for stem in PARSE_STEMS)

COLUMNS = (
    Column("implicit_coverage_fail", "bool", "implicit gold sample whose final set has no positive/negative/neutral tuple"),
    Column("implicit_null_fail", "bool", "implicit gold sample with a final_tuples/final_aspects item without polarity"),
    Column("implicit_parse_fail", "bool", "implicit gold sample whose run flagged a parse/generate failure or error"),
    Column("implicit_invalid", "bool", "implicit gold sample with a coverage, null or parse failure"),
    Column("parse_generate_failed", "bool",
           "top-level flags.parse_failed or flags.generate_failed (null: no top-level flags object)", nullable=True),
)


def _failed(flags: Any) -> bool:
    """``flags.parse_failed`` or ``flags.generate_failed`` truthy (False when ``flags`` is not an object)."""
    flags = section(flags)
    return flags is not None and (truthy(flags.parse_failed) or truthy(flags.generate_failed))


def _null_polarity(items: Sequence[msgspec.Raw] | None) -> bool:
    for raw in items or ():
        item = section(_ITEM_DECODER.decode(raw))
        if item is not None and not ok(first_truthy(item.polarity, item.label)):
            return True
    return False


def _may_name_parse(raw: bytes) -> bool:
    """The raw JSON holds one of the words literally (JSON writers never escape ASCII letters).

    One scan for their common suffix ``_parse``; each hit is checked for one of the stems before it.
    """
    at = raw.find(PARSE_SUFFIX)
    while at >= 0:
        if raw.endswith(PARSE_STEMS, 0, at):
            return True
        at = raw.find(PARSE_SUFFIX, at + 1)
    return False


def _trace_notes_parse(raws: Sequence[msgspec.Raw]) -> bool:
    """The first non-empty ``process_trace`` is a list with an entry whose string ``notes`` names a parse failure.

    Traces are large: the raw bytes are searched first, and decoded only when they may hold such a note.
    """
    for raw in raws:
        if not raw_truthy(raw):
            continue
        data = bytes(raw)
        if not _may_name_parse(data):
            return False
        try:
            value = _TRACE_DECODER.decode(data)
        except RecursionError:  # nesting too deep for Python: the trace is unreadable, so it names no failure
            return False
        for entry in objects(value):
            notes = bytes(entry.notes)
            if notes[:1] == b'"' and _may_name_parse(notes) and any(w in _STR_DECODER.decode(notes) for w in PARSE_NOTES):
                return True
        return False
    return False


def parse_fail(inp: RowInput) -> bool:
    """Family 5 ``parse_fail`` of a row (any row, implicit gold sample or not)."""
    row = inp.row
    runtime = row.runtime
    if _failed(first_truthy(row.flags, runtime.flags if runtime is not None else None)):
        return True
    if runtime is not None and ok(runtime.error):
        return True
    po = section(runtime.parsed_output) if runtime is not None else None
    traces = (runtime.process_trace if runtime is not None else msgspec.Raw(), row.process_trace,
              po.process_trace if po is not None else msgspec.Raw())
    return _trace_notes_parse(traces)


def row(inp: RowInput) -> tuple[object, ...]:
    flags = inp.row.flags
    generated = _failed(flags) if section(flags) is not None else None
    if not inp.values["implicit_eligible"]:
        return False, False, False, False, generated
    coverage = not any(t.polarity in BASIC_POLARITIES for t in inp.record.final)
    runtime = inp.row.runtime
    po = section(runtime.parsed_output) if runtime is not None else None
    fr = po.final_result if po is not None else None
    null = fr is not None and (_null_polarity(fr.final_tuples) or _null_polarity(fr.final_aspects))
    parse = parse_fail(inp)
    return coverage, null, parse, coverage or null or parse, generated


def declare(reg: Registry) -> None:
    from aggregator.metrics.exprs import count, ratio

    eligible = count(pl.col("implicit_eligible"))
    invalid = count(pl.col("implicit_invalid"))
    reg.add(Metric("implicit_invalid_sample_n", "Implicit gold samples with invalid output",
                   "implicit gold samples whose output has a coverage, null or parse failure",
                   "Σ over implicit gold samples of [invalid]", invalid, kind="int", averaging="count",
                   requires_gold=False, higher_is_better=False))
    reg.alias("implicit_invalid_count", "implicit_invalid_sample_n")
    reg.add(Metric("implicit_invalid_pred_rate", "Implicit invalid prediction rate",
                   "share of implicit gold samples whose output has a coverage, null or parse failure",
                   "implicit_invalid_sample_n / implicit_gold_sample_n (0.0 when no implicit gold sample)",
                   pl.when(eligible > 0).then(invalid / eligible).otherwise(0.0), averaging="pooled",
                   blank_when="gold unavailable (0.0 when implicit_gold_sample_n = 0)", higher_is_better=False))
    for kind, what in (("coverage", "no final tuple with a positive/negative/neutral polarity"),
                       ("null", "a final item without polarity"),
                       ("parse", "a parse/generate failure flag, a runtime error or a parse note in the trace")):
        reg.add(Metric(f"implicit_{kind}_fail_rate", f"Implicit {kind} failure rate",
                       f"share of implicit gold samples with {what}",
                       f"Σ [{kind}_fail] / implicit_gold_sample_n",
                       ratio(count(pl.col(f"implicit_{kind}_fail")).cast(pl.Float64), eligible),
                       averaging="pooled", blank_when="implicit_gold_sample_n = 0", higher_is_better=False))
    failed = pl.col("parse_generate_failed")
    reg.add(Metric("parse_generate_failure_rate", "Parse/generate failure rate",
                   "share of all rows whose top-level flags mark a parse or generation failure",
                   "Σ [flags.parse_failed ∨ flags.generate_failed] / N_rows",
                   count(failed) / pl.len(), averaging="pooled", requires_gold=False,
                   higher_is_better=False, present=failed.is_not_null().any()))


FAMILY = Family(
    name="implicit_validity",
    title="Implicit-gold validity and parse failures",
    source="DIAGNOSTICS.md family 5",
    columns=COLUMNS,
    row=row,
    declare=declare,
    fields=_Fields,
)
