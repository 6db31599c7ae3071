"""The input text of each sample, so that a comparison's per-sample view can show what was analysed.

Per sample: ``input_text`` = ``meta.input_text`` when it is a string, else blank. No CSV column.
"""

from __future__ import annotations

from typing import Any

import msgspec

from aggregator.metrics.family import Family, RowInput
from aggregator.metrics.registry import Registry
from aggregator.sample_counts import Column


class _Meta(msgspec.Struct, gc=False):
    input_text: Any = None


class _Fields(msgspec.Struct, gc=False):
    meta: _Meta | None = None


COLUMNS = (Column("input_text", "str", "the sample's input text (meta.input_text; blank when not a string)", nullable=True),)


def row(inp: RowInput) -> tuple[object, ...]:
    meta = inp.row.meta
    text = meta.input_text if meta is not None else None
    return (text if isinstance(text, str) else None,)


def declare(reg: Registry) -> None:
    """No CSV column: the text is shown, never aggregated."""


FAMILY = Family(
    name="sample_text",
    title="Input text",
    source="SCORECARDS.md (meta.input_text), for the comparison's per-sample view",
    columns=COLUMNS,
    row=row,
    declare=declare,
    fields=_Fields,
)
