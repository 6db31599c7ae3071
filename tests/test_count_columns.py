"""Per-sample "count" columns: one byte a row, widened exactly (never wrapped or nulled) when a value needs more."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from aggregator.commands.main import cli
from aggregator.run.sample_values import _TYPECODES, frame_of, pack_rows, table_of
from aggregator.units.sample_counts import Column
from tests.scorecard_rows import evaluate_rows, item, row, write_rows

if TYPE_CHECKING:
    import pytest

COLUMNS = (Column("sample_key", "str", ""), Column("split", "str", ""), Column("run_id", "str", ""),
           Column("n", "count", ""))


@settings(max_examples=60, deadline=None)
@given(values=st.lists(st.integers(0, 2**40), min_size=1, max_size=12), cut=st.integers(1, 5))
def test_counts_load_as_their_values_whatever_blocks_they_come_in(values: list[int], cut: int) -> None:
    rows = [(f"k{i:03}", "", "r", v) for i, v in enumerate(values)]
    blocks = [pack_rows(rows[start:start + cut], COLUMNS) for start in range(0, len(rows), cut)]
    frames = [frame_of([block], COLUMNS) for block in blocks]
    column = table_of(frames, list(range(1, len(rows) + 1)), None).get_column("n")
    assert column.to_list() == values
    assert column.dtype == (pl.UInt8 if max(values) <= 255 else pl.Int64)


def test_a_sample_with_hundreds_of_missed_pairs_is_counted_exactly(tmp_path: Path) -> None:
    gold = [item(f"본품#품질{i}", f"term{i}", "positive") for i in range(300)]
    rows = [row("a", gold=gold, final=[]), row("b", gold=[item("본품#품질", "향")], final=[item("본품#품질", "향")])]
    evaluation = evaluate_rows(tmp_path / "run", rows)
    table = evaluation.table
    assert table.get_column("err_refpol_s2_missed").to_list() == [300, 0]
    assert table.get_column("err_refpol_s2_missed").dtype == pl.Int64
    assert evaluation.metrics["errors_missed_s2_refpol"] == 300
    assert evaluation.metrics["errors_missed_s2_refpol_per_gold"] == 300 / 301


def _crowded_run(directory: Path, pairs: int) -> Path:
    """A run whose error counts each fit a byte but add up past one: ``pairs`` gold pairs missed and as many
    predictions spurious in one sample (no term, ref or polarity in common), ``pairs - 10`` missed in another."""
    gold = [item(f"본품#품질{i}", chr(0xAC00 + i), "positive") for i in range(pairs)]
    final = [item(f"브랜드#가격{i}", chr(0xC000 + i), "negative") for i in range(pairs)]
    rows = [row("crowded", gold=gold, stage1=gold[:5], final=final),
            row("reviewed", gold=gold, stage1=final, final=gold[:10]),
            row("a", gold=[item("본품#품질", "향")], final=[item("본품#품질", "향")]),
            row("b", gold=[item("본품#품질", "향")], stage1=[item("본품#가격", "향", "negative")],
                final=[item("본품#가격", "향", "negative")])]
    write_rows(directory / "scorecards.jsonl", rows)
    return directory


def _outputs(directory: Path) -> dict[str, bytes]:
    return {str(p.relative_to(directory)): p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


def test_counts_held_in_a_byte_give_every_number_of_counts_held_in_eight(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Polars wraps byte arithmetic silently (200 + 100 is 44 in UInt8): every output of a run, a comparison and
    ``aggregate legacy`` must be the same when the "count" columns are held as Int64 (only the Parquet types differ)."""
    runs = [_crowded_run(tmp_path / "runs" / f"{condition}__seed{seed}", 130 + 40 * (condition == "c2") + seed)
            for condition in ("c1", "c2") for seed in (1, 2)]

    def everything(out: Path) -> dict[str, bytes]:
        for args in ([runs[0], "--outdir", out / "run"],
                     ["compare", *runs, "--outdir", out / "compare", "--resamples", "200", "--no-cache"],
                     ["legacy", "--input", runs[0] / "scorecards.jsonl", "--outdir", out / "legacy",
                      "--export_triptych_table", out / "legacy" / "triptych.tsv", "--diagnostics_dir",
                      out / "legacy" / "diagnostics"]):
            result = CliRunner().invoke(cli, [str(a) for a in args])
            assert result.exit_code == 0, (result.output, result.exception)
        return _outputs(out)

    narrow = everything(tmp_path / "narrow")
    table = pl.read_parquet(tmp_path / "narrow" / "run" / "per_sample.parquet")
    assert table.get_column("err_refpol_s2_missed").dtype == pl.UInt8
    assert max(table.get_column("err_refpol_s2_missed")) + max(table.get_column("err_refpol_s2_spurious")) > 255
    monkeypatch.setitem(_TYPECODES, "count", ("q",))
    wide = everything(tmp_path / "wide")
    assert pl.read_parquet(tmp_path / "wide" / "run" / "per_sample.parquet").equals(table.cast(
        {name: pl.Int64 for name, dtype in table.schema.items() if dtype == pl.UInt8}))
    differ = {"run/per_sample.parquet", "run/run_metadata.json"}
    assert narrow.keys() == wide.keys()
    assert [name for name in narrow if name not in differ and narrow[name] != wide[name]] == []
