"""``aggregate compare`` of the 13 real runs, where Ref-F1 cannot be measured (``ref_unmeasurable``):
every default view leads with Surface-F1 and says why, and every value the warning covers carries
its mark in every output that shows it."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

import pytest

from aggregator.text import md_text
from tests.conftest import RUNS, run_cli

REAL = sorted(p for p in RUNS.iterdir() if p.is_dir())
REASON = "Ref-F1 cannot be measured in these runs (ref_unmeasurable): showing Surface-F1"
REF = ("tuple_f1_s1", "tuple_f1_s2", "delta_f1", "tuple_f1_s2_attrpol", "tuple_f1_s2_refpol_micro")
SURFACE = ("tuple_f1_s1_otepol", "tuple_f1_s2_otepol", "delta_f1_otepol", "tuple_f1_s2_otepol_micro")


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path]:
    """The 13 runs compared with the defaults, the paper table and subsets by aspect count."""
    out = tmp_path_factory.mktemp("compared")
    done = run_cli("compare", *REAL, "--outdir", out, "--resamples", "200", "--paper", "--by", "aspect_count")
    assert done.returncode == 0, done.stderr
    return done, out


def rows(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(open(path, encoding="utf-8")))


def test_the_summary_leads_with_surface_says_why_and_marks_ref(compared: tuple[Any, Path]) -> None:
    done, _ = compared
    lines = done.stdout.splitlines()
    assert lines[1] == f"  {REASON}"
    assert lines[2].startswith("  cr_n50_m0_v2  3 runs  Surface-F1 S2 0.4686 ± 0.0079  Ref-F1 S2 0.0000 ± 0.0000 "
                               "[ref_unmeasurable]  Attr-F1 S2")
    contrast = next(line for line in lines if line.startswith("  cr_n50_m1_v2 − cr_n50_m0_v2:"))
    assert contrast.index("Surface-F1 S2") < contrast.index("Ref-F1 S2 +0.0000 [+0.0000, +0.0000] p 1.0000 "
                                                            "[ref_unmeasurable]")


def test_notes_are_ranked_three_printed_the_rest_in_comparison_md(compared: tuple[Any, Path]) -> None:
    done, out = compared
    notes = [line for line in done.stdout.splitlines() if line.startswith("note: ")]
    assert len(notes) == 4 and re.fullmatch(r"note: \d+ more note\(s\) in comparison\.md", notes[-1])
    assert notes[0].startswith("note: Unequal numbers of runs per condition")
    markdown = (out / "comparison.md").read_text(encoding="utf-8")
    listed = markdown.split("## Notes\n\n")[1].split("\n\n")[0].splitlines()
    assert listed[0].startswith("- Warning ref_unmeasurable in 13 of 13 runs (every condition)")
    assert listed[-1] == "- All 50 samples are present in every run."
    assert len(listed) == 1 + 3 + int(notes[-1].split()[1])


def test_the_warning_is_one_line_on_stderr(compared: tuple[Any, Path]) -> None:
    done, _ = compared
    [line] = done.stderr.splitlines()
    assert line.startswith("aggregate: warning: ref_unmeasurable in 13 of 13 runs: no predicted tuple carries")


def test_csv_files_carry_the_codes_of_each_value(compared: tuple[Any, Path]) -> None:
    _, out = compared
    for name in ("conditions.csv", "paired.csv", "subsets.csv"):
        table = rows(out / name)
        assert table[0].keys() >= {"metric", "warnings"}, name
        for row in table:
            if row["metric"] in REF:
                assert row["warnings"] == "ref_unmeasurable", (name, row["metric"])
            if row["metric"] in SURFACE:
                assert row["warnings"] == "", (name, row["metric"])
    assert {r["warnings"] for r in rows(out / "runs.csv")} == {"ref_unmeasurable"}


def test_the_paper_table_leads_with_surface_and_marks_nothing_it_shows(compared: tuple[Any, Path]) -> None:
    _, out = compared
    markdown = (out / "paper.md").read_text(encoding="utf-8")
    assert markdown.startswith("| Condition | Surface-F1 S1 | Δ | Surface-F1 S2 | Δ | ΔSurface-F1 |")
    assert "Ref-F1" not in markdown.split("\n\n")[0] and "⚠" not in markdown
    assert markdown.rstrip().endswith(f"{REASON} (--metrics to choose).")
    tex = (out / "paper.tex").read_text(encoding="utf-8")
    assert tex.splitlines()[1] == f"% {REASON} (--metrics to choose)."
    paper = rows(out / "paper.csv")
    assert {r["tuple_f1_s2_otepol_warnings"] for r in paper} == {""}


def test_a_chosen_ref_metric_is_obeyed_and_marked_in_every_paper_file(tmp_path: Path) -> None:
    done = run_cli("compare", *REAL[:6], "--outdir", tmp_path, "--resamples", "50", "--paper", "--metrics",
                   "tuple_f1_s2,break_count,tuple_f1_s2_otepol", "-q")
    assert done.returncode == 0, done.stderr
    markdown = (tmp_path / "paper.md").read_text(encoding="utf-8")
    assert markdown.startswith("| Condition | Ref-F1 S2 | Δ | Breaks | Δ | Surface-F1 S2 | Δ |")
    assert "| `cr_n50_m0_v2` | 0.0000 ± 0.0000 ⚠ |  | 0 ± 0 ⚠ |  | 0.4" in markdown
    assert "| +0.0000 ⚠ | 0 ± 0 ⚠ | +0 ⚠ |" in markdown  # Δ of a warned metric, and a count as a count
    assert ("⚠ ref_unmeasurable: Ref-F1 cannot be measured; a value in some run of the condition is not a result "
            "(docs/warnings.md).") in markdown
    assert REASON not in markdown  # --metrics chose: no lead line
    tex = (tmp_path / "paper.tex").read_text(encoding="utf-8")
    assert r"0.0000 $\pm$ 0.0000 $^\dagger$" in tex and r"$^\dagger$ ref\_unmeasurable: Ref-F1 cannot be measured" in tex
    paper = rows(tmp_path / "paper.csv")
    assert {r["tuple_f1_s2_warnings"] for r in paper} == {"ref_unmeasurable"}
    assert {r["tuple_f1_s2_delta_warnings"] for r in paper[1:]} == {"ref_unmeasurable"}
    assert {r["tuple_f1_s2_otepol_warnings"] for r in paper} == {""}


def test_comparison_md_marks_ref_values_and_explains_the_columns(compared: tuple[Any, Path]) -> None:
    _, out = compared
    markdown = (out / "comparison.md").read_text(encoding="utf-8")
    assert f"- {REASON} (the readable tables list its metrics first" in markdown
    conditions = markdown.split("## Conditions")[1].split("## Contrasts")[0]
    assert conditions.index("| Surface-F1 S1 |") < conditions.index("| Ref-F1 S1 |")
    assert ("| Ref-F1 S2 | `cr_n50_m0_v2` | 3 | 42, 123, 456 | 0.0000 ± 0.0000 ⚠ | [0.0000, 0.0000] ⚠ | 0.0000 ⚠ "
            "| N/A | ⚠ ref_unmeasurable |") in conditions
    assert "| Ref break rate | `cr_n50_m0_v2` | 0 of 3 |" in conditions  # undefined in every run
    assert "Seed share: the part of the interval's variance that comes from the seeds" in conditions
    contrasts = markdown.split("## Contrasts")[1].split("## Subsets")[0]
    assert re.search(r"\| Ref-F1 S2 \| `cr_n50_m0_v2` \| `cr_n50_m1_v2` \| 50 \| 0\.0000 ⚠ \| 0\.0000 ⚠ \| \+0\.0000 ⚠ "
                     r"\| \[\+0\.0000, \+0\.0000\] ⚠ \| 1\.0000 \|", contrasts)
    assert "| ΔSurface-F1 |" in contrasts and "⚠" not in next(
        line for line in contrasts.splitlines() if line.startswith("| Surface-F1 S2 |"))


def test_the_report_greys_ref_values_leads_its_charts_with_surface(compared: tuple[Any, Path]) -> None:
    _, out = compared
    page = (out / "comparison_report.html").read_text(encoding="utf-8")
    assert f'<p class="lead-reason" id="lead-reason">{REASON}.</p>' in page
    assert ('<td>Ref-F1 S2</td><th scope="row"><bdi>cr_n50_m0_v2</bdi> <span class="tag">baseline</span></th><td class="num ">3'
            '</td><td>42, 123, 456</td><td class="num warned">0.0000 ± 0.0000<span class="mark" '
            'title="ref_unmeasurable">⚠</span></td>') in page
    assert '<td class="num ">0 of 3</td>' in page and "Seed share: the part of the interval" in page
    data = json.loads(re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page,
                                re.S).group(1))  # type: ignore[union-attr]
    conditions = data["charts"]["conditions"]
    assert conditions["facet"]["column"]["sort"] == ["Surface", "Ref ⚠", "Attr ⚠"]
    values = conditions["data"]["values"]
    assert {v["warned"] for v in values if v.get("unit") == "Ref ⚠" and v["kind"] != "pad"} == {True}
    assert {v["warned"] for v in values if v.get("unit") == "Surface" and v["kind"] != "pad"} == {False}
    paired = data["charts"]["paired"]["data"]["values"]
    assert {v["warned"] for v in paired if v["unit"] == "Ref ⚠"} == {True}
    agreement = page.split("<h2>Agreement of the review agents</h2>")[1].split("</table>")[0]
    assert '<th scope="row"><bdi>pooled</bdi></th>' in agreement and "`" not in agreement


def test_allow_silences_the_marks_and_ref_leads_again(tmp_path: Path) -> None:
    done = run_cli("compare", *REAL[:4], "--outdir", tmp_path, "--resamples", "50", "--allow", "ref_unmeasurable",
                   "--fail-on-warning", "--json")
    assert done.returncode == 0 and done.stderr == ""
    payload = json.loads(done.stdout)
    assert payload["lead_unit"] == "refpol" and payload["lead_reason"] is None and payload["run_warnings"] == []
    assert payload["allowed"] == ["ref_unmeasurable"]
    assert {r["warnings"] for r in rows(tmp_path / "conditions.csv")} == {""}


def test_fail_on_warning_exits_3_and_quiet_prints_codes_and_counts(tmp_path: Path) -> None:
    done = run_cli("compare", *REAL[:4], "--outdir", tmp_path, "--resamples", "50", "--fail-on-warning", "-q")
    assert done.returncode == 3 and done.stdout == ""
    assert done.stderr.splitlines() == ["aggregate: warning: ref_unmeasurable in 4 of 4 runs",
                                        "aggregate: error: 4 of 4 runs raised warnings (--fail-on-warning)"]
    assert (tmp_path / "comparison.md").exists()  # the files are written first


def test_fewer_than_two_runs_is_an_error_with_a_hint(tmp_path: Path) -> None:
    done = run_cli("compare", REAL[0], "--outdir", tmp_path / "one")
    assert done.returncode == 2 and not (tmp_path / "one").exists()
    [line] = done.stderr.splitlines()
    assert line.startswith("aggregate: error: compare: 1 run (cr_n50_m0_v2__seed123_proposed); a comparison needs two")
    assert "`aggregate RUN`" in line and "--each-run" in line
    skipped = run_cli("compare", REAL[0], tmp_path / "missing", "--skip-bad-runs", "--outdir", tmp_path / "two")
    assert skipped.returncode == 2 and not (tmp_path / "two").exists()
    assert "compare: 1 run left after --skip-bad-runs (1 skipped)" in skipped.stderr


def test_paper_is_a_flag_that_never_swallows_the_next_option(tmp_path: Path) -> None:
    done = run_cli("compare", *REAL[:4], "--paper", "--ddof", "0", "--paper-cells", "ci", "--outdir", tmp_path,
                   "--resamples", "50", "-q")
    assert done.returncode == 0, done.stderr
    markdown = (tmp_path / "paper.md").read_text(encoding="utf-8")
    caption = next(line for line in markdown.splitlines() if line.startswith("Table: "))
    assert caption.startswith("Table: " + md_text("Cells: mean [95% CI] over seeds and samples.")) and "SD" not in caption
    old = run_cli("compare", *REAL[:2], "--paper", "sd", "--outdir", tmp_path / "old")
    assert old.returncode == 2
    assert old.stderr.splitlines() == [
        "aggregate: error: sd: no such run; --paper takes no value now: write --paper --paper-cells sd"]
