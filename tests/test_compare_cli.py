"""``aggregate compare`` end to end: the 13 vendored runs, merged input, line order, errors, JSON."""

from __future__ import annotations

import csv
import json
import statistics
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aggregator.compare.api import compare_runs
from aggregator.compare.files import comparison_files
from aggregator.metrics.structural import STRUCTURAL
from tests.conftest import RUNS, run_cli

ALL_RUNS = sorted(RUNS.iterdir())
FILES = {"runs.csv", "conditions.csv", "paired.csv", "flips.csv", "self_consistency.csv",
         "per_sample_merged.parquet", "per_sample_merged.csv", "comparison.md"}


def read_csv(path: Path) -> list[list[str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.reader(handle))


def one_error_line(stderr: str) -> str:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("aggregate: error: "), stderr
    return lines[0]


@pytest.fixture(scope="module")
def full(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("compare") / "out"
    done = run_cli("compare", *ALL_RUNS, "--outdir", out, "--resamples", "2000")
    assert done.returncode == 0, done.stderr
    assert f"files to {out}" in done.stdout
    return out


def test_all_thirteen_runs(full: Path) -> None:
    assert FILES <= {p.name for p in full.iterdir()}
    runs = read_csv(full / "runs.csv")
    assert len(runs) == 1 + 13 and runs[0][:3] == ["run_id", "condition", "seed"]
    rows = list(csv.DictReader(open(full / "conditions.csv", encoding="utf-8")))
    assert len(rows) == 3 * len(STRUCTURAL)
    conditions = {r["condition"]: r for r in rows}
    assert {c: (r["n_runs"], r["seeds"]) for c, r in conditions.items()} == {
        "cr_n50_m0_v2": ("3", "42 123 456"),
        "cr_n50_m1_v2": ("5", "42 101 123 456 789"),
        "cr_n50_m2_v2": ("5", "42 101 123 456 789"),
    }
    paired = list(csv.DictReader(open(full / "paired.csv", encoding="utf-8")))
    assert len(paired) == 2 * len(STRUCTURAL) and {r["condition_a"] for r in paired} == {"cr_n50_m0_v2"}
    markdown = (full / "comparison.md").read_text(encoding="utf-8")
    assert "cr_n50_m0_v2 lacks seed(s) 101, 789" in markdown and "All 50 samples are present" in markdown


def test_conditions_csv_summarises_every_column_of_runs_csv(full: Path) -> None:
    runs = list(csv.DictReader(open(full / "runs.csv", encoding="utf-8")))
    rows = list(csv.DictReader(open(full / "conditions.csv", encoding="utf-8")))
    assert {r["metric"] for r in rows} == set(STRUCTURAL.names) == set(runs[0]) - {"run_id", "condition", "seed", "warnings"}
    for row in rows:
        if STRUCTURAL[row["metric"]].kind == "str":
            continue
        values = [float(r[row["metric"]] == "True" if r[row["metric"]] in ("True", "False") else r[row["metric"]])
                  for r in runs if r["condition"] == row["condition"] and r[row["metric"]] != ""]
        assert int(row["n_defined"]) == len(values)
        if not values:
            assert row["mean"] == row["sd"] == row["min"] == row["max"] == ""
            continue
        assert float(row["mean"]) == pytest.approx(statistics.fmean(values), rel=1e-12, abs=1e-15)
        assert (float(row["min"]), float(row["max"])) == (min(values), max(values))
        if len(values) < 2:
            assert row["sd"] == ""
        else:
            assert float(row["sd"]) == pytest.approx(statistics.stdev(values), rel=1e-9, abs=1e-15)


def test_every_paired_interval_excludes_zero_exactly_when_p_is_below_005(full: Path) -> None:
    rows = [r for r in csv.DictReader(open(full / "paired.csv", encoding="utf-8")) if r["p_value"]]
    assert len(rows) > 300
    for r in rows:
        excludes = float(r["ci_low"]) > 0 or float(r["ci_high"]) < 0
        assert excludes == (float(r["p_value"]) < 0.05), r["metric"]


def test_every_runs_csv_row_is_that_runs_own_structural_metrics_csv(full: Path, tmp_path: Path) -> None:
    rows = read_csv(full / "runs.csv")
    done = run_cli(*(RUNS / f"{row[1]}__seed{row[2]}" for row in rows[1:]), "--outdir", tmp_path, "--quiet")
    assert done.returncode == 0, done.stderr
    for row in rows[1:]:
        header, values = read_csv(tmp_path / f"{row[1]}__seed{row[2]}" / "structural_metrics.csv")
        assert rows[0][3] == "warnings" and row[3] == "ref_unmeasurable"
        assert rows[0][4:] == header
        assert row[4:] == values, row[0]


def test_a_merged_file_is_split_by_run_id(tmp_path: Path) -> None:
    m0 = [p for p in ALL_RUNS if "_m0_" in p.name]
    merged = tmp_path / "merged" / "scorecards.jsonl"
    merged.parent.mkdir()
    merged.write_bytes(b"".join((p / "scorecards.jsonl").read_bytes() for p in reversed(m0)))
    separate = comparison_files(compare_runs([*m0, RUNS / "cr_n50_m1_v2__seed42"], resamples=300))
    together = comparison_files(compare_runs([merged, RUNS / "cr_n50_m1_v2__seed42"], resamples=300))
    assert separate == together


@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.randoms(use_true_random=False))
def test_line_order_changes_nothing(tmp_path_factory: pytest.TempPathFactory, random: object) -> None:
    names = ["cr_n50_m0_v2__seed42", "cr_n50_m2_v2__seed42"]
    shuffled = []
    base = tmp_path_factory.mktemp("shuffled")
    for name in names:
        lines = (RUNS / name / "scorecards.jsonl").read_bytes().splitlines(keepends=True)
        random.shuffle(lines)  # type: ignore[attr-defined]
        (base / name).mkdir()
        (base / name / "scorecards.jsonl").write_bytes(b"".join(lines))
        shuffled.append(base / name)
    original = comparison_files(compare_runs([RUNS / n for n in names], resamples=300, seed=9))
    assert comparison_files(compare_runs(shuffled, resamples=300, seed=9)) == original


def test_same_inputs_and_seed_give_identical_files_other_seed_other_paired(tmp_path: Path) -> None:
    runs = [RUNS / "cr_n50_m0_v2__seed42", RUNS / "cr_n50_m1_v2__seed42"]
    outs = []
    for name, seed, order in (("a", "1", runs), ("b", "1", runs[::-1]), ("c", "2", runs)):
        done = run_cli("compare", *order, "--outdir", tmp_path / name, "--resamples", "300", "--seed", seed, "-q", fresh=True)
        assert done.returncode == 0, done.stderr
        outs.append({p.name: p.read_bytes() for p in (tmp_path / name).iterdir()})
    assert outs[0] == outs[1]
    assert outs[0]["paired.csv"] != outs[2]["paired.csv"] and outs[0]["runs.csv"] == outs[2]["runs.csv"]


def test_json_and_default_outdir(tmp_path: Path) -> None:
    done = run_cli("compare", RUNS / "cr_n50_m0_v2__seed42", RUNS / "cr_n50_m1_v2__seed42",
                   "--resamples", "100", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["conditions_order"] == ["cr_n50_m0_v2", "cr_n50_m1_v2"]
    assert {"runs", "conditions", "paired", "flips", "self_consistency", "missing_samples"} <= payload.keys()
    assert FILES <= {p.name for p in (tmp_path / "comparison").iterdir()}


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["cr_n50_m0_v2__seed42", "cr_n50_m0_v2__seed42/scorecards.jsonl"], "given twice"),
        (["cr_n50_m0_v2__seed42", "cr_n50_m1_v2__seed42", "--baseline", "nope"], "no such condition"),
        (["cr_n50_m0_v2__seed42", "--condition-pattern", "("], "not a regular expression"),
        (["missing_run"], "no such file or run directory"),
    ],
)
def test_user_errors_are_one_line_exit_2(args: list[str], message: str, tmp_path: Path) -> None:
    done = run_cli("compare", *args, "--outdir", tmp_path / "out", cwd=RUNS)
    assert done.returncode == 2
    assert message in one_error_line(done.stderr)
    assert not (tmp_path / "out").exists()


def test_two_inputs_with_the_same_run_id_are_an_error(tmp_path: Path) -> None:
    copy = tmp_path / "copy" / "scorecards.jsonl"
    copy.parent.mkdir()
    copy.write_bytes((RUNS / "cr_n50_m0_v2__seed42" / "scorecards.jsonl").read_bytes())
    done = run_cli("compare", RUNS / "cr_n50_m0_v2__seed42", copy, "--outdir", tmp_path / "out")
    assert done.returncode == 2
    assert "run id 'cr_n50_m0_v2__seed42_proposed' is also in" in one_error_line(done.stderr)


def test_unwritable_outdir_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    done = run_cli("compare", RUNS / "cr_n50_m0_v2__seed42", RUNS / "cr_n50_m0_v2__seed123", "--outdir", blocker / "out",
                   "--resamples", "10")
    assert done.returncode == 2
    assert "lies below a file: choose another directory with --outdir" in one_error_line(done.stderr)
