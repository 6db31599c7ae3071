"""``aggregate samples RUN``: the samples a filter selects, with their tuples marked per unit."""

from __future__ import annotations

import json

import pytest

from aggregator.run.pipeline import evaluate_run
from tests.conftest import CONFORMANCE, RUNS, run_cli

CASE = CONFORMANCE / "synth_pub"
WANTED = {"fixes": {"fix"}, "breaks": {"break"}, "misses": {"break", "still"}}


@pytest.fixture(scope="module")
def table():  # type: ignore[no-untyped-def]
    return evaluate_run(CASE, workers=1).table


@pytest.mark.parametrize("unit", ["refpol", "otepol"])
@pytest.mark.parametrize("only", ["fixes", "breaks", "misses"])
def test_only_selects_the_samples_of_those_transitions(table, unit: str, only: str) -> None:  # type: ignore[no-untyped-def]
    done = run_cli("samples", CASE, "--unit", unit, "--only", only, "--limit", "0", "--json")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    expected = [r["sample_key"] for r in table.iter_rows(named=True)
                if r["has_gold"] and r[f"{unit}_transition"] in WANTED[only]]
    assert [s["sample_key"] for s in payload["samples"]] == expected and payload["total"] == len(expected)
    texts = dict(zip(table.get_column("sample_key"), table.get_column("input_text")))
    for sample in payload["samples"]:
        assert sample["transition"] in WANTED[only] and sample["text"] == texts[sample["sample_key"]] != ""
        for stage in ("gold", "s1", "s2"):
            assert all(t["mark"] in "mxMX-" for t in sample[stage])


def test_changed_is_per_unit_and_marks_what_the_review_added_or_dropped() -> None:
    samples = json.loads(run_cli("samples", RUNS / "cr_n50_m1_v2__seed42", "--unit", "otepol", "--only", "changed",
                                 "--limit", "0", "--json").stdout)["samples"]
    every = json.loads(run_cli("samples", RUNS / "cr_n50_m1_v2__seed42", "--unit", "refpol", "--only", "changed",
                               "--limit", "0", "--json").stdout)["samples"]
    assert len(every) == 50 and len(samples) < 50  # the review filled refs: every sample changed under refpol
    for sample in samples:
        assert any(t["mark"].isupper() for t in sample["s1"] + sample["s2"])


def test_the_table_shows_tuples_with_their_marks_and_a_legend() -> None:
    done = run_cli("samples", CASE, "--unit", "otepol", "--only", "breaks", "--limit", "2")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "breaks under Surface-F1 (correct at stage 1, wrong at the final stage): 17 samples, the first 2 shown (--limit)"
    assert "│ 그렇다고 백화점에서 똑같은 걸  │" in done.stdout  # the sentence, under its sample key
    assert "nikluge-sa-2022-train-00020" in done.stdout and "✓ − 제품 전체#가격 · implicit" in done.stdout
    assert lines[-1].startswith("Surface-F1: ✓ matched") and all(line == line.rstrip() for line in lines)


def test_without_unit_a_real_run_leads_with_surface_and_says_why() -> None:
    run = RUNS / "cr_n50_m1_v2__seed42"
    done = run_cli("samples", run, "--only", "changed", "--limit", "1")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == ("Ref-F1 cannot be measured in this run (ref_unmeasurable): showing Surface-F1 "
                        "(--unit to choose)")
    assert lines[1].startswith("changed under Surface-F1 (")
    payload = json.loads(run_cli("samples", run, "--json", "--limit", "1").stdout)
    assert payload["unit"] == "otepol" and payload["unit_name"] == "Surface-F1"
    assert payload["unit_reason"] == "Ref-F1 cannot be measured in this run (ref_unmeasurable): showing Surface-F1"


def test_an_explicit_unit_is_obeyed_by_its_page_name_or_its_old_name() -> None:
    run = RUNS / "cr_n50_m1_v2__seed42"
    for name, unit in (("ref", "refpol"), ("REFPOL", "refpol"), ("surface", "otepol"), ("attr", "attrpol"),
                       ("attrpol", "attrpol")):
        payload = json.loads(run_cli("samples", run, "--unit", name, "--json", "--limit", "1").stdout)
        assert payload["unit"] == unit and payload["unit_reason"] is None
    done = run_cli("samples", run, "--unit", "ref", "--limit", "1")
    assert done.stdout.splitlines()[0].startswith("all under Ref-F1 [ref_unmeasurable] (")  # obeyed, and marked
    payload = json.loads(run_cli("samples", run, "--unit", "ref", "--json", "--limit", "1").stdout)
    assert payload["unit_warnings"] == ["ref_unmeasurable"]


def test_without_unit_a_measurable_run_keeps_ref_f1() -> None:
    payload = json.loads(run_cli("samples", CASE, "--json", "--limit", "1").stdout)
    assert payload["unit"] == "refpol" and payload["unit_reason"] is None


def test_a_bad_choice_or_run_is_one_error_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    done = run_cli("samples", tmp_path / "nothing")
    assert done.returncode == 2 and done.stderr.splitlines() == [
        f"aggregate: error: {tmp_path / 'nothing'}: no such file or run directory (check the path)"]
    assert run_cli("samples", CASE, "--only", "wrong").returncode == 2
