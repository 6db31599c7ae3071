"""Hypothesis strategies for scorecard rows and files, valid and damaged (see SCORECARDS.md).

- :data:`json_values`: any JSON value (nested containers, unicode, lone surrogates, huge numbers).
- :data:`tuple_items`, :data:`tuple_lists`: tuple items in every historical spelling, all valid.
- :func:`valid_row`: a row with identity, every tuple set in one of its contract locations, a trace.
- :data:`READER_PATHS` and :func:`with_value_at`: every place of a row the reader reads, and a
  copy of a row with any value put at one of them; :func:`damaged_row` draws such a row.
- :func:`to_line`, :func:`plain_line`, :data:`line_bytes`, :data:`blank_lines`, :func:`jsonl`: rows to the bytes of a file.
- :func:`fuzz_budgets`: one property as a quick default test and a larger ``slow`` one (``--run-slow``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorecards.compressed import MAGIC, UNSUPPORTED

Json = Any
Path_ = tuple[str | int, ...]

POLARITY_SPELLINGS = ("positive", "negative", "neutral", "mixed", "pos", "neg", "neu", " POS ", "Mixed", "", None)
REFS = ("본품#품질", " 본품 # 품질 ", "제품 전체#일반", "패키지/구성품#가격", "브랜드", "x#", "#y", "a#b#c", "")
TERMS = ("", " ", "향", "Battery", " battery.", "(BATTERY)", "Screen  Size", "“화면”", "()")

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=12),
    st.sampled_from([p for p in POLARITY_SPELLINGS if p is not None] + list(REFS) + ["good", "\u3000", "\ud800"]),
)
json_values = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=8,
)

term_values = st.one_of(
    st.none(),
    st.sampled_from(TERMS),
    st.builds(lambda term: {"term": term, "span": [0, 1]}, st.one_of(st.none(), st.sampled_from(TERMS))),
)
tuple_items = st.fixed_dictionaries(
    {},
    optional={
        "aspect_ref": st.one_of(st.none(), st.sampled_from(REFS)),
        "term": st.sampled_from(REFS),
        "aspect_term": term_values,
        "opinion_term": st.one_of(st.sampled_from(TERMS), st.builds(lambda t: {"term": t}, st.sampled_from(TERMS))),
        "polarity": st.sampled_from(POLARITY_SPELLINGS),
        "label": st.sampled_from(POLARITY_SPELLINGS),
        "is_implicit": st.booleans(),
        "confidence": st.floats(0, 1),
    },
)
tuple_lists = st.lists(tuple_items, max_size=4)
meta_counts = st.one_of(
    st.integers(-9, 2**31 - 1), st.none(), st.text(max_size=3), st.floats(allow_nan=False, allow_infinity=False)
)
"""``meta.invalid_*_count`` values a row may carry: integers in range count, anything else is 0."""
sample_keys = st.one_of(st.text(min_size=1, max_size=8), st.integers(-(2**63), 2**63 - 1))

FINAL_RESULT: Path_ = ("runtime", "parsed_output", "final_result")
TRACES: tuple[Path_, ...] = (
    ("process_trace",),
    ("runtime", "process_trace"),
    ("runtime", "parsed_output", "process_trace"),
)
TUPLE_LISTS: tuple[Path_, ...] = (
    ("gold_tuples",),
    ("inputs", "gold_tuples"),
    ("gold_triplets",),
    ("inputs", "gold_triplets"),
    (*FINAL_RESULT, "stage1_tuples"),
    (*FINAL_RESULT, "final_tuples"),
    (*FINAL_RESULT, "final_aspects"),
    ("inputs", "aspect_sentiments"),
    *((*trace, 0, "output", "aspect_sentiments") for trace in TRACES),
)
ITEM_FIELDS = ("aspect_ref", "term", "aspect_term", "opinion_term", "polarity", "label", "is_implicit")
IDENTITY: tuple[Path_, ...] = (
    ("meta", "text_id"),
    ("meta", "uid"),
    ("meta", "case_id"),
    ("runtime", "uid"),
    ("run_id",),
    ("meta", "run_id"),
    ("profile",),
    ("meta", "profile"),
    ("meta", "invalid_ref_count"),
    ("meta", "invalid_language_count"),
    ("meta", "invalid_target_count"),
)
READER_PATHS: tuple[Path_, ...] = (
    (),
    ("meta",),
    ("inputs",),
    ("runtime",),
    ("runtime", "parsed_output"),
    FINAL_RESULT,
    *IDENTITY,
    *TRACES,
    *((*trace, 0, field) for trace in TRACES for field in ("stage", "agent", "output")),
    *((*trace, 0) for trace in TRACES),
    *TUPLE_LISTS,
    *((*tuples, 0) for tuples in TUPLE_LISTS),
    *((*tuples, 0, field) for tuples in TUPLE_LISTS for field in ITEM_FIELDS),
    *((*tuples, 0, field, "term") for tuples in TUPLE_LISTS for field in ("aspect_term", "opinion_term")),
)
"""Every path of a row that the reader reads (``()`` is the row itself; ints index lists)."""


def with_value_at(value: Json, path: Path_, new: Json) -> Json:
    """A copy of ``value`` with ``new`` at ``path``; missing or differently typed containers are made."""
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(head, int):
        items = list(value) if isinstance(value, list) else []
        items += [{} for _ in range(head + 1 - len(items))]
        items[head] = with_value_at(items[head], rest, new)
        return items
    obj = dict(value) if isinstance(value, dict) else {}
    obj[head] = with_value_at(obj.get(head), rest, new)
    return obj


def _trace(stage: str, agent: str, items: list[Json]) -> list[Json]:
    """A trace whose first entry may be the stage-1 fallback, then an entry that never is."""
    return [{"stage": stage, "agent": agent, "output": {"aspect_sentiments": items}},
            {"stage": "stage2", "agent": "atsa", "output": {}}]


@st.composite
def valid_row(draw: st.DrawFn, key: Json = None, *, full: bool = False) -> Json:
    """A row the contract accepts. ``full``: every tuple location and every trace is present."""
    key = draw(sample_keys) if key is None else key
    row: Json = with_value_at({}, draw(st.sampled_from(IDENTITY[:4])), key)
    for path in IDENTITY[4:8]:
        if draw(st.booleans()):
            row = with_value_at(row, path, draw(st.sampled_from(["", "run_a", "paper_main", "smoke"])))
    row = with_value_at(row, ("meta", "invalid_ref_count"), draw(meta_counts))
    for path in TUPLE_LISTS[:8]:
        if full or draw(st.booleans()):
            row = with_value_at(row, path, draw(tuple_lists))
    stage = st.sampled_from(["stage1", "Stage1", "stage2"])
    agent = st.sampled_from(["atsa", "ATSA", "ate"])
    for trace in TRACES:
        if full or draw(st.booleans()):
            row = with_value_at(row, trace, _trace(draw(stage), draw(agent), draw(tuple_lists)))
    return row


@st.composite
def damaged_row(draw: st.DrawFn, key: Json = None) -> Json:
    """A full valid row with any JSON value at one of :data:`READER_PATHS`."""
    return with_value_at(draw(valid_row(key, full=True)), draw(st.sampled_from(READER_PATHS)), draw(json_values))


def to_line(row: Json, ascii_only: bool = True) -> bytes:
    """One JSONL line (no newline). Lone surrogates become ``\\udXXX`` escapes (ASCII) or invalid UTF-8."""
    return json.dumps(row, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")


def plain_line(data: bytes) -> bytes:
    """Random bytes as one line of a plain file: no newline, and not opening with a compressed
    format's magic bytes (as a file's first line that would make it a gzip or zstd file, or one not read)."""
    data = data.replace(b"\n", b"")
    return b"x" + data if data.startswith((*MAGIC, *UNSUPPORTED)) else data


line_bytes = st.binary(max_size=48).map(plain_line)
blank_lines = st.sampled_from([b"", b" ", b"\t", b"\r", b"  \r"])


def jsonl(lines: Sequence[bytes], *, bom: bool = False, crlf: bool = False, final_newline: bool = True) -> bytes:
    """The bytes of a file of ``lines``, optionally with a byte-order mark and CRLF line ends."""
    end = b"\r\n" if crlf else b"\n"
    data = end.join(lines) + (end if final_newline and lines else b"")
    return (b"\xef\xbb\xbf" if bom else b"") + data


SLOW_EXAMPLES = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example]


def fuzz_budgets(default: int, slow: int, **strategies: st.SearchStrategy[Any]) -> Callable[[Callable[..., None]], Any]:
    """``@given(**strategies)`` twice: ``default`` examples, and ``slow`` examples marked ``slow``.

    Use as ``test_x, test_x_slow = fuzz_budgets(10, 300, rows=...)(check_x)``.
    """

    def decorate(body: Callable[..., None]) -> tuple[Any, Any]:
        def budget(examples: int) -> Any:
            chosen = settings(max_examples=examples, deadline=None, suppress_health_check=SLOW_EXAMPLES)
            return chosen(given(**strategies)(body))

        return budget(default), pytest.mark.slow(budget(slow))

    return decorate
