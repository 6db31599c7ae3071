"""Memory and report size at scale (issue #17, item 10): the correctness side.

How much memory 1,000,000 rows take is measured by ``benchmarks/bench_scale.py`` (numbers in
``benchmarks/RESULTS.md``, never in a timed test). Here: the bounded design gives the same
table as rows built one by one (blocks, ranges, duplicates found in Polars), and
``report.html`` stays small whatever the input, saying when its sample table is capped.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import aggregator.report.samples as samples
import scorecards.chunks
import scorecards.inputs
import scorecards.reader
from aggregator.report.html import script_json
from aggregator.report.run_report import run_report
from aggregator.run.pipeline import evaluate_run
from aggregator.run.sample_values import SampleEvaluator, columns_for, dtype_of, duplicates, frame_of, pack_rows
from aggregator.units.projection import UNITS
from aggregator.units.sample_counts import Column
from benchmarks.bench_scale import long_term, tiny_rows
from scorecards.read_result import _duplicates
from tests.conftest import RUNS, run_cli
from tests.scorecard_rows import evaluate_rows, item, row

REPORT_LIMIT = 25 << 20


def report_samples(page: bytes) -> dict[str, object]:
    text = page.decode("utf-8")
    block = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', text, re.S)
    assert block is not None
    return json.loads(block.group(1))["samples"]


def test_blocks_and_ranges_give_the_table_of_rows_built_one_by_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of 7 rows over ranges of about 64 KB (many per process) against the defaults, in one process."""
    source = RUNS / "cr_n50_m1_v2__seed42"
    whole = evaluate_run(source, workers=1)
    monkeypatch.setattr(scorecards.chunks, "PACK_ROWS", 7)
    monkeypatch.setattr(scorecards.inputs, "MIN_PART_BYTES", 1 << 14)
    monkeypatch.setattr(scorecards.inputs, "MAX_PART_BYTES", 1 << 16)
    blocks = evaluate_run(source, workers=2)
    assert blocks.workers == 2
    assert blocks.table.equals(whole.table) and blocks.metrics == whole.metrics


def test_small_ranges_are_loaded_together(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ranges of a few rows each are made frames in groups of at least PACK_ROWS rows, not one frame a range."""
    source = RUNS / "cr_n50_m1_v2__seed42"
    monkeypatch.setattr(scorecards.inputs, "MIN_PART_BYTES", 1 << 14)
    monkeypatch.setattr(scorecards.inputs, "MAX_PART_BYTES", 1 << 16)
    monkeypatch.setattr(scorecards.chunks, "PACK_ROWS", 20)
    monkeypatch.setattr(scorecards.reader, "PACK_ROWS", 20)
    loads: list[int] = []
    real_load = SampleEvaluator.load
    monkeypatch.setattr(SampleEvaluator, "load", lambda self, blocks: loads.append(len(blocks)) or real_load(self, blocks))
    evaluate_run(source, workers=2)
    assert max(loads) > 1 and len(loads) <= 50 // 20 + 1


CELL = st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**63 - 1), st.floats(allow_nan=True))


LABEL = st.one_of(st.none(), st.sampled_from(["a", "b", "="]))
VOCABULARY = ("x", "y")


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.tuples(st.text(max_size=3), CELL, CELL, CELL, LABEL, st.sampled_from(VOCABULARY)), max_size=12),
       cut=st.integers(1, 5))
def test_blocks_load_as_their_values_one_by_one(rows: list[tuple[object, ...]], cut: int) -> None:
    """Arrays and lists (values that fit no array) of several blocks give the frame of the values
    built one by one with the table's types (labels as a Categorical, closed ones as an Enum)."""
    columns = (Column("s", "str", ""), Column("i", "int", ""), Column("b", "bool", ""), Column("f", "float", ""),
               Column("l", "label", "", nullable=True), Column("e", "label", "", values=VOCABULARY))
    rows = [(s, i if not isinstance(i, float) else None, b, f, label, e) for s, i, b, f, label, e in rows]
    blocks = [pack_rows(rows[start:start + cut], columns) for start in range(0, len(rows), cut)] or [pack_rows([], columns)]
    expected = pl.DataFrame([pl.Series(c.name, [r[k] for r in rows], dtype=dtype_of(c), strict=False)
                             for k, c in enumerate(columns)])
    frame = frame_of(blocks, columns)
    assert frame.equals(expected)
    assert frame.get_column("l").dtype == pl.Categorical and frame.get_column("e").dtype == pl.Enum(VOCABULARY)


def test_a_value_outside_a_closed_label_is_an_error_not_a_null() -> None:
    column = Column("e", "label", "", values=VOCABULARY)
    with pytest.raises(pl.exceptions.InvalidOperationError):
        frame_of([pack_rows([("x",), ("z",)], (column,))], (column,))


def test_labels_are_held_small_and_written_as_their_text(tmp_path: Path) -> None:
    """A label takes at most 4 bytes a row in memory (a str 16); per_sample.csv holds its text,
    per_sample.parquet the same values, and --spreadsheet-safe guards a label as any text."""
    rows = [row(f"k{i}", gold=[item("본품#일반", "a")], final=[item("본품#일반", "a")], profile="=cmd" if i % 2 else "p")
            for i in range(4000)]
    evaluation = evaluate_rows(tmp_path / "run", rows)
    table = evaluation.table
    labels = {c.name for c in columns_for(None) if c.kind == "label"} | {f"{u}_transition" for u in UNITS}
    assert labels <= set(table.columns)
    for name in labels:
        column = table.get_column(name)
        assert column.dtype == pl.Categorical or isinstance(column.dtype, pl.Enum), name
        assert column.to_physical().dtype in (pl.UInt8, pl.UInt16, pl.UInt32), name
    assert run_cli(tmp_path / "run", "--outdir", tmp_path / "out", "--quiet").returncode == 0
    written = pl.read_csv(tmp_path / "out" / "per_sample.csv", infer_schema=False)
    assert written.get_column("profile").to_list() == table.get_column("profile").to_list()
    assert written.get_column("refpol_transition").to_list() == ["keep"] * 4000
    stored = pl.read_parquet(tmp_path / "out" / "per_sample.parquet")
    assert stored.select(pl.col(sorted(labels)).cast(pl.String)).equals(table.select(pl.col(sorted(labels)).cast(pl.String)))
    assert run_cli(tmp_path / "run", "--outdir", tmp_path / "safe", "--quiet", "--spreadsheet-safe").returncode == 0
    guarded = pl.read_csv(tmp_path / "safe" / "per_sample.csv", infer_schema=False).get_column("profile")
    assert set(guarded.to_list()) == {"'=cmd", "p"}


IDENTITY = st.tuples(st.sampled_from(["r1", "r2"]), st.sampled_from(["", "test"]), st.sampled_from(["a", "b", "c", "d"]))


@settings(max_examples=60, deadline=None)
@given(ids=st.lists(IDENTITY, max_size=30), excluded=st.sets(st.integers(1, 30), max_size=5), cut=st.integers(1, 10))
def test_duplicates_found_in_polars_equal_those_found_row_by_row(
    ids: list[tuple[str, str, str]], excluded: set[int], cut: int
) -> None:
    rows = [(run, split, key, line) for line, (run, split, key) in enumerate(ids, 1)]
    frame = pl.DataFrame({"run_id": [r for r, *_ in ids], "split": [s for _, s, _ in ids],
                          "sample_key": [k for *_, k in ids]}, schema={c: pl.String for c in ("run_id", "split", "sample_key")})
    frames = [frame.slice(start, cut) for start in range(0, len(ids), cut)]
    found, kept = duplicates(frames, [line for *_, line in rows], excluded)
    expected, expected_kept = _duplicates(rows, excluded)
    assert found == expected
    assert (None if kept is None else kept.to_list()) == expected_kept


def test_the_sample_table_is_capped_and_says_so(tmp_path: Path) -> None:
    """25,000 samples: the page holds the first 20,000 and points to per_sample.parquet for all."""
    path = tiny_rows(samples.MAX_SAMPLES + 5_000, tmp_path / "scorecards.jsonl")
    done = run_cli(path, "--outdir", tmp_path / "out", "--quiet")
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "out" / "report.html").read_bytes()
    shown = report_samples(page)["key"]
    assert len(shown) == samples.MAX_SAMPLES and shown == sorted(shown)
    assert "This table shows the first 20,000 of 25,000 samples" in page.decode()
    assert "<code>per_sample.parquet</code>" in page.decode()
    assert pl.read_parquet(tmp_path / "out" / "per_sample.parquet").height == 25_000


def test_a_huge_term_is_cut_in_the_report_and_whole_in_the_tables(tmp_path: Path) -> None:
    """One 3 MB term in gold, stage 1 and final (a 200 MB one wrote a 630 MB report)."""
    path = long_term(3, tmp_path / "scorecards.jsonl")
    evaluation = evaluate_run(path, workers=1)
    page = run_report(evaluation)
    assert len(page) < 2 << 20
    gold = report_samples(page)["gold"][0]
    assert gold[0][1].endswith("…") and len(gold[0][1]) == samples.MAX_TEXT + 1
    assert len(evaluation.table.get_column("gold_tuples")[0]) > 1_000_000


def test_many_tuples_in_one_cell_are_cut_with_a_count(tmp_path: Path) -> None:
    tuples = [[f"ref{i}", "x" * 150, "positive"] for i in range(400)]
    table = pl.DataFrame({"sample_key": ["k"], "run_id": ["r"], "gold_tuples": [json.dumps(tuples)],
                          "stage1_tuples": ["[]"], "final_tuples": ["[]"]})
    cut, shortened = samples._cut_texts(table)
    cell = json.loads(cut.get_column("gold_tuples")[0])
    assert shortened["gold_tuples"] == [True] and shortened["final_tuples"] == [False]
    assert len(cell) == samples.MAX_TUPLES + 1 and cell[-1][1] == f"{400 - samples.MAX_TUPLES} more tuples in per_sample.parquet"


@settings(max_examples=15, deadline=None)
@given(key=st.text(st.sampled_from("<>&\"\\\x01a가"), min_size=1, max_size=400), rows=st.integers(1, 400))
def test_the_byte_budget_holds_for_texts_that_grow_when_escaped(key: str, rows: int) -> None:
    """Keys made of characters JSON and the page escape six-fold still fit the budget (here 40 KB)."""
    budget = 40 << 10
    table = pl.DataFrame({
        "sample_key": [f"{key}{i}" for i in range(rows)], "run_id": ["r"] * rows, "input_text": [key * 3] * rows,
        **{c: [json.dumps([["<&>", key, "positive"]])] * rows for c in samples.TUPLE_COLUMNS.values()},
        "has_gold": [True] * rows,
    })
    old = samples.MAX_SAMPLE_BYTES
    samples.MAX_SAMPLE_BYTES = budget
    try:
        payload, count = samples.capped_payload(table, {})
    finally:
        samples.MAX_SAMPLE_BYTES = old
    assert 1 <= count <= rows
    assert count == 1 or len(script_json(payload)) <= budget


def test_a_real_report_stays_far_under_the_limit() -> None:
    page = run_report(evaluate_run(RUNS / "cr_n50_m1_v2__seed42", workers=1))
    assert len(page) < REPORT_LIMIT and b"samples-capped" not in page
