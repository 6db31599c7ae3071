"""Typed partial schema of one scorecard row.

Only the fields the metrics read are declared; msgspec skips everything else
without building Python objects. A field of the wrong JSON type is a
``msgspec.ValidationError`` naming its path, which the reader turns into a
``file:line`` error. ``process_trace`` is kept as raw JSON and decoded only when
the stage-1 fallback needs it.
"""

from __future__ import annotations

from typing import Any, Union

import msgspec

Key = Union[str, int, None]


class TermObject(msgspec.Struct, gc=False):
    """``{term, span}`` form of an aspect term, or the legacy ``opinion_term`` object."""

    term: str | None = None


class TupleItem(msgspec.Struct, gc=False):
    """One tuple item as written by a pipeline (any of its historical key spellings)."""

    aspect_ref: str | None = None
    term: str | None = None
    aspect_term: str | TermObject | None = None
    opinion_term: str | TermObject | None = None
    polarity: str | None = None
    label: str | None = None
    is_implicit: Any = None


TupleList = list[msgspec.Raw] | None
"""Tuple items stay raw until a reader needs them: empty objects ``{}`` must be told apart."""


class FinalResult(msgspec.Struct, gc=False):
    stage1_tuples: TupleList = None
    final_tuples: TupleList = None
    final_aspects: TupleList = None


class ParsedOutput(msgspec.Struct, gc=False):
    final_result: FinalResult | None = None
    process_trace: msgspec.Raw = msgspec.Raw()


NotAnObject = Union[list[Any], str, int, float, bool, None]


class Runtime(msgspec.Struct, gc=False):
    uid: Key = None
    parsed_output: ParsedOutput | NotAnObject = None
    process_trace: msgspec.Raw = msgspec.Raw()


class Inputs(msgspec.Struct, gc=False):
    gold_tuples: TupleList = None
    gold_triplets: TupleList = None
    aspect_sentiments: TupleList = None


class Meta(msgspec.Struct, gc=False):
    text_id: Key = None
    uid: Key = None
    case_id: Key = None
    split: Any = None
    run_id: str | None = None
    profile: str | None = None
    invalid_ref_count: Any = None
    invalid_language_count: Any = None
    invalid_target_count: Any = None
    input_text: Any = None


class Row(msgspec.Struct, gc=False):
    """The fields of a scorecard row that evaluation reads."""

    run_id: str | None = None
    profile: str | None = None
    gold_tuples: TupleList = None
    gold_triplets: TupleList = None
    process_trace: msgspec.Raw = msgspec.Raw()
    meta: Meta | None = None
    inputs: Inputs | None = None
    runtime: Runtime | None = None


class TraceOutput(msgspec.Struct, gc=False):
    aspect_sentiments: TupleList = None


class TraceEntry(msgspec.Struct, gc=False):
    stage: Any = None
    agent: Any = None
    output: msgspec.Raw = msgspec.Raw()


ROW_DECODER = msgspec.json.Decoder(Row)
ITEM_DECODER = msgspec.json.Decoder(TupleItem)
TRACE_DECODER = msgspec.json.Decoder(Union[list[TraceEntry], dict[str, Any], str, int, float, bool, None])
TRACE_OUTPUT_DECODER = msgspec.json.Decoder(Union[TraceOutput, NotAnObject])
