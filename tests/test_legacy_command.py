"""``aggregate legacy`` on the paths the shared cases do not reach (LEGACY.md sections 2, 3, 5, 6, 9, 10):
argument and input errors, limits, file names, the order of rows and the atomic write."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.legacy_runner import run_in_process
from tests.scorecard_rows import item, row, write_rows

GOLD = [item("본품#품질", "맛", "positive")]


def rows_with_keys(*keys: str, **top: object) -> list[dict[str, object]]:
    return [row(key, gold=GOLD, stage1=[item("본품#품질", "맛", "positive")], final=[item("본품#품질", "맛", "negative")],
                **top) for key in keys]


def scorecards(tmp_path: Path, rows: list[dict[str, object]]) -> Path:
    write_rows(tmp_path / "run" / "scorecards.jsonl", rows)
    return tmp_path / "run"


def triptych_rows(data: bytes, delimiter: str = ",") -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(data.decode("utf-8"), newline=""), delimiter=delimiter))


def files_under(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize("args", [
    [], ["--input", "x", "--triptych_include_text", "2"], ["--input", "x", "--triptych_sample_n", "1.5"],
    ["--input", "x", "--bogus"], ["--input", "x", "--sanity-mode", "all"], ["--input", "x", "--profile", "other"],
])
def test_argument_errors_exit_2_before_reading(tmp_path: Path, args: list[str]) -> None:
    done = run_cli("legacy", *args, "--outdir", "out", cwd=tmp_path)
    assert done.returncode == 2
    assert "usage: aggregate legacy" in done.stderr
    assert files_under(tmp_path) == set()


def test_bad_input_is_one_line_and_nothing_written(tmp_path: Path) -> None:
    run = scorecards(tmp_path, rows_with_keys("a"))
    with open(run / "scorecards.jsonl", "a", encoding="utf-8") as handle:
        handle.write('{"meta": {"text_id": "b"}, "gold_tuples": [{"aspect_ref": "본품#품질", "polarity": "great"}]}\n')
    done = run_cli("legacy", "--input", "run/scorecards.jsonl", "--outdir", "out/metrics", "--diagnostics_dir", "diag",
                   cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "run/scorecards.jsonl:2: " in done.stderr
    assert files_under(tmp_path) == {"run/scorecards.jsonl"}
    (run / "scorecards.jsonl").write_text("")
    assert run_cli("legacy", "--input", "run/scorecards.jsonl", cwd=tmp_path).returncode == 2
    assert run_cli("legacy", "--input", "run/missing.jsonl", cwd=tmp_path).returncode == 2


def test_never_writes_over_its_input_and_writes_all_or_nothing(tmp_path: Path) -> None:
    run = scorecards(tmp_path, rows_with_keys("a", "b"))
    before = (run / "scorecards.jsonl").read_bytes()
    done = run_cli("legacy", "--input", "run", "--outdir", "out/metrics", "--export_triptych_table",
                   "run/scorecards.jsonl", cwd=tmp_path)
    assert done.returncode == 2 and "is the input" in done.stderr
    assert done.stderr.rstrip().endswith("choose another directory with --outdir (or the option that names this file)")
    assert (run / "scorecards.jsonl").read_bytes() == before
    (tmp_path / "taken" / "snapshot.json").mkdir(parents=True)  # a folder where a file goes
    done = run_cli("legacy", "--input", "run", "--outdir", "out/metrics", "--snapshot_eval_inputs",
                   "taken/snapshot.json", "--log_tuple_sources", "log.tsv", cwd=tmp_path)
    assert done.returncode == 2
    assert files_under(tmp_path) == {"run/scorecards.jsonl"}


def test_file_names_limits_and_the_later_of_two_paths(tmp_path: Path) -> None:
    run = scorecards(tmp_path, rows_with_keys("k1", "k2", "k3", "k4", "k5"))
    status, _ = run_in_process([
        "--input", str(run), "--outdir", "o/metrics/.", "--export_triptych_table=t.CSV", "--triptych_sample_n", "-1",
        "--export_triptych_risk_details", "risk.jsonl", "--snapshot_e", "same.out", "--snapshot_sample_n", " -2",
        "--log_tuple_sources", "same.out", "--log_sample_n", "+01"], tmp_path)
    assert status == 0
    assert files_under(tmp_path) - {"run/scorecards.jsonl"} == {
        "t.CSV", "risk.jsonl", "same.out", "o/stage_summary.csv", "o/stage_summary.md",
        "o/metrics/structural_metrics.csv", "o/metrics/structural_metrics_table.md"}
    assert len(triptych_rows((tmp_path / "t.CSV").read_bytes())) == 5  # a negative limit: all rows
    assert (tmp_path / "risk.jsonl").read_text().count("\n") == 5
    snapshot = json.loads((tmp_path / "same.out").read_text())  # written after the log: it wins
    assert [s["text_id"] for s in snapshot["samples"]] == ["k1", "k2", "k3"]  # all but the last 2
    for name, delimiter in (("t.tsv", "\t"), ("t.txt", "\t"), ("t", "\t"), (".csv", "\t"), ("T.Csv", ",")):
        status, _ = run_in_process(["--input", str(run), "--outdir", "plain", "--export_triptych_table", name,
                                    "--triptych_sample_n", "2", "--triptych_include_text", "0"], tmp_path)
        assert status == 0
        table = triptych_rows((tmp_path / name).read_bytes(), delimiter)
        assert len(table) == 2 and len(table[0]) == 72
    assert {"plain/stage_summary.csv", "plain/structural_metrics.csv"} <= files_under(tmp_path)
    status, _ = run_in_process(["--input", str(run), "--outdir", "metrics"], tmp_path)
    assert status == 0 and (tmp_path / "stage_summary.md").exists()


def test_legacy_row_order_keeps_file_order_within_a_key(tmp_path: Path) -> None:
    rows = [row("b", meta={"split": "test", "run_id": "r1"}), row("a", meta={"split": "valid"}),
            row("b", meta={"split": "valid", "run_id": "r2"}), {"meta": {"uid": "a0"}, "text_id": 7}]
    write_rows(tmp_path / "in.jsonl", rows)
    status, _ = run_in_process(["--input", "in.jsonl", "--export_triptych_table", "t.csv", "--log_tuple_sources",
                                "log.tsv"], tmp_path)
    assert status == 0
    table = triptych_rows((tmp_path / "t.csv").read_bytes())
    assert [(r["text_id"], r["uid"], r["run_id"]) for r in table] == [("a", "", ""), ("7", "a0", ""),
                                                                       ("b", "", "r1"), ("b", "", "r2")]
    log = (tmp_path / "log.tsv").read_text().split("\n")
    assert log[2].split("\t") == ["7", "final_tuples", "0", "inputs.aspect_sentiments", "0", "", "0"]


def test_stage_rows_skip_review_and_post_review(tmp_path: Path) -> None:
    final = [item("본품#품질", "맛", "positive"), item("", "향", "pos")]
    post = [item("본품#품질", "맛", "positive"), item("본품#품질", "향", "negative"), {}, "text"]
    first = row("a", meta={"run_id": "exp_m1_x"}, final=final)
    first["runtime"]["parsed_output"]["final_result"]["final_tuples_post_review"] = post
    second = row("b", final=final, stage1=[item(None, "맛", "positive")])
    second["runtime"]["parsed_output"]["final_result"]["final_tuples_pre_review"] = [item(None, "맛", "weird")]
    write_rows(tmp_path / "in.jsonl", [second, first])
    status, _ = run_in_process(["--input", "in.jsonl", "--outdir", "o"], tmp_path)
    assert status == 0
    summary = list(csv.reader(io.StringIO((tmp_path / "o" / "stage_summary.csv").read_text(), newline="")))
    by_stage = {r[1]: r for r in summary[1:]}
    assert list(by_stage) == ["pre_review", "post_review", "final"] and by_stage["final"][0] == "M1"
    assert by_stage["post_review"][2:10] == ["2", "2", "1.0", "0.0", "0.0", "0.0", "0.0", "0.5"]
    assert by_stage["pre_review"][3] == "1" and by_stage["pre_review"][7] == "1.0"  # "weird": invalid, read as neutral
    assert by_stage["final"][3:8] == ["4", "2.0", "0.0", "0.5", "0.5"]  # "pos" is invalid here (L11)
    first["runtime"]["parsed_output"]["analysis_flags"] = {"skip_review_flag": True}
    write_rows(tmp_path / "in.jsonl", [first, second])
    status, _ = run_in_process(["--input", "in.jsonl", "--outdir", "o"], tmp_path)
    lines = (tmp_path / "o" / "stage_summary.md").read_text().split("\n")
    assert len(lines) == 3 and lines[2].startswith("| M1 | s0_final | 2 | 4 | 2.0000 |")


def test_sanity_modes_write_only_their_file(tmp_path: Path) -> None:
    rows = [row(f"k{i}", gold=[item("본품#품질", "맛", "positive"), item("제품 전체", "값", "neutral")]) for i in range(4)]
    write_rows(tmp_path / "in.jsonl", rows)
    status, printed = run_in_process(["--input", "in.jsonl", "--outdir", "s", "--sanity-mode", "ref_split",
                                      "--sanity-sample-n", "-3", "--diagnostics_dir", "d"], tmp_path)
    assert status == 0 and "PASS" in printed
    assert files_under(tmp_path) == {"in.jsonl", "s/sanity_checks.md"}
    text = (tmp_path / "s" / "sanity_checks.md").read_text()
    assert text == ("# Sanity Mode: ref_split\n\nSample n=-3\n\n  '본품#품질' -> '본품#품질' -> rejoin='본품#품질' OK\n"
                    "PASS: ref split/join-back identity")
    status, _ = run_in_process(["--input", "in.jsonl", "--outdir", "g", "--sanity-mode", "gold_gold"], tmp_path)
    assert status == 0
    rows.append(row("k9", gold=[item("제품 전체", "값", "neutral")]))
    write_rows(tmp_path / "in.jsonl", rows)
    status, _ = run_in_process(["--input", "in.jsonl", "--outdir", "g", "--sanity-mode", "gold_gold"], tmp_path)
    assert status == 1
    assert (tmp_path / "g" / "sanity_checks.md").read_text().split("\n")[-2:] == [
        "FAIL row 4: ref-pol F1=1.0, ote-pol F1=1.0, attr-pol F1=0.0", "FAIL: see above"]


def test_a_linked_input_reads_the_folder_it_resolves_to(tmp_path: Path) -> None:
    run = scorecards(tmp_path, rows_with_keys("a", "b"))
    (run / "override_gate_debug_summary.json").write_text(
        '{"override_hint_invalid_total": 3, "override_hint_repair_total": 1, "override_hint_invalid_rate": 0}')
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "linked.jsonl").symlink_to(run / "scorecards.jsonl")
    status, _ = run_in_process(["--input", "elsewhere/linked.jsonl", "--outdir", "o", "--diagnostics_dir", "d"], tmp_path)
    assert status == 0
    assert (tmp_path / "d" / "tuple_source_coverage.csv").read_bytes().split(b"\r\n")[1].startswith(b"run,2,")
    table = (tmp_path / "o" / "structural_metrics_table.md").read_text().split("\n")
    assert {"| override_hint_invalid_total | 3 |", "| override_hint_repair_total | 1 |",
            "| override_hint_invalid_rate | 0 |", "| polarity_repair_n | 1 |"} <= set(table)
