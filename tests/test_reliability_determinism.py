"""Determinism: the same rows in any line order give byte-identical CSV, Markdown, Parquet and HTML.

Only ``run_metadata.json`` differs, and only in what describes the input file and the clock:
``input_sha256`` and the reuse record's ``input_blake3`` (the bytes differ), ``input_path`` and ``seconds``. A merged file, where one
sample key appears once per run, is the case where ties must not fall back to file order.
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path

import polars as pl
from hypothesis import strategies as st

from aggregator.metrics.structural import STRUCTURAL
from aggregator.outputs.run_files import METADATA_JSON
from aggregator.run.per_sample import derive
from tests.conftest import CONFORMANCE, RUNS, run_cli
from tests.outcomes import but_metadata, check_api, check_cli, snapshot
from tests.strategies import fuzz_budgets, jsonl

Files = dict[str, bytes]
SINGLE = (CONFORMANCE / "synth_edge_pub" / "scorecards.jsonl").read_bytes().splitlines()
MERGED = [line for run in ("cr_n50_m0_v2__seed42", "cr_n50_m1_v2__seed42", "cr_n50_m2_v2__seed42")
          for line in (RUNS / run / "scorecards.jsonl").read_bytes().splitlines()]
INPUT_FACTS = {"input_sha256", "input_path", "seconds"}


def outputs_of(lines: list[bytes], directory: Path) -> Files:
    path = directory / "run" / "scorecards.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(jsonl(lines))
    check_api(path, directory / "out")
    return snapshot(directory / "out")


def assert_same_but_input_facts(a: Files, b: Files) -> None:
    assert but_metadata(a) == but_metadata(b)
    meta_a, meta_b = json.loads(a[METADATA_JSON]), json.loads(b[METADATA_JSON])
    assert {k for k in meta_a if meta_a[k] != meta_b[k]} <= INPUT_FACTS | {"reuse"}
    for meta in (meta_a, meta_b):
        del meta["reuse"]["input_blake3"]
    assert meta_a["reuse"] == meta_b["reuse"]


def check_any_order(merged: bool, seed: int) -> None:
    lines = MERGED if merged else SINGLE
    shuffled = random.Random(seed).sample(lines, len(lines))
    with tempfile.TemporaryDirectory() as tmp:
        plain, reordered = outputs_of(lines, Path(tmp) / "plain"), outputs_of(shuffled, Path(tmp) / "shuffled")
    assert_same_but_input_facts(plain, reordered)


test_any_line_order_gives_the_same_files, test_any_line_order_gives_the_same_files_slow = fuzz_budgets(
    4, 100, merged=st.booleans(), seed=st.integers(0, 2**32)
)(check_any_order)


def test_a_merged_file_reversed_gives_the_same_files(tmp_path: Path) -> None:
    """Every tie of a merged file (one key, three runs) is met in the opposite file order."""
    assert_same_but_input_facts(outputs_of(MERGED, tmp_path / "a"), outputs_of(MERGED[::-1], tmp_path / "b"))


def test_the_cli_writes_the_same_files_for_a_shuffled_input(tmp_path: Path) -> None:
    shuffled = list(SINGLE)
    random.Random(7).shuffle(shuffled)
    found = []
    for name, lines in (("plain", SINGLE), ("shuffled", shuffled)):
        path = tmp_path / name / "run" / "scorecards.jsonl"
        path.parent.mkdir(parents=True)
        path.write_bytes(jsonl(lines))
        check_cli(run_cli(path, "--outdir", tmp_path / name / "out", "--quiet", fresh=True), tmp_path / name / "out")
        found.append(snapshot(tmp_path / name / "out"))
    assert_same_but_input_facts(*found)


def test_the_same_input_twice_differs_only_in_timing(tmp_path: Path) -> None:
    first, second = outputs_of(SINGLE, tmp_path / "a"), outputs_of(SINGLE, tmp_path / "b")
    assert_same_but_input_facts(first, second)
    meta_a, meta_b = json.loads(first[METADATA_JSON]), json.loads(second[METADATA_JSON])
    assert meta_a["input_sha256"] == meta_b["input_sha256"]


def test_the_metrics_do_not_depend_on_how_the_table_is_chunked(tmp_path: Path) -> None:
    """Float sums depend on how a column is split into chunks (by Polars' threads, say); the
    derived table is one chunk whatever its counts were, so the metrics are the same bits."""
    path = tmp_path / "run" / "scorecards.jsonl"
    path.parent.mkdir()
    path.write_bytes(jsonl(MERGED))
    from aggregator.run.pipeline import evaluate_run

    counts = evaluate_run(path, workers=1).table
    pieces = pl.concat([counts.slice(start, 7) for start in range(0, counts.height, 7)], rechunk=False)
    assert pieces.n_chunks() > 1
    chunked = derive(pieces)
    assert chunked.n_chunks("all") == [1] * chunked.width
    assert STRUCTURAL.compute(chunked) == STRUCTURAL.compute(derive(counts))
