"""The sample table's data: per-sample columns as JSON arrays, drawn and filtered in the page.

The payload is columnar (one array per column) so a run of many thousand samples
stays a few bytes per value; the page renders one page of rows at a time. Nothing
depends on the order of the input's lines (no line numbers), so shuffled input gives
the same page. The tuple columns are already canonical JSON text
(:func:`aggregator.units.sample_counts.tuples_text`) and are spliced in as raw JSON rather
than decoded and encoded again.

The page stays small whatever the input: :func:`shown_samples` keeps at most
:data:`MAX_SAMPLES` samples, in sample-key order, whose data fit in :data:`MAX_SAMPLE_BYTES`
once encoded; a text longer than :data:`MAX_TEXT` characters (a key, a ref, a term; the
input text: :data:`MAX_INPUT_TEXT`) is cut with ``…`` and a long cell keeps at most
:data:`MAX_TUPLES` tuples. The page says so and
points to ``per_sample.parquet``, which holds every sample in full.
"""

from __future__ import annotations

from collections.abc import Mapping

import msgspec
import polars as pl

from aggregator.outputs.error_views import has_errors
from aggregator.report.error_report import CODES, sample_errors
from aggregator.report.html import script_json
from aggregator.units.projection import TRANSITIONS, UNITS
from aggregator.units.sample_marks import all_marks

TUPLE_COLUMNS = {"gold": "gold_tuples", "s1": "stage1_tuples", "s2": "final_tuples"}
DIGITS = 4
MAX_SAMPLES = 20_000
MAX_SAMPLE_BYTES = 16 << 20
"""The sample table's data in the page at most (with the 0.8 MB of vendored charting code and the
rest of the page, report.html stays well under 25 MB)."""
MAX_TEXT = 200
MAX_INPUT_TEXT = 2_000
MAX_TUPLES = 50
CUT = "…"
_TUPLES = msgspec.json.Decoder(list[list[str]])


def _cut(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + CUT


def _cut_tuples(text: str) -> str:
    """A tuple cell of at most :data:`MAX_TUPLES` tuples of texts of at most :data:`MAX_TEXT` characters."""
    tuples = _TUPLES.decode(text)
    kept = [[_cut(part) for part in triple] for triple in tuples[:MAX_TUPLES]]
    if len(tuples) > MAX_TUPLES:
        kept.append([CUT, f"{len(tuples) - MAX_TUPLES} more tuples in per_sample.parquet", ""])
    return msgspec.json.encode(kept).decode()


def _cut_texts(table: pl.DataFrame) -> tuple[pl.DataFrame, dict[str, list[bool]]]:
    """``table`` with long keys, run ids and input texts cut, and tuple cells of more than
    ``3 × MAX_TUPLES × MAX_TEXT`` characters cut (:func:`_cut_tuples`); and, per tuple column,
    which cells were."""
    limits = {"sample_key": MAX_TEXT, "run_id": MAX_TEXT, "input_text": MAX_INPUT_TEXT}
    table = table.with_columns(
        pl.when(pl.col(c).str.len_chars() > n).then(pl.col(c).str.slice(0, n) + CUT).otherwise(pl.col(c))
        for c, n in limits.items() if c in table.columns
    )
    shortened: dict[str, list[bool]] = {}
    for column in TUPLE_COLUMNS.values():
        long = table.get_column(column).str.len_chars() > 3 * MAX_TUPLES * MAX_TEXT
        shortened[column] = long.to_list()
        if long.any():
            cut = [_cut_tuples(text) if is_long else text for text, is_long in zip(table.get_column(column), long)]
            table = table.with_columns(pl.Series(column, cut, dtype=pl.String))
    return table, shortened


def capped_payload(table: pl.DataFrame, unit_names: Mapping[str, str]) -> tuple[dict[str, object], int]:
    """The page's sample data and how many samples it holds: the first ones in sample-key order
    within :data:`MAX_SAMPLES` and :data:`MAX_SAMPLE_BYTES` (measured encoded), texts cut (module doc)."""
    several_runs = table.get_column("run_id").n_unique() > 1
    count = min(table.height, MAX_SAMPLES)
    while True:
        payload = sample_payload(table.head(count), unit_names, several_runs=several_runs, cut=True)
        size = len(script_json(payload))
        if size <= MAX_SAMPLE_BYTES or count <= 1:
            return payload, count
        count = max(1, min(count - 1, int(count * MAX_SAMPLE_BYTES / size * 0.95)))


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


def sample_payload(
    table: pl.DataFrame, unit_names: Mapping[str, str], *, several_runs: bool | None = None, cut: bool = False
) -> dict[str, object]:
    """``{"key", "text", "run"?, "has_gold", "gold", "s1", "s2", "units": {unit: {...}}}``.

    ``run`` is present only when the input holds several runs (``several_runs``; default: the
    table does). Per unit: its display ``name``, the ``transition`` of every sample, its F1 at
    both stages (``DIGITS`` decimals) and the ``marks`` of each tuple under the unit
    (:mod:`aggregator.units.sample_marks`, of the tuples in full); with the errors family in force its
    ``errors`` (per sample, one letter per error class it has at the final stage under the unit,
    :data:`~aggregator.report.error_report.CODES`, listed in ``error_classes``). ``cut``: long texts
    cut (module doc).
    """
    marks = all_marks(table, [UNITS[unit] for unit in unit_names])
    if cut:
        table, shortened = _cut_texts(table)
        for stages in marks.values():
            for stage, column in TUPLE_COLUMNS.items():
                stages[stage] = [m[:MAX_TUPLES] if short else m for m, short in zip(stages[stage], shortened[column])]
    run_ids = table.get_column("run_id")
    payload: dict[str, object] = {
        "key": _json(table.get_column("sample_key")),
        "text": _json(table.get_column("input_text")),
        "has_gold": _json(table.get_column("has_gold")),
        "transitions": list(TRANSITIONS),
    }
    if several_runs if several_runs is not None else run_ids.n_unique() > 1:
        payload["run"] = _json(run_ids)
    payload.update((short, _raw_json(table.get_column(column))) for short, column in TUPLE_COLUMNS.items())
    scores = table.select(
        pl.col(f"{u}_{s}_f1").round(DIGITS).alias(f"{u}_{s}") for u in unit_names for s in ("s1", "s2")
    )
    errors = has_errors(table)
    units: dict[str, dict[str, object]] = {
        unit: {
            "name": name,
            "transition": _json(table.get_column(f"{unit}_transition")),
            "f1_s1": _json(scores.get_column(f"{unit}_s1")),
            "f1_s2": _json(scores.get_column(f"{unit}_s2")),
            "marks": {stage: msgspec.Raw(msgspec.json.encode(values)) for stage, values in marks[unit].items()},
            **({"errors": msgspec.Raw(msgspec.json.encode(sample_errors(table, unit)))} if errors else {}),
        }
        for unit, name in unit_names.items()
    }
    payload["units"] = units
    if errors:
        payload["error_classes"] = [[code, name] for name, code in CODES.items()]
    return payload
