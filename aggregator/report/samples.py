"""The sample table's data: per-sample columns as JSON arrays, drawn and filtered in the page.

The payload is columnar (one array per column) so a run of many thousand samples
stays a few bytes per value; the page renders one page of rows at a time. Nothing
depends on the order of the input's lines (no line numbers), so shuffled input gives
the same page. The tuple columns are already canonical JSON text
(:func:`aggregator.sample_counts.tuples_text`) and are spliced in as raw JSON rather
than decoded and encoded again.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec
import polars as pl

from aggregator.per_sample import TRANSITIONS
from aggregator.sample_marks import all_marks
from aggregator.units import UNITS

TUPLE_COLUMNS = {"gold": "gold_tuples", "s1": "stage1_tuples", "s2": "final_tuples"}
DIGITS = 4


def _json(column: pl.Series) -> msgspec.Raw:
    """A column as a JSON array, encoded at once so that its Python list is freed before the next
    one is built (a 50,000-sample run would otherwise hold them all)."""
    return msgspec.Raw(msgspec.json.encode(column.to_list()))


def _raw_json(column: pl.Series) -> msgspec.Raw:
    """A column of JSON texts as one JSON array of them, spliced in as they are.

    (Joined by msgspec rather than by Polars string expressions, whose buffers for a
    50,000-sample run stay with the allocator: about 100 MB more at the peak.)
    """
    return msgspec.Raw(msgspec.json.encode([msgspec.Raw(text) for text in column.to_list()]))


def sample_payload(table: pl.DataFrame, unit_names: Mapping[str, str]) -> dict[str, object]:
    """``{"key", "text", "run"?, "has_gold", "gold", "s1", "s2", "units": {unit: {...}}}``.

    ``run`` is present only when the input holds several runs. Per unit: its display
    ``name``, the ``transition`` of every sample, its F1 at both stages (``DIGITS`` decimals) and
    the ``marks`` of each tuple under the unit (:mod:`aggregator.sample_marks`).
    """
    run_ids = table.get_column("run_id")
    payload: dict[str, object] = {
        "key": _json(table.get_column("sample_key")),
        "text": _json(table.get_column("input_text")),
        "has_gold": _json(table.get_column("has_gold")),
        "transitions": list(TRANSITIONS),
    }
    if run_ids.n_unique() > 1:
        payload["run"] = _json(run_ids)
    payload.update((short, _raw_json(table.get_column(column))) for short, column in TUPLE_COLUMNS.items())
    scores = table.select(
        pl.col(f"{u}_{s}_f1").round(DIGITS).alias(f"{u}_{s}") for u in unit_names for s in ("s1", "s2")
    )
    marks = all_marks(table, [UNITS[unit] for unit in unit_names])  # type: ignore[index]
    payload["units"] = {
        unit: {
            "name": name,
            "transition": _json(table.get_column(f"{unit}_transition")),
            "f1_s1": _json(scores.get_column(f"{unit}_s1")),
            "f1_s2": _json(scores.get_column(f"{unit}_s2")),
            "marks": {stage: msgspec.Raw(msgspec.json.encode(values)) for stage, values in marks[unit].items()},
        }
        for unit, name in unit_names.items()
    }
    return payload
