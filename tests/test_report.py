"""report.html of a run: self-contained, escaped, and showing the computed numbers (no browser here)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from aggregator.metrics.exprs import transition_counts
from aggregator.outputs.cells import markdown_cell
from aggregator.report import charts, html
from aggregator.report.run_report import run_report
from aggregator.run.pipeline import evaluate_run
from tests.conftest import CONFORMANCE, RUNS, run_cli
from tests.scorecard_rows import evaluate_rows, item, row

SYNTH = CONFORMANCE / "synth_pub" / "scorecards.jsonl"
DATA_BLOCK = re.compile(rb'<script type="application/json" id="report-data">(.*?)</script>', re.S)
HOSTILE = "<script>alert(1)</script>"


def report_data(page: bytes) -> dict:
    match = DATA_BLOCK.search(page)
    assert match is not None
    return json.loads(match.group(1))


def markup(page: bytes) -> str:
    """The page without its inline scripts: what the HTML parser sees as markup."""
    return re.sub(rb"<script[^>]*>.*?</script>", b"", page, flags=re.S).decode("utf-8")


@pytest.fixture(scope="module")
def synth_page() -> tuple[bytes, object]:
    evaluation = evaluate_run(SYNTH, workers=1)
    return run_report(evaluation), evaluation


def test_cli_writes_report_next_to_the_csv(tmp_path: Path) -> None:
    done = run_cli(SYNTH, "--outdir", tmp_path, "--quiet")
    assert done.returncode == 0, done.stderr
    page = (tmp_path / "report.html").read_bytes()
    assert page.startswith(b"<!DOCTYPE html>")
    assert (tmp_path / "structural_metrics.csv").exists()


def test_page_loads_nothing_from_outside(synth_page: tuple[bytes, object]) -> None:
    page, _ = synth_page
    text = markup(page)
    assert not re.search(r"<(script|img|iframe)[^>]*\ssrc=", page.decode("utf-8"), re.I)
    assert "<link" not in text.lower()
    assert not re.search(r"(href|src)\s*=\s*[\"']?(https?:)?//", text, re.I)
    assert "@import" not in text and "url(" not in text
    assert page.count(b"<script>") == len(html.VENDORED) + 1


def test_headline_numbers_are_the_computed_metrics(synth_page: tuple[bytes, object]) -> None:
    page, evaluation = synth_page
    text = markup(page)
    m = evaluation.metrics
    for name in ("tuple_f1_s1", "tuple_f1_s2", "fix_rate", "break_rate", "cda",
                 "tuple_f1_s1_otepol", "tuple_f1_s2_attrpol", "tuple_f1_s2_explicit_only"):
        assert f">{markdown_cell(m[name])}<" in text, name
    for name in ("delta_f1", "net_gain", "delta_f1_otepol"):
        assert f">{m[name]:+.4f}<" in text, name


def test_a_measurable_run_leads_with_ref_f1(synth_page: tuple[bytes, object]) -> None:
    page, _ = synth_page
    text = markup(page)
    assert 'id="lead-reason"' not in text and ">Ref-F1 final<" in text and ">CDA<" in text
    assert '<tr class="primary"><th scope="row">Ref-F1 · GoldUnit' in text
    assert report_data(page)["samples"]["lead"] == "refpol"


def test_a_real_run_leads_with_surface_says_why_and_marks_its_ref_intervals() -> None:
    from aggregator.run.intervals import intervals_markdown

    evaluation = evaluate_run(RUNS / "cr_n50_m1_v2__seed42", workers=1)
    page = run_report(evaluation)
    text = markup(page)
    reason = "Ref-F1 cannot be measured in this run (ref_unmeasurable): showing Surface-F1."
    assert f'<p class="lead-reason" id="lead-reason">{reason}</p><div class="cards">' in text
    cards = text.split('<div class="cards">')[1].split("</div></div></div>")[0]
    assert cards.index(">Surface-F1 final<") < cards.index(">ΔSurface-F1<") and "CDA" not in cards
    assert "warned" not in cards and "⚠" not in cards
    assert '<tr class="primary"><th scope="row">Surface-F1 · SurfaceUnit' in text
    assert text.count(reason) == 2  # above the cards and above the sample table
    assert report_data(page)["samples"]["lead"] == "otepol"
    intervals = text.split("<th>Metric</th><th class=\"num\">Value</th><th class=\"num\">95% CI</th>")[1]
    ref_row = intervals.split("<tr>")[2]
    assert ref_row.startswith('<th scope="row">Ref-F1 S2</th><td class="num warned">0.0000<span class="mark" '
                              'title="ref_unmeasurable">⚠</span></td><td class="num warned">[0.0000, 0.0000]<span')
    surface = [r for r in intervals.split("<tr>") if r.startswith('<th scope="row">Surface-F1 S2')]
    assert surface and "warned" not in surface[0]
    markdown = intervals_markdown(evaluation)
    assert "| Ref-F1 S2 (`tuple_f1_s2`) | 0.0000 ⚠ | [0.0000, 0.0000] ⚠ |" in markdown
    assert [line for line in markdown.splitlines() if "`tuple_f1_s2_otepol`" in line][0].count("⚠") == 0


def test_embedded_samples_match_the_per_sample_table(synth_page: tuple[bytes, object]) -> None:
    page, evaluation = synth_page
    samples = report_data(page)["samples"]
    table = evaluation.table
    assert samples["key"] == table.get_column("sample_key").to_list()
    assert samples["units"]["refpol"]["transition"] == table.get_column("refpol_transition").to_list()
    assert samples["s2"] == [json.loads(t) for t in table.get_column("final_tuples").to_list()]
    assert "run" not in samples


def test_transition_chart_counts_are_the_metric_counts(synth_page: tuple[bytes, object]) -> None:
    page, evaluation = synth_page
    counts = transition_counts(evaluation.table)
    m = evaluation.metrics
    assert counts["refpol"]["break"] == m["break_count"]
    ref = counts["refpol"]
    assert ref["fix"] / (ref["fix"] + ref["still"]) == pytest.approx(m["fix_rate"])
    assert sum(ref.values()) == m["N_gold"]
    spec = report_data(page)["charts"]["transitions"]
    drawn = {(r["unit"], r["kind"]): r["n"] for r in spec["data"]["values"]}
    assert drawn[("Ref", "break")] == m["break_count"]


def test_tuple_text_cannot_inject_markup(tmp_path: Path) -> None:
    hostile_key = "</script><b id=x>key</b>"
    evaluation = evaluate_rows(tmp_path / "run", [
        row(hostile_key, gold=[item("본품#일반", HOSTILE)], stage1=[item("본품#일반", HOSTILE)],
            final=[item("본품#일반", "a & b <i>")]),
        row("k2", gold=[item("본품#품질", "x")], final=[item("본품#품질", "x")]),
    ])
    page = run_report(evaluation)
    assert b"<script>alert" not in page
    assert b"<b id=x>" not in page and b"<i>" not in page
    data = report_data(page)["samples"]
    index = data["key"].index(hostile_key)
    assert data["gold"][index] == [["본품#일반", HOSTILE, "positive"]]
    assert data["s2"][index] == [["본품#일반", "a & b <i>", "positive"]]


def test_run_id_markup_is_escaped_in_the_header(tmp_path: Path) -> None:
    evaluation = evaluate_rows(tmp_path / "run", [row("k1", gold=[item("본품#일반", "x")], run_id=HOSTILE)])
    page = run_report(evaluation)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in markup(page)
    assert b"<script>alert" not in page


def test_input_without_gold_says_so(tmp_path: Path) -> None:
    page = run_report(evaluate_run(CONFORMANCE / "nogold" / "scorecards.jsonl", workers=1))
    text = markup(page)
    assert "<code>gold_missing</code>: no sample has gold" in text
    assert ">N/A<" in text


def test_merged_input_lists_the_run_of_each_sample(tmp_path: Path) -> None:
    evaluation = evaluate_rows(tmp_path / "run", [
        row("k1", gold=[item("본품#일반", "x")], run_id="a"),
        row("k1", gold=[item("본품#일반", "x")], run_id="b"),
    ])
    samples = report_data(run_report(evaluation))["samples"]
    assert sorted(samples["run"]) == ["a", "b"]


def test_script_json_cannot_close_its_element() -> None:
    encoded = html.script_json({"t": "</script><!-- & >"})
    assert b"<" not in encoded and b">" not in encoded and b"&" not in encoded
    assert json.loads(encoded) == {"t": "</script><!-- & >"}


def test_an_asset_with_a_closing_tag_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "evil.js").write_text("var s = '</SCRIPT>';")
    monkeypatch.setattr(html, "ASSETS", tmp_path)
    html.asset.cache_clear()
    try:
        with pytest.raises(html.AssetError, match="closing tag"):
            html.asset("evil.js")
        with pytest.raises(html.AssetError, match="missing"):
            html.asset("absent.js")
    finally:
        html.asset.cache_clear()


def test_vendored_bundles_and_licenses_ship_with_the_package() -> None:
    for name in html.VENDORED:
        assert len(html.asset(name)) > 100_000
    assert (html.ASSETS / "LICENSE-vega.txt").exists()
    assert (html.ASSETS / "LICENSE-vega-lite.txt").exists()


def test_undefined_values_are_left_out_of_charts() -> None:
    rows = [{"unit": "Ref", "stage": "Stage 1", "f1": None}, {"unit": "Ref", "stage": "Final", "f1": 0.5},
            {"unit": "Attr", "stage": "Stage 1", "f1": 0.2}, {"unit": "Attr", "stage": "Final", "f1": 0.1}]
    spec = charts.stage_f1(rows, units=["Ref", "Attr"])
    values = spec["data"]["values"]
    assert [(v["unit"], v["stage"]) for v in values] == [("Ref", "Final"), ("Attr", "Final"), ("Attr", "Stage 1")]
    sides = {(v["unit"], v["stage"]): v["side"] for v in values}
    assert sides[("Attr", "Final")] == "left" and sides[("Attr", "Stage 1")] == "right"
    assert sides[("Ref", "Final")] == "right"
    assert spec["$schema"].endswith("vega-lite/v5.json")


def test_equal_stage_values_get_one_label_on_the_right() -> None:
    rows = [{"unit": "Ref", "stage": "Stage 1", "f1": 0.0}, {"unit": "Ref", "stage": "Final", "f1": 0.0}]
    sides = sorted(v["side"] for v in charts.stage_f1(rows, units=["Ref"])["data"]["values"])
    assert sides == ["none", "right"]


def test_shuffled_input_gives_the_same_page(tmp_path: Path) -> None:
    lines = SYNTH.read_bytes().splitlines(keepends=True)
    shuffled = tmp_path / "shuffled" / "scorecards.jsonl"
    shuffled.parent.mkdir()
    shuffled.write_bytes(b"".join(lines[1::2] + lines[::2]))
    original = run_report(evaluate_run(SYNTH, workers=1))
    assert run_report(evaluate_run(shuffled, workers=1)) == original
