"""docs/metrics.md is generated from the registry and is up to date."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from aggregator.metrics.docs import blank_rule, cell, derived_meaning, main, render
from aggregator.metrics.groups import shown_label
from aggregator.metrics.structural import STRUCTURAL
from aggregator.run.per_sample import build_table
from aggregator.units.projection import UNITS

DOC = Path(__file__).resolve().parents[1] / "docs" / "metrics.md"


@pytest.fixture(scope="module")
def text() -> str:
    return render()


def table_row(text: str, name: str) -> str:
    rows = [line for line in text.splitlines() if re.match(rf"\| (\d+ \| )?`{re.escape(name)}` \|", line)]
    assert len(rows) == 1, (name, rows)
    return rows[0]


def test_committed_doc_is_up_to_date(text: str) -> None:
    assert DOC.read_text(encoding="utf-8") == text, "docs/metrics.md is stale: run `python -m aggregator.metrics.docs`"


def test_every_registered_metric_has_a_row_with_its_declaration(text: str) -> None:
    for position, metric in enumerate(STRUCTURAL, 1):
        line = table_row(text, metric.name)
        assert line.startswith(f"| {position} | `{metric.name}` |")
        assert cell(metric.meaning) in line
        if metric.alias_of is None:
            for part in (shown_label(metric), metric.formula, metric.averaging, blank_rule(metric)):
                assert f"| {cell(part)} |" in line, (metric.name, part)
            if metric.compat:
                assert "Compatibility column, do not cite" in line and metric.label + " †" in line
        else:
            assert f"`{metric.alias_of}`" in table_row(text, metric.alias_of)


def test_blank_rules_follow_the_declarations() -> None:
    assert blank_rule(STRUCTURAL["n"]) == "never"
    assert blank_rule(STRUCTURAL["break_count"]) == "never"
    assert blank_rule(STRUCTURAL["tuple_f1_s2"]) == "gold unavailable (N = 0)"
    assert blank_rule(STRUCTURAL["tuple_f1_s2_refpol_tp"]) == "gold unavailable (N = 0)"
    assert blank_rule(STRUCTURAL["cda"]) == "gold unavailable (N = 0) or denominator 0"


def test_every_unit_and_per_sample_column_is_documented(text: str) -> None:
    for unit in UNITS:
        table_row(text, unit)
    for column in build_table([], []).columns:
        table_row(text, column)


def test_an_undocumented_derived_column_is_refused() -> None:
    with pytest.raises(KeyError, match="no documented meaning"):
        derived_meaning("refpol_s1_surprise")


def test_doc_holds_no_machine_path(text: str) -> None:
    assert not re.search(r"(/work/|/tmp/|/home/|/Users/|[A-Z]:\\)", text)


def test_cli_writes_and_checks(tmp_path: Path, text: str, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "docs" / "metrics.md"
    assert main(["--check", str(out)]) == 1
    assert main([str(out)]) == 0
    assert out.read_text(encoding="utf-8") == text
    assert main(["--check", str(out)]) == 0
    out.write_text(text.replace("| `cda` |", "| `cda_old` |"), encoding="utf-8")
    assert main(["--check", str(out)]) == 1
    assert "out of date" in capsys.readouterr().out
