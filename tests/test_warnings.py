"""Coded warnings: each code raised when its condition holds and only then; shown in every output."""

from __future__ import annotations

import fnmatch
import json
from pathlib import Path
from typing import Any

import pytest

from aggregator.metrics.structural import STRUCTURAL
from aggregator.run.pipeline import evaluate_run
from aggregator.run_warnings import WARNINGS, Finding, WarningCode, build_warnings
from aggregator.run_warnings.core import EMPTY_SHARE, MIN_COLLAPSE_TUPLES, MIN_SAMPLES
from aggregator.run_warnings.docs import DEFAULT_OUTPUT, render
from aggregator.units.projection import ref_copies_term
from tests.conftest import CONFORMANCE, RUNS, run_cli
from tests.scorecard_rows import Json, evaluate_rows, item, row, write_rows

ROOT = Path(__file__).resolve().parents[1]
REF = "제품 전체#일반"
OTHER_REF = "본품#품질"
REAL_RUNS = sorted(p for p in RUNS.iterdir() if p.is_dir())
VALID_REF_CASES = ("synth_pub", "synth_edge_pub", "synth_legacy_pub")


def codes(tmp_path: Path, rows: list[Json], **options: Any) -> set[str]:
    return {w.code for w in evaluate_rows(tmp_path / "run", rows, **options).run_warnings.shown}


def graded(n: int, *, final: Any = None, stage1: Any = None, pol: str = "positive") -> list[Json]:
    """``n`` samples with gold ``(REF, "a", pol)``; the final (and stage 1) per sample from the callables."""
    return [
        row(f"k{i:03d}", gold=[item(REF, "a", pol)],
            final=final(i) if final else [item(REF, "a", pol)],
            stage1=stage1(i) if stage1 else [item(OTHER_REF, "a", pol)])
        for i in range(n)
    ]


# --- one test per code, both ways -----------------------------------------------------------------


def test_ref_unmeasurable_when_refs_copy_terms_or_are_missing(tmp_path: Path) -> None:
    copies = graded(40, final=lambda i: [item("a", "a")], stage1=lambda i: [item("", "a")])
    assert "ref_unmeasurable" in codes(tmp_path, copies)
    invalid = graded(40, final=lambda i: [item("제품#없음", "a")], stage1=lambda i: [item("", "a")])
    assert "ref_unmeasurable" in codes(tmp_path, invalid)


def test_ref_unmeasurable_not_raised_with_taxonomy_refs(tmp_path: Path) -> None:
    assert "ref_unmeasurable" not in codes(tmp_path, graded(40))
    one_valid = graded(40, final=lambda i: [item(REF if i == 0 else "", "a")], stage1=lambda i: [item("", "a")])
    assert "ref_unmeasurable" not in codes(tmp_path, one_valid)


def test_a_ref_copying_its_term_is_compared_as_a_term() -> None:
    assert ref_copies_term("Screen", "screen") and ref_copies_term("( 화면 )", "화면")
    assert not ref_copies_term("", "") and not ref_copies_term(REF, "화면")


def test_no_stage_change_when_every_final_equals_stage_1(tmp_path: Path) -> None:
    same = graded(40, stage1=lambda i: [item(REF, "a")])
    assert "no_stage_change" in codes(tmp_path, same)
    one_changed = graded(40, stage1=lambda i: [item(REF, "a")] if i else [item(OTHER_REF, "a")])
    assert "no_stage_change" not in codes(tmp_path, one_changed)


def test_stage1_missing_when_most_rows_have_no_stage_1(tmp_path: Path) -> None:
    rows = graded(40)
    for r in rows[:20]:
        del r["runtime"]["parsed_output"]["final_result"]["stage1_tuples"]
    assert "stage1_missing" not in codes(tmp_path, rows)  # half
    del rows[20]["runtime"]["parsed_output"]["final_result"]["stage1_tuples"]
    assert "stage1_missing" in codes(tmp_path, rows)
    for r in rows:
        r["runtime"]["parsed_output"]["final_result"].pop("stage1_tuples", None)
    raised = codes(tmp_path, rows)
    assert "no_stage_change" in raised and "stage1_missing" not in raised


def test_empty_predictions_above_the_share(tmp_path: Path) -> None:
    n = 40
    empty = int(EMPTY_SHARE * n)
    at_share = graded(n, final=lambda i: [] if i < empty else [item(REF, "a")])
    assert "empty_predictions" not in codes(tmp_path, at_share)
    above = graded(n, final=lambda i: [] if i <= empty else [item(REF, "a")])
    assert "empty_predictions" in codes(tmp_path, above)


def test_polarity_collapse_when_every_prediction_has_one_polarity(tmp_path: Path) -> None:
    n = MIN_COLLAPSE_TUPLES
    gold_two = [row(f"k{i}", gold=[item(REF, "a", "positive" if i % 2 else "negative")],
                    stage1=[item(REF, "a", "positive" if i % 2 else "negative")],
                    final=[item(REF, "a", "negative")]) for i in range(n)]
    assert "polarity_collapse" in codes(tmp_path, gold_two)
    gold_two[0]["runtime"]["parsed_output"]["final_result"]["final_tuples"] = [item(REF, "a", "positive")]
    assert "polarity_collapse" not in codes(tmp_path, gold_two)
    assert "polarity_collapse" not in codes(tmp_path, graded(n, final=lambda i: [item(REF, "a", "negative")]))
    assert "polarity_collapse" not in codes(tmp_path, gold_two[: n - 1])  # too few tuples to call it


def test_fallback_source_when_most_finals_come_from_a_fallback(tmp_path: Path) -> None:
    rows = graded(40)
    for r in rows[:21]:
        result = r["runtime"]["parsed_output"]["final_result"]
        result["final_aspects"] = result.pop("final_tuples")
    assert "fallback_source" in codes(tmp_path, rows)
    assert "fallback_source" not in codes(tmp_path, rows[1:] + graded(1))  # half


def test_gold_missing_without_gold(tmp_path: Path) -> None:
    no_gold = [row(f"k{i}", final=[item(REF, "a")]) for i in range(40)]
    raised = codes(tmp_path, no_gold)
    assert raised == {"gold_missing"}, raised
    assert "gold_missing" not in codes(tmp_path, graded(40))


def test_few_samples_below_the_minimum(tmp_path: Path) -> None:
    assert "few_samples" in codes(tmp_path, graded(MIN_SAMPLES - 1))
    assert "few_samples" not in codes(tmp_path, graded(MIN_SAMPLES))


def test_polarity_defaulted_counts_the_items(tmp_path: Path) -> None:
    rows = graded(40)
    rows[0]["gold_tuples"] = [item(REF, "a", None)]
    evaluation = evaluate_rows(tmp_path / "run", rows)
    [warning] = [w for w in evaluation.run_warnings.shown if w.code == "polarity_defaulted"]
    assert warning.count == 1 and warning.metrics == ()
    assert "polarity_defaulted" not in codes(tmp_path, graded(40))


def test_unicode_near_matches_counts_terms_equal_to_gold_once_normalized(tmp_path: Path) -> None:
    """An NFD term and a term with a zero-width space against NFC gold (tests/test_reliability_unicode.py)."""
    looks_alike = {0: "a\u200b", 1: "a\u0301"}
    rows = graded(40, final=lambda i: [item(REF, looks_alike.get(i, "a"), "positive")])
    rows[1]["gold_tuples"] = [item(REF, "á", "positive")]
    evaluation = evaluate_rows(tmp_path / "run", rows)
    [warning] = [w for w in evaluation.run_warnings.shown if w.code == "unicode_near_matches"]
    assert warning.count == 2 and evaluation.warnings["unicode_near_matches"] == 2
    assert "tuple_f1_s2_otepol" in warning.metrics and "tuple_f1_s2" not in warning.metrics
    assert "unicode_near_matches" not in codes(tmp_path, graded(40))


def test_profile_unmatched_when_no_row_has_the_profile(tmp_path: Path) -> None:
    rows = [{**r, "profile": "paper_main"} for r in graded(40)]
    evaluation = evaluate_rows(tmp_path / "run", rows, profile="nosuch")
    [warning] = [w for w in evaluation.run_warnings.shown if w.code == "profile_unmatched"]
    assert evaluation.profile_fallback and evaluation.rows_aggregated == 40 and warning.count == 40
    assert warning.message == ("--profile 'nosuch' matched no row, so all 40 rows were aggregated, as the research "
                               "tool does (the rows' profiles: paper_main)")
    assert "tuple_f1_s2" in warning.metrics and "tuple_f1_s2_otepol" in warning.metrics
    assert "profile_unmatched" not in codes(tmp_path, rows, profile="paper_main")
    assert "profile_unmatched" not in codes(tmp_path, rows)


def test_profile_unmatched_is_said_on_the_terminal_and_fails_with_fail_on_warning(tmp_path: Path) -> None:
    run = REAL_RUNS[0]
    done = run_cli(run, "--outdir", tmp_path, "--profile", "nosuch", "--allow", "ref_unmeasurable",
                   "--fail-on-warning")
    assert done.returncode == 3
    assert "profile_unmatched: --profile 'nosuch' matched no row, so all 50 rows were aggregated" in done.stderr
    metadata = json.loads((tmp_path / "run_metadata.json").read_text(encoding="utf-8"))
    assert metadata["profile_fallback"] and [w["code"] for w in metadata["warnings"]] == ["profile_unmatched"]


def test_a_clean_run_raises_nothing(tmp_path: Path) -> None:
    assert codes(tmp_path, graded(40)) == set()


def test_every_declared_code_has_its_test() -> None:
    """Each ``test_<code>_...`` above checks its code raised and not raised."""
    tests = [name for name in globals() if name.startswith("test_")]
    for code in WARNINGS.codes:
        assert any(name.startswith(f"test_{code}_") for name in tests), f"no test_{code}_... in this file"


# --- declarations -----------------------------------------------------------------------------------


def test_each_affected_pattern_names_a_registered_column() -> None:
    for declared in WARNINGS:
        for pattern in declared.metrics:
            assert any(fnmatch.fnmatchcase(m.name, pattern) for m in STRUCTURAL), (declared.code, pattern)
        affected = declared.affected(STRUCTURAL)
        assert len(affected) == len(set(affected))


def test_aliases_follow_their_column() -> None:
    affected = WARNINGS["ref_unmeasurable"].affected(STRUCTURAL)
    assert {"tuple_f1_s2", "tuple_f1_s2_refpol", "triplet_f1_s2", "tuple_f1_s2_raw"} <= set(affected)
    assert "tuple_f1_s2_otepol" not in affected


def test_a_code_declared_twice_is_refused_and_a_family_adds_its_own() -> None:
    extra = WarningCode("family_code", "A family's warning", "meaning", "threshold", "advice",
                        lambda run: Finding("found"), metrics=("cda",), family="demo")
    registry = build_warnings([(extra,)])
    assert registry.codes[-1] == "family_code" and len(registry) == len(WARNINGS) + 1
    assert "`family_code`: A family's warning" in render(registry)
    with pytest.raises(ValueError, match="declared twice"):
        build_warnings([(extra, extra)])


def test_an_unknown_code_suggests_a_close_one() -> None:
    with pytest.raises(KeyError, match="did you mean 'ref_unmeasurable'"):
        WARNINGS["ref_unmesurable"]


def test_committed_warnings_doc_is_up_to_date() -> None:
    assert (ROOT / DEFAULT_OUTPUT).read_text(encoding="utf-8") == render(), (
        "docs/warnings.md is stale: run `python -m aggregator.run_warnings.docs`")


def test_the_doc_states_each_code_threshold_and_advice() -> None:
    text = render()
    for declared in WARNINGS:
        assert f"## `{declared.code}`: {declared.title}" in text
        assert declared.threshold in text and declared.advice in text and f"--allow {declared.code}" in text


# --- real runs and conformance cases ------------------------------------------------------------------


@pytest.fixture(scope="module")
def real_runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path]:
    """The 13 real runs aggregated in one command with --json and --fail-on-warning."""
    out = tmp_path_factory.mktemp("real")
    done = run_cli(*REAL_RUNS, "--outdir", out, "--json", "--fail-on-warning")
    return done, out


def test_every_real_run_raises_ref_unmeasurable_in_every_output(real_runs: tuple[Any, Path]) -> None:
    done, out = real_runs
    assert done.returncode == 3, done.stderr
    assert done.stderr.splitlines()[-1] == f"aggregate: error: {len(REAL_RUNS)} of {len(REAL_RUNS)} runs raised warnings (--fail-on-warning)"
    entries = json.loads(done.stdout)["runs"]
    assert len(entries) == len(REAL_RUNS)
    [line] = [line for line in done.stderr.splitlines() if "ref_unmeasurable" in line]
    assert line.startswith(f"aggregate: warning: ref_unmeasurable in {len(REAL_RUNS)} of {len(REAL_RUNS)} runs: "
                           "no predicted tuple carries a taxonomy ref (")
    assert line.endswith(f"(numbers of {entries[0]['run_ids'][0]}; each run's in its run_metadata.json)")
    for run, entry in zip(REAL_RUNS, entries):
        assert entry["run"] == str(run)
        assert entry["lead_unit"] == "otepol" and entry["lead_reason"].startswith("Ref-F1 cannot be measured in this")
        [warning] = [w for w in entry["warnings"] if w["code"] == "ref_unmeasurable"]
        assert "tuple_f1_s2" in warning["metrics"] and warning["count"] > 0
        metadata = json.loads((out / run.name / "run_metadata.json").read_text(encoding="utf-8"))
        assert [w["code"] for w in metadata["warnings"]] == [w["code"] for w in entry["warnings"]]
        markdown = (out / run.name / "structural_metrics_table.md").read_text(encoding="utf-8")
        assert "## Warnings" in markdown and "**`ref_unmeasurable`**" in markdown
        assert "| Ref-F1 S2 (`tuple_f1_s2`) | 0.0000 ⚠ |" in markdown
        assert "(`tuple_f1_s2_otepol`) | 0.4" in markdown or "(`tuple_f1_s2_otepol`) | 0.5" in markdown
        html = (out / run.name / "report.html").read_text(encoding="utf-8")
        assert 'class="warnings"' in html and "<code>ref_unmeasurable</code>" in html
        assert 'class="num warned">0.0000<span class="mark" title="ref_unmeasurable">' in html


def test_quiet_prints_each_code_and_its_count_only(tmp_path: Path) -> None:
    done = run_cli(*REAL_RUNS[:2], "--outdir", tmp_path, "--quiet", "--profile", "nosuch")
    assert done.returncode == 0 and done.stdout == ""
    assert done.stderr.splitlines() == ["aggregate: warning: ref_unmeasurable in 2 of 2 runs",
                                        "aggregate: warning: profile_unmatched in 2 of 2 runs"]
    one = run_cli(REAL_RUNS[0], "--outdir", tmp_path / "one", "-q")
    assert one.stderr.splitlines() == ["aggregate: warning: ref_unmeasurable in 1 of 1 run"]


def test_allow_silences_a_code_everywhere(tmp_path: Path) -> None:
    run = REAL_RUNS[0]
    done = run_cli(run, "--outdir", tmp_path, "--allow", "ref-unmeasurable", "--fail-on-warning", "--json")
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr
    [entry] = json.loads(done.stdout)["runs"]
    assert entry["warnings"] == [] and [w["code"] for w in entry["warnings_allowed"]] == ["ref_unmeasurable"]
    assert "⚠" not in (tmp_path / "structural_metrics_table.md").read_text(encoding="utf-8")
    assert 'class="warnings"' not in (tmp_path / "report.html").read_text(encoding="utf-8")


def test_an_unknown_allowed_code_is_refused_before_reading(tmp_path: Path) -> None:
    done = run_cli(REAL_RUNS[0], "--outdir", tmp_path / "out", "--allow", "ref_unmesurable")
    assert done.returncode == 2 and not (tmp_path / "out").exists()
    assert done.stderr.splitlines() == [
        "aggregate: error: --allow: unknown warning code 'ref_unmesurable'; did you mean 'ref_unmeasurable'?"]


@pytest.mark.parametrize("case", VALID_REF_CASES)
def test_conformance_cases_with_taxonomy_refs_do_not_raise_ref_unmeasurable(case: str, tmp_path: Path) -> None:
    raised = {w.code for w in evaluate_run(CONFORMANCE / case, workers=1).run_warnings.shown}
    assert "ref_unmeasurable" not in raised


def test_the_summary_names_the_code_after_an_affected_unit(tmp_path: Path) -> None:
    rows = graded(40, final=lambda i: [item("a", "a")], stage1=lambda i: [item("", "a")])
    path = write_rows(tmp_path / "run" / "scorecards.jsonl", rows)
    done = run_cli(path, "--outdir", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[1] == "  Ref-F1 cannot be measured in this run (ref_unmeasurable): showing Surface-F1"
    assert lines[2].startswith("  Surface-F1") and not lines[2].endswith("]")
    assert lines[3].startswith("  Ref-F1") and lines[3].endswith("[ref_unmeasurable]")


def test_the_python_api_lists_and_allows_warnings() -> None:
    from aggregator import aggregate_run

    result = aggregate_run(REAL_RUNS[0])
    assert [w.code for w in result.warnings] == ["ref_unmeasurable"]
    assert result.to_dict()["warnings"][0]["metrics"][:2] == ["tuple_f1_s1", "tuple_f1_s2"]
    allowed = aggregate_run(REAL_RUNS[0], allow=["ref_unmeasurable"])
    assert allowed.warnings == () and [w.code for w in allowed.warnings_allowed] == ["ref_unmeasurable"]
    with pytest.raises(KeyError, match="unknown warning code"):
        aggregate_run(REAL_RUNS[0], allow=["nope"])


def test_a_column_whose_input_field_no_row_carries_is_marked_absent(real_runs: tuple[Any, Path]) -> None:
    """The real runs carry no sentiment judgements: the grounding columns are 0 in the CSV (the
    spec's rule) and marked "field absent from input" in the Markdown, the HTML and --json."""
    done, out = real_runs
    entry = json.loads(done.stdout)["runs"][0]
    assert "explicit_grounding_rate" in entry["absent_fields"] and "tuple_f1_s2" not in entry["absent_fields"]
    assert entry["metrics"]["explicit_grounding_rate"] == 0.0
    run = out / REAL_RUNS[0].name
    markdown = (run / "structural_metrics_table.md").read_text(encoding="utf-8")
    assert "(`explicit_grounding_rate`) | 0.0000 (field absent from input) |" in markdown
    columns = [name for name in entry["absent_fields"] if STRUCTURAL[name].alias_of is None]
    assert markdown.count("(field absent from input)") == len(columns)
    html = (run / "report.html").read_text(encoding="utf-8")
    assert html.count('<div class="absent">field absent from input</div>') >= len(columns)
    docs = (ROOT / "docs" / "metrics.md").read_text(encoding="utf-8").split("## Columns that count an optional input field")[1]
    assert all(f"`{name}`" in docs.split("## Per-sample table")[0] for name in columns)


def test_polarities_are_counted_in_the_tuple_text_even_with_quotes_in_terms() -> None:
    import polars as pl

    from aggregator.run_warnings.tuples import polarities
    from aggregator.units.sample_counts import tuples_text
    from scorecards.tuples import EvalTuple

    texts = [tuples_text(frozenset({EvalTuple("a", 'x,"positive"]', "negative"), EvalTuple("", "y", "positive")})),
             tuples_text(frozenset({EvalTuple("b", "z", "mixed")})), tuples_text(frozenset())]
    table = pl.DataFrame({"has_gold": [True, True, False], "final_tuples": [texts[0], texts[1], texts[1]]})
    assert polarities(table, "s2") == {"positive": 1, "negative": 1, "mixed": 1}
