"""``aggregate score --outdir``: the files written, the summary, and a format without a reproduced scorer."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from tests.conftest import FIXTURES, run_cli
from tests.peer_expected import case_files

SEMEVAL16 = """<?xml version="1.0"?>
<Reviews><Review rid="1"><sentences>
<sentence id="1:0"><text>Great food, slow staff.</text><Opinions>
<Opinion target="food" category="FOOD#QUALITY" polarity="positive" from="6" to="10"/>
<Opinion target="NULL" category="SERVICE#GENERAL" polarity="negative" from="0" to="0"/>
</Opinions></sentence>
</sentences></Review></Reviews>
"""


def test_outdir_holds_the_json_the_tables_and_the_report(tmp_path: Path) -> None:
    gold, pred, fmt = case_files(FIXTURES / "peer" / "asqp" / "case_1")
    done = run_cli("score", gold, pred, "--format", fmt, "--outdir", tmp_path / "out", "--semantics", "official")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[2].strip().startswith("official") and lines[3].strip().startswith("sound")
    assert "18 × empty_junk: quad F1 -0.0100" in done.stdout
    assert "wrote 5 files to" in lines[-1]
    out = tmp_path / "out"
    body = json.loads((out / "score.json").read_text())
    assert body["provenance"]["gold_sha256"] and body["official"]["f1"] == body["units"]["official"][0]["f1"]
    table = pl.read_parquet(out / "per_sentence.parquet")
    assert table.height == 300 and table["category_sentiment_aspect_opinion_tp"].sum() == 229
    assert pl.read_csv(out / "per_sentence.csv", schema=table.schema).equals(table, null_equal=True)
    units = pl.read_csv(out / "units.csv")
    assert set(units["semantics"]) == {"sound", "official"}
    assert "compat report (official − sound)" in (out / "compat_report.md").read_text()


def test_semeval16_is_scored_soundly_without_an_official_scorer(tmp_path: Path) -> None:
    xml = tmp_path / "g.xml"
    xml.write_text(SEMEVAL16)
    done = run_cli("score", xml, xml, "--format", "semeval16", "--json")
    assert done.returncode == 0, done.stderr
    body = json.loads(done.stdout)
    assert body["official"] is None and "no official scorer" in body["official_unavailable"]
    assert body["sound"]["category"]["f1"] == 1.0 and body["sound"]["aspect"]["f1"] == 1.0
    rows = {r["unit"]: r for r in body["units"]["sound"]}
    assert rows["aspect"]["tp"] == 1 and rows["category aspect"]["tp"] == 2


def test_semeval16_summary_shows_its_polarity_units_under_the_json_names(tmp_path: Path) -> None:
    gold, pred = tmp_path / "g.xml", tmp_path / "p.xml"
    gold.write_text(SEMEVAL16)
    pred.write_text(SEMEVAL16.replace('polarity="negative"', 'polarity="positive"'))
    text = run_cli("score", gold, pred, "--format", "semeval16")
    body = json.loads(run_cli("score", gold, pred, "--format", "semeval16", "--json").stdout)
    units = [line.strip() for line in text.stdout.splitlines() if line.startswith("  ") and not line.startswith("    ")]
    assert units[:-1] == list(body["sound"]) == ["category", "aspect", "category aspect", "category sentiment",
                                                  "category sentiment aspect"]
    assert body["sound"]["category"]["f1"] == 1.0 and body["sound"]["category sentiment"]["f1"] == 0.5
    assert "    sound     P 0.5000  R 0.5000  F1 0.5000" in text.stdout
