"""The metric-family framework: merged schemas, selections, and each family's boundaries."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import msgspec
import pytest

from aggregator.metrics.families import FAMILY_MODULES, UnknownFamily, resolve, selection
from aggregator.metrics.structural import STRUCTURAL, build_registry
from aggregator.run.sample_values import SampleEvaluator, columns_for, decoder_for
from aggregator.units.sample_counts import COLUMNS
from scorecards.record import to_record
from scorecards.schema_merge import SchemaConflict, merge_structs
from tests.conftest import CONFORMANCE, run_cli
from tests.scorecard_rows import evaluate_rows, item, row

GOLD = [item("본품#품질", "향", "positive")]


class _A(msgspec.Struct):
    x: Any = None


class _B(msgspec.Struct):
    y: Any = None


class _OuterA(msgspec.Struct):
    meta: _A | None = None
    keep: int | None = None


class _OuterB(msgspec.Struct):
    meta: _B | None = None


class _Clash(msgspec.Struct):
    meta: Any = None


def test_merged_structs_read_every_declared_field_in_one_decode() -> None:
    merged = merge_structs("Row", _OuterA, _OuterB)
    value = msgspec.json.decode(b'{"meta": {"x": 1, "y": 2, "z": 3}, "keep": 4}', type=merged)
    assert (value.meta.x, value.meta.y, value.keep) == (1, 2, 4)
    assert not hasattr(value.meta, "z")


def test_two_readings_of_one_field_that_cannot_merge_are_refused() -> None:
    with pytest.raises(SchemaConflict, match="meta"):
        merge_structs("Row", _OuterA, _Clash)


def test_every_family_in_force_merges_into_one_decoder() -> None:
    assert isinstance(decoder_for(None), msgspec.json.Decoder)
    assert {f.name for f in resolve(None)} == set(FAMILY_MODULES)


def test_a_selection_brings_its_requirements_first() -> None:
    for fam in resolve(None):
        chosen = [f.name for f in resolve((fam.name,))]
        assert chosen[-1] == fam.name
        for required in fam.requires:
            assert chosen.index(required) < chosen.index(fam.name)


def test_unknown_family_names_the_known_ones() -> None:
    with pytest.raises(UnknownFamily, match="known: core"):
        selection(["core", "no_such_family"])


def test_each_family_row_matches_its_columns_on_real_rows() -> None:
    lines = (CONFORMANCE / "synth_diag_pub" / "scorecards.jsonl").read_bytes().splitlines()[:40]
    evaluator = SampleEvaluator(None)
    width = len(columns_for(None))
    for number, line in enumerate(lines, 1):
        record = to_record(evaluator.row_decoder().decode(line), number, "run")
        assert len(evaluator(record)) == width


def test_each_metric_reads_only_the_core_its_family_and_what_it_requires() -> None:
    core = {c.name for c in COLUMNS} | set(STRUCTURAL_TABLE_DERIVED)
    owners = {c.name: f.name for f in resolve(None) for c in f.columns}
    for metric in STRUCTURAL:
        if metric.expr is None or metric.family == "core":
            continue
        allowed = {metric.family, *(f.name for f in resolve((metric.family,)))}
        for name in metric.expr.meta.root_names():
            assert name in core or owners.get(name) in allowed, (metric.name, name)


STRUCTURAL_TABLE_DERIVED = [
    f"{u}_{s}_{w}" for u in ("refpol", "otepol", "attrpol") for s in ("s1", "s2") for w in ("precision", "recall", "f1", "correct")
] + [f"{u}_transition" for u in ("refpol", "otepol", "attrpol")] + [
    "refpol_explicit_s2_f1", "otepol_explicit_s2_precision", "otepol_explicit_s2_recall", "otepol_explicit_s2_f1",
    "refpol_explicit_s2_precision", "refpol_explicit_s2_recall", "implicit_polarity_f1",
]


def test_core_only_selection_writes_the_core_columns_with_the_same_values(tmp_path: Path) -> None:
    rows = [row("a", gold=GOLD, final=GOLD), row("b", gold=GOLD, final=[item("본품#품질", "향", "negative")])]
    full = evaluate_rows(tmp_path / "full", rows)
    core = evaluate_rows(tmp_path / "core", rows, families=("core",))
    assert core.families == ("core",)
    assert set(core.metrics) == set(build_registry(("core",)).names) < set(full.metrics)
    assert all(core.metrics[name] == full.metrics[name] for name in core.metrics)
    assert core.table.width < full.table.width


def test_families_option_of_the_command(tmp_path: Path) -> None:
    source = CONFORMANCE / "synth_pub" / "scorecards.jsonl"
    done = run_cli(source, "--families", "core", "--outdir", tmp_path / "core", "--quiet")
    assert done.returncode == 0, done.stderr
    with open(tmp_path / "core" / "structural_metrics.csv", newline="", encoding="utf-8") as handle:
        header = next(csv.reader(handle))
    assert header == build_registry(("core",)).names
    bad = run_cli(source, "--families", "core,nope", "--outdir", tmp_path / "bad")
    assert bad.returncode == 2 and bad.stderr.startswith("aggregate: error: --families: unknown metric family 'nope'")
    assert len(bad.stderr.splitlines()) == 1 and not (tmp_path / "bad").exists()
