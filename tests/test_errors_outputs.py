"""Error anatomy in every output of a run: the CSV (after the research columns), the per-sample table,
the Markdown section, the report, ``aggregate samples --only error:CLASS``; and in a comparison of the
13 vendored runs (comparison.md, the paper table)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import polars as pl
import pytest

from aggregator.compare.api import compare_runs
from aggregator.compare.markdown import comparison_markdown
from aggregator.compare.paper import paper_markdown, paper_table
from aggregator.metrics.structural import REFERENCE_COLUMNS
from aggregator.units.error_anatomy import UNIT_CLASSES, gold_side
from aggregator.units.error_classes import SPURIOUS
from tests.conftest import RUNS, run_cli
from tests.test_report import report_data

RUN = RUNS / "cr_n50_m1_v2__seed42"


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("errors")
    done = run_cli(RUN, "--outdir", out, "--quiet")
    assert done.returncode == 0, done.stderr
    return out


def _values(out: Path) -> dict[str, str]:
    with open(out / "structural_metrics.csv", newline="", encoding="utf-8") as handle:
        return next(csv.DictReader(handle))


def test_the_class_columns_come_after_the_research_and_fixed_columns(written: Path) -> None:
    header = list(_values(written))
    ours = [i for i, name in enumerate(header) if name.startswith("errors_")]
    assert header[: len(REFERENCE_COLUMNS)] == list(REFERENCE_COLUMNS)
    assert ours == list(range(len(header) - len(ours), len(header)))
    assert max(i for i, name in enumerate(header) if name.endswith("_fixed")) < ours[0]


def test_the_class_counts_add_up_to_the_pairs_of_each_unit_and_stage(written: Path) -> None:
    values = {k: float(v) for k, v in _values(written).items() if k.startswith(("errors_", "tuple_f1_s2_")) and v}
    for unit, classes in UNIT_CLASSES.items():
        for stage in ("s1", "s2"):
            gold = sum(values[f"errors_{c}_{stage}_{unit}"] for c in ("exact", *gold_side(unit)))
            pred = sum(values[f"errors_{c}_{stage}_{unit}"] for c in ("exact", *classes) if c != "missed")
            assert gold == values[f"errors_n_gold_{unit}"] and pred == values[f"errors_n_pred_{stage}_{unit}"]
            assert sum(values[f"errors_{c}_{stage}_{unit}_per_gold"] for c in ("exact", *gold_side(unit))) == pytest.approx(1)
        if unit != "attrpol":
            assert values[f"errors_exact_s2_{unit}"] == values[f"tuple_f1_s2_{unit}_tp"]


def test_every_sample_splits_its_pairs_into_classes(written: Path) -> None:
    table = pl.read_parquet(written / "per_sample.parquet")
    assert table.get_column("err_otepol_s2_boundary").dtype == pl.UInt8
    for unit, classes in UNIT_CLASSES.items():
        for stage in ("s1", "s2"):
            tp, fp, fn = (table.get_column(f"{unit}_{stage}_{c}").cast(pl.Int64) for c in ("tp", "fp", "fn"))
            gold = sum(table.get_column(f"err_{unit}_{stage}_{c}").cast(pl.Int64) for c in gold_side(unit))
            pred = sum(table.get_column(f"err_{unit}_{stage}_{c}").cast(pl.Int64) for c in classes if c != "missed")
            assert (gold == fn).all() and (pred == fp).all(), (unit, stage)  # type: ignore[union-attr]
            assert (tp >= 0).all()


def test_the_markdown_shows_each_unit_with_n_the_review_and_examples(written: Path) -> None:
    text = (written / "structural_metrics_table.md").read_text(encoding="utf-8")
    section = text[text.index("## Error anatomy by unit"):]
    assert section.count("### ") == 3 and "### Ref (refpol) ⚠ (`ref_unmeasurable`" in section
    assert "n gold = 54; n pred S1 = 176, final = 176." in section
    assert "| boundary | 7 | 0.1296 | 0.0398 | 7 | 0.1296 | 0.0398 |" in section
    assert "Class changes (stage 1 → final, gold pairs): missed → implicit 22" in section
    examples = [line for line in section.splitlines() if line.startswith("- **boundary** · sample ")]
    assert 1 <= len(examples) <= 9 and "↔ final “리시버가 들어있어야 하는 것” · negative" in section


def test_the_report_charts_the_review_per_unit_and_filters_samples_by_class(written: Path) -> None:
    page = (written / "report.html").read_bytes()
    data = report_data(page)
    assert "errors_refpol" in data["charts"] and "errors_otepol" not in data["charts"]  # the review moved nothing there
    assert b'id="errors"' in page and b"The review repaired, changed and introduced no error" in page
    table = pl.read_parquet(written / "per_sample.parquet")
    codes = data["samples"]["units"]["otepol"]["errors"]
    assert [("b" in c) for c in codes] == (table.get_column("err_otepol_s2_boundary") > 0).to_list()
    assert dict(data["samples"]["error_classes"])["s"] == SPURIOUS


def test_samples_lists_the_samples_of_a_class_with_each_tuples_class(written: Path) -> None:
    done = run_cli("samples", RUN, "--unit", "otepol", "--only", "error:boundary", "--limit", "0", "--json")
    assert done.returncode == 0, done.stderr
    samples = json.loads(done.stdout)["samples"]
    table = pl.read_parquet(written / "per_sample.parquet")
    expected = table.filter(pl.col("err_otepol_s2_boundary") > 0).get_column("sample_key").to_list()
    assert [s["sample_key"] for s in samples] == expected == sorted(expected) and len(expected) == 6
    for sample in samples:
        assert any(t["error"] == "boundary" for t in sample["gold"]) and any(t["error"] == "boundary" for t in sample["s2"])
    text = run_cli("samples", RUN, "--unit", "otepol", "--only", "error:boundary", "--limit", "1").stdout
    assert "[boundary]" in text and "[class] error class" in text
    refused = run_cli("samples", RUN, "--unit", "otepol", "--only", "error:category")
    assert refused.returncode == 2 and "carries no ref" in refused.stderr and "Traceback" not in refused.stderr


CLASS_RATES = ["errors_boundary_s2_otepol_per_gold", "errors_polarity_s2_otepol_per_gold",
               "errors_spurious_s2_otepol_per_pred"]


def test_a_comparison_gives_each_class_its_interval_and_paired_delta() -> None:
    result = compare_runs(sorted(RUNS.iterdir()), resamples=300, metrics=CLASS_RATES)
    text = comparison_markdown(result)
    section = text[text.index("## Error anatomy (final stage)"):]
    conditions = result.conditions_order
    for unit, classes in (("Surface", ("exact", "polarity", "boundary", "implicit", "missed", "spurious")),):
        for cls in classes:
            rows = [line for line in section.splitlines() if line.startswith(f"| {unit} | {cls} | `")]
            assert len(rows) == len(conditions) + len(conditions) - 1, cls  # one row per condition, one per contrast
    row = result.conditions.filter((pl.col("metric") == CLASS_RATES[0]) & (pl.col("condition") == conditions[1])).row(0, named=True)
    assert row["ci_low"] < row["mean"] < row["ci_high"]
    cells = f"{row['mean']:.4f} ± {row['sd']:.4f} | [{row['ci_low']:.4f}, {row['ci_high']:.4f}]"
    assert f"| Surface | boundary | `{conditions[1]}` | 5 | {cells} |" in section
    paired = result.paired.filter(pl.col("metric") == CLASS_RATES[0]).height
    assert paired == len(conditions) - 1
    table = paper_table(result, "ci")
    assert table.metrics == CLASS_RATES and table.cells[(conditions[1], CLASS_RATES[0])] is not None
    assert "Surface boundary per gold S2" in paper_markdown(table)
