"""The row fields the legacy columns read (:mod:`aggregator.legacy.columns`), merged into the one
row decoder with the core's and every family's (:mod:`scorecards.schema_merge`). Fields another
family reads are declared with the same type; ``validator``, OV and the stage lists stay raw,
as the script's files copy or count them as they are."""

from __future__ import annotations

from typing import Any

import msgspec

from aggregator.metrics.reads import Items, Obj, RawItems
from scorecards.schema import Key, TupleList


class _Memory(msgspec.Struct, gc=False):
    memory_blocked_episode_n: Any = None
    memory_blocked_advisory_n: Any = None
    memory_block_reason: Any = None


class _Meta(msgspec.Struct, gc=False):
    text_id: Key = None
    case_id: Key = None
    uid: Key = None
    run_id: str | None = None
    input_text: Any = None
    memory: Obj[_Memory] = None
    debate_override_stats: msgspec.Raw = msgspec.Raw()


class _Filtered(msgspec.Struct, gc=False):
    action: Any = None
    drop_reason: Any = None


class _AteDebug(msgspec.Struct, gc=False):
    filtered: Items[_Filtered] = None


class _Inputs(msgspec.Struct, gc=False):
    text: Any = None
    gold_tuples: TupleList = None
    ate_debug: Obj[_AteDebug] = None


class _Ate(msgspec.Struct, gc=False):
    hallucination_flag: Any = None


class _Debate(msgspec.Struct, gc=False):
    override_stats: msgspec.Raw = msgspec.Raw()


class _FinalResult(msgspec.Struct, gc=False):
    final_tuples: TupleList = None
    stage1_tuples: TupleList = None
    final_tuples_pre_review: RawItems = None
    final_tuples_post_review: RawItems = None


class _Flags(msgspec.Struct, gc=False):
    skip_review_flag: Any = None


class _ParsedOutput(msgspec.Struct, gc=False):
    final_result: _FinalResult | None = None
    analysis_flags: Obj[_Flags] = None


class _Runtime(msgspec.Struct, gc=False):
    parsed_output: Obj[_ParsedOutput] = None


class Fields(msgspec.Struct, gc=False):
    text_id: Any = None
    run_id: str | None = None
    gold_tuples: TupleList = None
    meta: _Meta | None = None
    inputs: _Inputs | None = None
    ate: Obj[_Ate] = None
    validator: msgspec.Raw = msgspec.Raw()
    debate: Obj[_Debate] = None
    memory: Obj[_Memory] = None
    atsa: msgspec.Raw = msgspec.Raw()
    atsa_score: msgspec.Raw = msgspec.Raw()
    runtime: _Runtime | None = None
