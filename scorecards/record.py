"""One scorecard row -> one typed :class:`SampleRecord` (identity, three tuple sets, sources)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

import msgspec

from scorecards.errors import INVALID_UTF8, NESTING_TOO_DEEP
from scorecards.schema import (
    TRACE_DECODER,
    TRACE_OUTPUT_DECODER,
    FinalResult,
    Inputs,
    Key,
    Meta,
    ParsedOutput,
    Row,
    Runtime,
    TraceEntry,
    TraceOutput,
    TupleList,
)
from scorecards.tuples import EMPTY, BadTuple, ReadTuples, TupleSet, read_a, read_b

Stage1Source = Literal["stage1_tuples", "process_trace", "final"]
FinalSource = Literal["final_tuples", "final_aspects", "inputs_aspect_sentiments"]

_FINAL_RESULT = "runtime.parsed_output.final_result"
META_COUNT_LIMIT = 2**31 - 1
T = TypeVar("T")


class BadRow(ValueError):
    """A row that breaks the contract (the reader adds file and line)."""


@dataclass(frozen=True, slots=True)
class SampleRecord:
    """What evaluation needs of one scorecard row."""

    run_id: str
    sample_key: str
    split: str
    profile: str | None
    line: int
    gold: TupleSet
    stage1: TupleSet
    final: TupleSet
    stage1_source: Stage1Source
    final_source: FinalSource
    invalid_ref_count: int
    invalid_language_count: int
    invalid_target_count: int
    polarity_defaulted: int
    row: Any = field(default=None, compare=False, repr=False)
    """The decoded row (the typed partial schema in force) for the metric families; None once evaluated."""


def _first_key(*keys: Key) -> str | None:
    for key in keys:
        if key is not None and key != "":
            return str(key)
    return None


def split_text(value: Any) -> str:
    """``meta.split`` as text: a string as is, absent or null as ``""``, anything else as its JSON text."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return msgspec.json.encode(value).decode()


def _meta_int(value: Any, name: str) -> int:
    """An integer count, else 0; a count beyond ±(2**31 - 1) is bad (its sum could overflow Int64)."""
    if type(value) is not int:
        return 0
    if abs(value) > META_COUNT_LIMIT:
        raise BadRow(f"meta.{name} out of range: {value} (at most {META_COUNT_LIMIT} in absolute value)")
    return value


def _read_gold(row: Row, inputs: Inputs, lenient: bool) -> ReadTuples:
    candidates: tuple[tuple[TupleList, str], ...] = (
        (row.gold_tuples, "gold_tuples"),
        (inputs.gold_tuples, "inputs.gold_tuples"),
        (row.gold_triplets, "gold_triplets"),
        (inputs.gold_triplets, "inputs.gold_triplets"),
    )
    for items, path in candidates:
        if items:
            return read_a(items, path, gold=True, skip_empty=path.endswith("gold_triplets"), lenient=lenient)
    return EMPTY


def _decode(decoder: msgspec.json.Decoder[T], raw: msgspec.Raw, where: str) -> T:
    """Decode a raw part of the row kept for later; a wrong type or too deep nesting is a :class:`BadRow`."""
    try:
        return decoder.decode(raw)
    except msgspec.ValidationError as exc:
        raise BadRow(f"{exc} (in `{where}`)") from None
    except RecursionError:
        raise BadRow(f"{NESTING_TOO_DEEP} (in `{where}`)") from None
    except UnicodeDecodeError:
        raise BadRow(INVALID_UTF8) from None


def _trace_entries(raws: tuple[tuple[msgspec.Raw, str], ...]) -> tuple[list[TraceEntry], str] | None:
    """The first non-empty ``process_trace`` value, decoded lazily; None when it is not a list.

    Non-empty is JSON truthiness (not null, false, 0, "", [] or {}); a non-empty value that
    is not a list hides the later locations, as in the research tool.
    """
    for raw, path in raws:
        if not raw:
            continue
        value = _decode(TRACE_DECODER, raw, path)
        if value:
            return (value, path) if isinstance(value, list) else None
    return None


def _read_trace_stage1(raws: tuple[tuple[msgspec.Raw, str], ...], lenient: bool) -> ReadTuples | None:
    """Stage 1 from the first stage1/atsa trace entry with a non-empty ``aspect_sentiments`` list.

    None when there is no such entry. A chosen entry whose items are all empty objects
    gives an empty stage 1 (no further fallback), as in the research tool.
    """
    found = _trace_entries(raws)
    if found is None:
        return None
    entries, path = found
    for index, entry in enumerate(entries):
        if not (isinstance(entry.stage, str) and isinstance(entry.agent, str)):
            continue
        if entry.stage.lower() != "stage1" or entry.agent.lower() != "atsa" or not entry.output:
            continue
        where = f"{path}[{index}].output.aspect_sentiments"
        output = _decode(TRACE_OUTPUT_DECODER, entry.output, where)
        if isinstance(output, TraceOutput) and output.aspect_sentiments:
            return read_a(output.aspect_sentiments, where, lenient=lenient)
    return None


def to_record(row: Row, line: int, default_run_id: str, *, lenient: bool = False) -> SampleRecord:
    """Apply the contract's field paths and fallbacks to a decoded row.

    Raises :class:`BadRow` for a missing sample key or a bad tuple item. ``lenient`` (a caller
    scoring one pipeline output, :mod:`aggregator.legacy`): no sample key is needed (``""``) and
    an unknown polarity reads as ``neutral``.
    """
    meta = row.meta or Meta()
    inputs = row.inputs or Inputs()
    runtime = row.runtime or Runtime()
    parsed = runtime.parsed_output if isinstance(runtime.parsed_output, msgspec.Struct) else ParsedOutput()
    final_result = parsed.final_result or FinalResult()

    sample_key = _first_key(meta.text_id, meta.uid, meta.case_id, runtime.uid)
    if sample_key is None and lenient:
        sample_key = ""
    if sample_key is None:
        raise BadRow("no sample key (meta.text_id, meta.uid, meta.case_id or runtime.uid)")
    try:
        gold = _read_gold(row, inputs, lenient)
        final: ReadTuples = EMPTY
        final_source: FinalSource = "inputs_aspect_sentiments"
        if final_result.final_tuples:
            final = read_a(final_result.final_tuples, f"{_FINAL_RESULT}.final_tuples", lenient=lenient)
            final_source = "final_tuples"
        if not final.tuples and final_result.final_aspects:
            final = read_a(final_result.final_aspects, f"{_FINAL_RESULT}.final_aspects", lenient=lenient)
            final_source = "final_aspects"
        if not final.tuples:
            final = read_a(inputs.aspect_sentiments or [], "inputs.aspect_sentiments", require_term=True,
                           lenient=lenient)
            final_source = "inputs_aspect_sentiments"

        stage1 = read_b(final_result.stage1_tuples or [], f"{_FINAL_RESULT}.stage1_tuples", lenient=lenient)
        stage1_source: Stage1Source = "stage1_tuples"
        if not stage1.tuples:
            traced = _read_trace_stage1(
                (
                    (runtime.process_trace, "runtime.process_trace"),
                    (row.process_trace, "process_trace"),
                    (parsed.process_trace, "runtime.parsed_output.process_trace"),
                ),
                lenient,
            )
            if traced is not None:
                stage1, stage1_source = traced, "process_trace"
            else:
                stage1, stage1_source = ReadTuples(final.tuples, 0), "final"
    except BadTuple as exc:
        raise BadRow(str(exc)) from None

    return SampleRecord(
        run_id=row.run_id or meta.run_id or default_run_id,
        sample_key=sample_key,
        split=split_text(meta.split),
        profile=row.profile or meta.profile,
        line=line,
        gold=gold.tuples,
        stage1=stage1.tuples,
        final=final.tuples,
        stage1_source=stage1_source,
        final_source=final_source,
        invalid_ref_count=_meta_int(meta.invalid_ref_count, "invalid_ref_count"),
        invalid_language_count=_meta_int(meta.invalid_language_count, "invalid_language_count"),
        invalid_target_count=_meta_int(meta.invalid_target_count, "invalid_target_count"),
        polarity_defaulted=gold.polarity_defaulted + final.polarity_defaulted + stage1.polarity_defaulted,
        row=row,
    )
