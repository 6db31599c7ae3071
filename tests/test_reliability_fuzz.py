"""Fuzzed input ends in exit 0 with complete outputs or exit 2 with one ``file:line: reason`` line.

Random JSON at every path the reader reads, random bytes, truncation at every offset, BOM/CRLF/blank
lines, a 20 MB line, 100,000 tuples in a row, 20,000-deep nesting: through the Python API (fast, many
examples) and the CLI (a few subprocesses). Never a traceback, a ``RecursionError`` or a partial file.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import strategies as st

from aggregator.outputs.run_files import METADATA_JSON
from scorecards.errors import BadLineError, InputError
from scorecards.reader import read_scorecards
from tests.conftest import CONFORMANCE, run_cli
from tests.outcomes import but_metadata, check_api, check_cli, snapshot
from tests.strategies import (
    FINAL_RESULT,
    READER_PATHS,
    blank_lines,
    damaged_row,
    fuzz_budgets,
    jsonl,
    line_bytes,
    to_line,
    valid_row,
    with_value_at,
)

EDGE = CONFORMANCE / "synth_edge_pub" / "scorecards.jsonl"
FINAL_TUPLES = (*FINAL_RESULT, "final_tuples")

any_line = st.one_of(
    valid_row().map(to_line),
    damaged_row().map(to_line),
    damaged_row().map(lambda row: to_line(row, ascii_only=False)),
    line_bytes,
    blank_lines,
)
files = st.builds(jsonl, st.lists(any_line, min_size=1, max_size=6), bom=st.booleans(), crlf=st.booleans(),
                  final_newline=st.booleans())


def non_blank(data: bytes) -> int:
    """Lines of a file that are not empty or ASCII whitespace (the byte-order mark is no content)."""
    return sum(1 for line in data.removeprefix(b"\xef\xbb\xbf").split(b"\n") if line.strip())


def check_strict_and_skip(data: bytes) -> None:
    """Strict and --skip-bad-lines runs of one file: each ends well, and they agree line by line."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run" / "scorecards.jsonl"
        path.parent.mkdir()
        path.write_bytes(data)
        strict = check_api(path, Path(tmp) / "strict")
        skipping = check_api(path, Path(tmp) / "skip", skip_bad_lines=True)
    if isinstance(skipping, InputError):
        assert isinstance(strict, InputError)
        return
    assert skipping.rows_read == non_blank(data)
    assert skipping.rows_aggregated + skipping.rows_skipped == skipping.rows_read
    aggregated = set(skipping.to_polars().get_column("line").to_list())
    skipped = [bad.line for bad in skipping.skipped_lines]
    assert len(set(skipped)) == len(skipped) and not aggregated & set(skipped)
    if skipped:
        assert isinstance(strict, BadLineError) and strict.bad.line == min(skipped), (strict, skipped)
    else:
        assert not isinstance(strict, InputError) and strict.metrics == skipping.metrics


test_any_file_through_the_api, test_any_file_through_the_api_slow = fuzz_budgets(30, 2000, data=files)(
    check_strict_and_skip
)


def check_cli_agrees_with_api(data: bytes, skip: bool) -> None:
    """A real process on the same file: the same outcome as the API, whole files or one line."""
    options = ["--skip-bad-lines"] if skip else []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run" / "scorecards.jsonl"
        path.parent.mkdir()
        path.write_bytes(data)
        api = check_api(path, Path(tmp) / "api", skip_bad_lines=skip)
        done = run_cli(path, "--outdir", Path(tmp) / "cli", "--quiet", *options)
        outcome = check_cli(done, Path(tmp) / "cli")
        if isinstance(api, InputError):
            assert outcome == str(api)
            return
        by_cli, by_api = snapshot(Path(tmp) / "cli"), snapshot(Path(tmp) / "api")
    assert but_metadata(by_cli) == but_metadata(by_api)
    assert outcome[METADATA_JSON]["skipped_lines"] == [s.model_dump() for s in api.skipped_lines]


test_any_file_through_the_cli, test_any_file_through_the_cli_slow = fuzz_budgets(3, 60, data=files, skip=st.booleans())(
    check_cli_agrees_with_api
)


def check_file_forms(rows: list[object], bom: bool, crlf: bool, final_newline: bool, blanks: list[int]) -> None:
    """BOM, CRLF, blank lines and a missing final newline change no output but run_metadata.json."""
    lines = [to_line(row) for row in rows]
    padded = list(lines)
    for position in sorted(blanks, reverse=True):
        padded.insert(position % (len(padded) + 1), b"  ")
    with tempfile.TemporaryDirectory() as tmp:
        plain, odd = (Path(tmp, name, "run", "scorecards.jsonl") for name in ("plain", "odd"))
        plain.parent.mkdir(parents=True)
        odd.parent.mkdir(parents=True)
        plain.write_bytes(jsonl(lines))
        odd.write_bytes(jsonl(padded, bom=bom, crlf=crlf, final_newline=final_newline))
        check_api(plain, Path(tmp) / "plain-out")
        check_api(odd, Path(tmp) / "odd-out")
        expected, got = snapshot(Path(tmp) / "plain-out"), snapshot(Path(tmp) / "odd-out")
    assert but_metadata(got) == but_metadata(expected)


unique_rows = st.lists(st.text(min_size=1, max_size=6), min_size=1, max_size=5, unique=True).flatmap(
    lambda keys: st.tuples(*(valid_row(key) for key in keys)).map(list)
)
test_bom_crlf_blank_lines_are_fine, test_bom_crlf_blank_lines_are_fine_slow = fuzz_budgets(
    15, 300, rows=unique_rows, bom=st.booleans(), crlf=st.booleans(), final_newline=st.booleans(),
    blanks=st.lists(st.integers(0, 10), max_size=4),
)(check_file_forms)


def truncation_outcomes(data: bytes) -> None:
    """Cut ``data`` (LF lines, each a complete row) at every offset and read it, strict and skipping.

    A cut inside a line leaves that line bad: strict names it, skipping lists it alone; a cut at
    a line end is a shorter valid file; no complete row at all is the "no rows" error.
    """
    full_lines = data.split(b"\n")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scorecards.jsonl"
        path.write_bytes(data)
        for offset in range(len(data), -1, -1):
            os.truncate(path, offset)
            prefix = data[:offset]
            *complete, partial = prefix.split(b"\n")
            number = len(complete) + 1
            whole = partial == full_lines[len(complete)] or not partial.strip()
            rows = sum(1 for line in complete if line.strip()) + (1 if whole and partial.strip() else 0)
            for skip in (False, True):
                try:
                    read = read_scorecards(path, skip_bad_lines=skip, workers=1)
                except BadLineError as exc:
                    assert not skip and not whole and exc.bad.line == number, (offset, exc)
                    continue
                except InputError as exc:
                    assert rows == 0 and "no rows" in str(exc), (offset, exc)
                    continue
                assert len(read.items) == rows, offset
                assert [bad.line for bad in read.skipped] == ([] if whole else [number]), offset


def first_lines(path: Path, count: int) -> bytes:
    return b"\n".join(path.read_bytes().split(b"\n")[:count]) + b"\n"


def test_truncation_at_every_offset() -> None:
    truncation_outcomes(first_lines(EDGE, 4))


@pytest.mark.slow
def test_truncation_at_every_offset_of_real_rows() -> None:
    truncation_outcomes(first_lines(CONFORMANCE / "cr_n50_m1_v2__seed42" / "scorecards.jsonl", 3))


@pytest.mark.parametrize("every", [37, 211])
def test_truncated_files_end_well_through_the_api(tmp_path: Path, every: int) -> None:
    data = first_lines(EDGE, 6)
    for offset in range(0, len(data) + 1, every):
        path = tmp_path / f"cut{offset}" / "scorecards.jsonl"
        path.parent.mkdir()
        path.write_bytes(data[:offset])
        check_api(path, tmp_path / f"out{offset}")


def deep_line(path: tuple[str | int, ...], depth: int) -> bytes:
    row = with_value_at({"meta": {"text_id": "k"}}, path, "DEEP")
    return to_line(row).replace(b'"DEEP"', b"[" * depth + b"]" * depth)


@pytest.mark.parametrize("path", READER_PATHS, ids=lambda p: ".".join(map(str, p)) or "row")
def test_20000_deep_nesting_anywhere_is_one_bad_line(tmp_path: Path, path: tuple[str | int, ...]) -> None:
    file = tmp_path / "scorecards.jsonl"
    file.write_bytes(b'{"meta": {"text_id": "a"}}\n' + deep_line(path, 20_000) + b"\n")
    with pytest.raises(BadLineError) as caught:
        read_scorecards(file, workers=1)
    assert caught.value.bad.line == 2
    skipping = read_scorecards(file, skip_bad_lines=True, workers=1)
    assert len(skipping.items) == 1 and [bad.line for bad in skipping.skipped] == [2]


def test_20000_deep_nesting_through_api_and_cli(tmp_path: Path) -> None:
    file = tmp_path / "scorecards.jsonl"
    file.write_bytes(deep_line(("process_trace", 0, "output"), 20_000) + b"\n")
    assert isinstance(check_api(file, tmp_path / "api"), BadLineError)
    reason = check_cli(run_cli(file, "--outdir", tmp_path / "cli"), tmp_path / "cli")
    assert reason.startswith(f"{file}:1: ") and "nesting too deep" in reason


def read_at_stack_depth(frames: int, file: Path) -> object:
    """Read ``file`` from ``frames`` extra Python frames down: less recursion budget for the decoder."""
    if frames:
        return read_at_stack_depth(frames - 1, file)
    try:
        return read_scorecards(file, workers=1)
    except BadLineError as exc:
        return exc


TRACE_DECODED_TWICE = [("process_trace", 0, "stage"), ("process_trace", 0, "output", "aspect_sentiments", 0, "is_implicit")]


@pytest.mark.parametrize("path", [*TRACE_DECODED_TWICE, ("meta", "x")])
def test_nesting_near_the_recursion_limit_never_raises(tmp_path: Path, path: tuple[str | int, ...]) -> None:
    """Regression: a trace nested just below the decoder's budget used to escape as RecursionError."""
    file = tmp_path / "scorecards.jsonl"
    limit = sys.getrecursionlimit()
    for depth in range(limit - 160, limit + 5):
        file.write_bytes(deep_line(path, depth) + b"\n")
        for frames in (0, 7, 60):
            outcome = read_at_stack_depth(frames, file)
            assert not isinstance(outcome, BadLineError) or "nesting too deep" in outcome.bad.reason, outcome


def test_a_20_mb_term_and_100000_tuples_in_one_row(tmp_path: Path) -> None:
    items = [{"aspect_ref": f"본품#품질{i % 7}", "aspect_term": f"term {i}", "polarity": "pos"} for i in range(100_000)]
    huge = {"aspect_ref": "본품#품질", "aspect_term": "x" * (20 << 20), "polarity": "neg"}
    many = with_value_at({"meta": {"text_id": "many"}, "gold_tuples": items[:10]}, FINAL_TUPLES, items)
    long = {"meta": {"text_id": "long"}, "gold_tuples": [huge], "inputs": {"aspect_sentiments": [huge]}}
    rows = [many, long]
    file = tmp_path / "scorecards.jsonl"
    file.write_bytes(jsonl([to_line(row) for row in rows]))
    result = check_api(file, tmp_path / "out")
    assert not isinstance(result, InputError)
    table = result.to_polars()
    assert table.get_column("n_s2").to_list() == [1, 100_000]
    assert table.get_column("refpol_s2_tp").to_list() == [1, 7]


@pytest.mark.parametrize(
    ("value", "expected"),
    [(2**31 - 1, None), (-(2**31) + 1, None), (2**31, "out of range"), (2**63 - 1, "out of range"),
     (2**64, "out of range")],
)
def test_meta_counts_beyond_int32_are_bad_not_a_crash_or_overflow(
    tmp_path: Path, value: int, expected: str | None
) -> None:
    """Regression: an integer beyond Int64 crashed Polars; two of 2**63 - 1 summed to -2."""
    gold = [{"aspect_ref": "a#b", "polarity": "pos"}]
    rows = [{"meta": {"text_id": key, "invalid_ref_count": value}, "gold_tuples": gold} for key in ("a", "b")]
    file = tmp_path / "scorecards.jsonl"
    file.write_bytes(jsonl([to_line(row) for row in rows]))
    outcome = check_api(file, tmp_path / "out")
    if expected is None:
        assert not isinstance(outcome, InputError)
        assert outcome.metrics["invalid_ref_count_total"] == 2 * value
    else:
        assert isinstance(outcome, BadLineError) and outcome.bad.line == 1 and expected in outcome.bad.reason


def test_a_long_bad_value_gives_a_short_message(tmp_path: Path) -> None:
    file = tmp_path / "scorecards.jsonl"
    file.write_bytes(to_line({"meta": {"text_id": "a"}, "gold_tuples": [{"polarity": "y" * (1 << 20)}]}) + b"\n")
    outcome = check_api(file, tmp_path / "out")
    assert isinstance(outcome, BadLineError) and len(str(outcome)) < len(str(file)) + 200, str(outcome)[:300]
