"""The row fields only the legacy columns read (:mod:`aggregator.legacy.columns`), merged into the one
row decoder (:mod:`scorecards.schema_merge`). The other fields they read are the core's and those of
the families the ``legacy`` family requires (identities and gold lists: the core; ``validator``:
validator; OV: override and debate; ``atsa`` and ``inputs.ate_debug``: grounding; memory: memory;
``stage_delta`` and ``moderator``: stage_change), kept raw there where the files copy them as they are."""

from __future__ import annotations

from typing import Any

import msgspec

from aggregator.metrics.reads import Obj, RawItems


class _Memory(msgspec.Struct, gc=False):
    memory_blocked_episode_n: Any = None
    memory_blocked_advisory_n: Any = None
    memory_block_reason: Any = None


class _Meta(msgspec.Struct, gc=False):
    memory: Obj[_Memory] = None


class _Inputs(msgspec.Struct, gc=False):
    text: Any = None


class _Ate(msgspec.Struct, gc=False):
    hallucination_flag: Any = None


class _FinalResult(msgspec.Struct, gc=False):
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
    meta: _Meta | None = None
    inputs: _Inputs | None = None
    ate: Obj[_Ate] = None
    memory: Obj[_Memory] = None
    runtime: _Runtime | None = None
