"""Bad input (SCORECARDS.md): exit 2, one stderr line naming file:line, nothing written; --skip-bad-lines."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from aggregator.commands.main import cli
from tests.conftest import run_cli, write_lines
from tests.outcomes import but_warnings
from tests.scorecard_rows import dumps, item, row

GOOD = dumps(row("k1", gold=[item("본품#품질", "향")], final=[item("본품#품질", "향")]))
DEEP = 100_000


def final(items: object) -> bytes:
    return dumps({"meta": {"text_id": "k2"}, "runtime": {"parsed_output": {"final_result": {"final_tuples": items}}}}).encode()


def trace(aspect_sentiments: object) -> bytes:
    entry = {"stage": "stage1", "agent": "atsa", "output": {"aspect_sentiments": aspect_sentiments}}
    return dumps({"meta": {"text_id": "k2"}, "process_trace": [entry]}).encode()


# Each value is line 3 of a file whose line 1 is good and line 2 blank; the reason must mention the regex.
BAD_LINES: dict[str, tuple[bytes, str]] = {
    "truncated": (b'{"meta": {"text_id": "k2"', "not valid JSON"),
    "trailing garbage": (b'{"meta": {"text_id": "k2"}} x', "not valid JSON"),
    "invalid utf-8": (b'{"meta": {"text_id": "k2\xff"}}', "invalid UTF-8"),
    "utf-8 encoded surrogate": (b'{"meta": {"text_id": "k2\xed\xa0\x80"}}', "invalid UTF-8"),
    "invalid utf-8 in a skipped field": (b'{"meta": {"text_id": "k2"}, "note": "\xe3\x80"}', "invalid UTF-8 at byte 37"),
    "invalid utf-8 in a tuple term": (final([item("a#b", "x@")]).replace(b"@", b"\xff"), "invalid UTF-8 at byte"),
    "invalid utf-8 in a trace item": (trace([item("a#b", "x@")]).replace(b"@", b"\xc0\xaf"), "invalid UTF-8 at byte"),
    "utf-8 encoded surrogate in a field a family decodes later": (  # grounding reads final_aspects lazily
        dumps({"meta": {"text_id": "k2"}, "runtime": {"parsed_output": {"final_result": {
            "final_aspects": [{"aspect_term": {"": "x@"}}]}}}}).encode().replace(b"@", b"\xed\xa0\x80"),
        "invalid UTF-8 at byte"),
    "cut multi-byte character at line end": ('{"meta": {"text_id": "k2"}} 한'.encode()[:-1], "invalid UTF-8 at byte 28"),
    "escaped lone surrogate": (b'{"meta": {"text_id": "k2\\ud800"}}', "not valid JSON"),
    "NaN": (b'{"meta": {"text_id": "k2"}, "score": NaN}', "not valid JSON"),
    "Infinity": (b'{"meta": {"text_id": "k2"}, "score": Infinity}', "not valid JSON"),
    "-Infinity": (b'{"meta": {"text_id": "k2"}, "score": -Infinity}', "not valid JSON"),
    "nesting too deep": (b'{"meta": {"text_id": "k2"}, "x": ' + b"[" * DEEP + b"]" * DEEP + b"}", "nesting too deep"),
    "array line": (b'[{"meta": {"text_id": "k2"}}]', "not a JSON object"),
    "string line": (b'"k2"', "not a JSON object"),
    "number line": (b"42", "not a JSON object"),
    "null line": (b"null", "not a JSON object"),
    "gold_tuples not a list": (dumps({"meta": {"text_id": "k2"}, "gold_tuples": {"a": 1}}).encode(), r"\$\.gold_tuples"),
    "inputs.gold_triplets not a list": (dumps({"meta": {"text_id": "k2"}, "inputs": {"gold_triplets": "x"}}).encode(),
                                        r"\$\.inputs\.gold_triplets"),
    "final_tuples not a list": (final("x"), r"final_result\.final_tuples"),
    "trace aspect_sentiments not a list": (trace({"a": 1}), "process_trace"),
    "tuple item not an object": (final([item("a#b"), 3]), r"final_tuples\[1\]"),
    "gold item not an object": (dumps({"meta": {"text_id": "k2"}, "gold_tuples": ["본품#품질"]}).encode(), r"gold_tuples\[0\]"),
    "trace item not an object": (trace(["x"]), "process_trace"),
    "aspect_term number": (final([item("a#b", 3)]), r"aspect_term"),
    "aspect_term list": (final([item("a#b", ["x"])]), r"aspect_term"),
    "aspect_term object with number term": (final([item("a#b", {"term": 1})]), r"aspect_term\.term"),
    "aspect_ref number": (final([item(5, "x")]), r"aspect_ref"),
    "aspect_ref object": (final([item({"term": "a#b"}, "x")]), r"aspect_ref"),
    "polarity number": (final([item("a#b", "x", 1)]), r"polarity"),
    "polarity bool": (final([item("a#b", "x", True)]), r"polarity"),
    "label number": (final([{"aspect_ref": "a#b", "label": 0}]), r"label"),
    "unknown polarity": (final([item("a#b", "x", "good")]),
                         r"unknown polarity 'good' at `runtime\.parsed_output\.final_result\.final_tuples\[0\]`"),
    "unknown label": (final([{"aspect_ref": "a#b", "label": "great"}]), "unknown polarity 'great'"),
    "unknown gold polarity": (dumps(row("k2", gold=[item("a#b", "x", "positiv")])).encode(),
                              r"unknown polarity 'positiv' at `gold_tuples\[0\]`"),
    "unknown stage1 polarity": (dumps(row("k2", stage1=[item("a#b", "x", "bad")])).encode(), "unknown polarity 'bad'"),
    "unknown trace polarity": (trace([item("a#b", "x", "meh")]), "unknown polarity 'meh'"),
    "missing sample key": (dumps({"meta": {"input_text": "x"}, "gold_tuples": []}).encode(), "no sample key"),
    "empty sample keys": (dumps({"meta": {"text_id": "", "uid": None}, "runtime": {"uid": ""}}).encode(), "no sample key"),
    "duplicate sample key": (GOOD.encode(), "duplicate sample key 'k1' of run 'the_run' \\(first at line 1\\)"),
    "duplicate via another key field": (dumps({"meta": {"uid": "k1"}}).encode(), "duplicate sample key 'k1'"),
}


def invoke(*args: str | Path) -> Result:
    return CliRunner().invoke(cli, [str(a) for a in args])


def bad_file(tmp_path: Path, line: bytes) -> Path:
    directory = tmp_path / "the_run"
    directory.mkdir()
    return write_lines(directory / "scorecards.jsonl", [GOOD.encode(), b"", line])


def assert_one_error_line(result: Result, prefix: str, reason: str) -> None:
    assert result.exit_code == 2, (result.output, result.exception)
    lines = but_warnings(result.stderr)
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"aggregate: error: {prefix}"), lines[0]
    assert re.search(reason, lines[0][len(f"aggregate: error: {prefix}"):]), lines[0]
    assert result.stdout == ""


@pytest.mark.parametrize("case", list(BAD_LINES))
def test_bad_line_stops_the_run(tmp_path: Path, case: str) -> None:
    line, reason = BAD_LINES[case]
    path = bad_file(tmp_path, line)
    out = tmp_path / "out"
    result = invoke(path, "--outdir", out)
    assert_one_error_line(result, f"{path}:3: ", reason)
    assert not out.exists() and not (path.parent / "derived").exists()


@pytest.mark.parametrize("case", list(BAD_LINES))
def test_skip_bad_lines_skips_and_reports(tmp_path: Path, case: str) -> None:
    line, reason = BAD_LINES[case]
    path = bad_file(tmp_path, line)
    out = tmp_path / "out"
    result = invoke(path, "--outdir", out, "--skip-bad-lines", "--quiet")
    assert result.exit_code == 0, (result.stderr, result.exception)
    lines = but_warnings(result.stderr)
    assert lines[0] == "aggregate: skipped 1 bad line(s):"
    assert lines[1].startswith(f"  {path}:3: ") and re.search(reason, lines[1])
    assert len(lines) == 2
    metadata = json.loads((out / "run_metadata.json").read_text())
    assert (metadata["rows_read"], metadata["rows_aggregated"], metadata["rows_skipped"]) == (2, 1, 1)
    assert metadata["skipped_lines"][0]["line"] == 3
    assert re.search(reason, metadata["skipped_lines"][0]["reason"])


def test_existing_outputs_are_left_untouched(tmp_path: Path) -> None:
    path = bad_file(tmp_path, b"{")
    out = tmp_path / "out"
    out.mkdir()
    (out / "structural_metrics.csv").write_text("old\n")
    assert invoke(path, "--outdir", out).exit_code == 2
    assert [p.name for p in out.iterdir()] == ["structural_metrics.csv"]
    assert (out / "structural_metrics.csv").read_text() == "old\n"


def test_the_first_bad_line_is_named(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", [GOOD, "{", "[]", GOOD])
    assert_one_error_line(invoke(path, "--outdir", tmp_path / "out"), f"{path}:2: ", "not valid JSON")


def test_many_skipped_lines_show_the_first_few_and_list_all(tmp_path: Path) -> None:
    lines = [GOOD] + [f'{{"meta": {{"text_id": "k{i}"}}, "gold_tuples": 1}}' for i in range(2, 10)]
    path = write_lines(tmp_path / "s.jsonl", lines)
    result = invoke(path, "--outdir", tmp_path / "out", "--skip-bad-lines", "--quiet")
    assert result.exit_code == 0
    err = but_warnings(result.stderr)
    assert err[0] == "aggregate: skipped 8 bad line(s):"
    assert [e.split(": ")[0] for e in err[1:6]] == [f"  {path}:{n}" for n in range(2, 7)]
    assert err[6] == "  ... and 3 more (listed in run_metadata.json)" and len(err) == 7
    metadata = json.loads((tmp_path / "out" / "run_metadata.json").read_text())
    assert [s["line"] for s in metadata["skipped_lines"]] == list(range(2, 10))


def test_skip_keeps_the_first_of_duplicate_rows(tmp_path: Path) -> None:
    other = dumps(row("k1", gold=[item("본품#품질", "향")], final=[]))
    path = write_lines(tmp_path / "s.jsonl", [GOOD, other])
    result = invoke(path, "--outdir", tmp_path / "out", "--skip-bad-lines", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["runs"][0]["metrics"]["tuple_f1_s2"] == 1.0


# --- structural problems stay errors -------------------------------------------------------------


@pytest.mark.parametrize("content", [b"", b"\n\n  \n", b"\xef\xbb\xbf", b"\xef\xbb\xbf\r\n"])
@pytest.mark.parametrize("skip", [False, True])
def test_empty_input_is_an_error(tmp_path: Path, content: bytes, skip: bool) -> None:
    path = tmp_path / "scorecards.jsonl"
    path.write_bytes(content)
    result = invoke(path, "--outdir", tmp_path / "out", *(["--skip-bad-lines"] if skip else []))
    assert_one_error_line(result, f"{path}: ", "no rows to aggregate")
    assert not (tmp_path / "out").exists()


def test_only_bad_lines_with_skip_is_an_error(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "s.jsonl", ["{", "[]"])
    result = invoke(path, "--outdir", tmp_path / "out", "--skip-bad-lines")
    assert_one_error_line(result, f"{path}: ", r"no rows to aggregate \(2 bad lines skipped\)")


@pytest.mark.parametrize("skip", [False, True])
def test_run_directory_without_scorecards_is_an_error(tmp_path: Path, skip: bool) -> None:
    (tmp_path / "run").mkdir()
    result = invoke(tmp_path / "run", *(["--skip-bad-lines"] if skip else []))
    assert_one_error_line(result, f"{tmp_path / 'run'}: ", "run directory has no scorecards.jsonl")
    assert not (tmp_path / "run" / "derived").exists()


def test_missing_path_is_an_error(tmp_path: Path) -> None:
    result = invoke(tmp_path / "nope.jsonl", "--outdir", tmp_path / "out")
    assert_one_error_line(result, f"{tmp_path / 'nope.jsonl'}: ", "no such file")


# --- fine input ----------------------------------------------------------------------------------


def test_fine_input_forms_are_accepted(tmp_path: Path) -> None:
    rows = [
        GOOD.encode(),
        b"",
        b"   \t",
        dumps({"meta": {"text_id": "crlf"}, "gold_tuples": [item("본품#품질", "향")]}).encode() + b"\r",
        dumps({"meta": {"text_id": "null_final"}, "runtime": {"parsed_output": {"final_result": None}}}).encode(),
        dumps({"meta": {"text_id": "bare"}}).encode(),
        dumps({"meta": {"text_id": "nulls"}, "inputs": None, "runtime": None, "gold_tuples": None}).encode(),
        dumps({"meta": {"text_id": "long", "input_text": "가" * 400_000}, "gold_tuples": [item("본품#가격", "값")]}).encode(),
    ]
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + b"\n".join(rows))
    result = invoke(path, "--outdir", tmp_path / "out", "--json")
    assert result.exit_code == 0, result.stderr
    [payload] = json.loads(result.stdout)["runs"]
    assert (payload["rows_aggregated"], payload["rows_skipped"]) == (6, 0)
    assert payload["metrics"]["N_gold"] == 3
    assert but_warnings(result.stderr) == []


@pytest.mark.slow
def test_a_line_of_tens_of_megabytes_is_fine(tmp_path: Path) -> None:
    huge = dumps({"meta": {"text_id": "huge", "input_text": "x" * 40_000_000}, "gold_tuples": [item("본품#가격", "값")]})
    path = write_lines(tmp_path / "s.jsonl", [GOOD, huge])
    done = run_cli(path, "--outdir", tmp_path / "out", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["runs"][0]["rows_aggregated"] == 2


# --- a real process prints no traceback ----------------------------------------------------------


@pytest.mark.parametrize("case", ["nesting too deep", "invalid utf-8", "unknown polarity"])
def test_real_process_prints_one_line_without_traceback(tmp_path: Path, case: str) -> None:
    path = bad_file(tmp_path, BAD_LINES[case][0])
    done = run_cli(path, "--outdir", tmp_path / "out")
    assert done.returncode == 2
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith(f"aggregate: error: {path}:3: ")
    assert not (tmp_path / "out").exists()
