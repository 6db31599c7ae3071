"""Outputs never over an input, never into an empty path: the one check of every command that writes (issue #25).

``aggregate convert --out GOLD`` replaced the gold file with scorecards and exited 0; ``score --outdir``
overwrote inputs named like its outputs (``units.csv``) and wrote into the current directory when
given ``''``; ``convert --out ''`` named ``--outdir``. :func:`aggregator.outputs.destination.check_destination`
is the one check (``RUN``, ``compare``, ``score``, ``convert``, and ``legacy`` through it).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from aggregator import aggregate_run
from aggregator.outputs.atomic import write_outputs
from aggregator.outputs.destination import OutputError, check_destination, check_output_file
from tests.conftest import FIXTURES, RUNS, run_cli
from tests.outcomes import ERROR_PREFIX

PEER = FIXTURES / "peer"


def one_error_line(done: object, *hints: str) -> str:
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr  # type: ignore[attr-defined]
    lines = done.stderr.splitlines()  # type: ignore[attr-defined]
    assert len(lines) == 1 and lines[0].startswith(ERROR_PREFIX), lines
    for hint in hints:
        assert hint in lines[0], lines[0]
    return lines[0]


def copies(tmp_path: Path, fmt: str, names: tuple[str, str]) -> tuple[Path, Path]:
    case = PEER / {"nikluge": "nikluge_sa_2022"}.get(fmt, fmt) / "case_1"
    extension = {"nikluge": "jsonl", "aste": "txt"}[fmt]
    gold, pred = tmp_path / names[0], tmp_path / names[1]
    shutil.copyfile(case / f"gold.{extension}", gold)
    shutil.copyfile(case / f"pred.{extension}", pred)
    return gold, pred


@pytest.mark.parametrize("fmt", ["aste", "nikluge"])
@pytest.mark.parametrize("which", ["gold", "pred", "link to pred"])
def test_convert_never_writes_over_its_inputs(tmp_path: Path, fmt: str, which: str) -> None:
    """For NIKLuge, whose input is already ``.jsonl``, ``--out pred.jsonl`` reads like an in-place conversion."""
    gold, pred = copies(tmp_path, fmt, ("gold.jsonl", "pred.jsonl"))
    before = gold.read_bytes(), pred.read_bytes()
    out = {"gold": gold, "pred": pred, "link to pred": tmp_path / "link.jsonl"}[which]
    if which == "link to pred":
        out.symlink_to(pred)
    line = one_error_line(run_cli("convert", gold, pred, "--format", fmt, "--out", out),
                          f"{out}: is the input", "choose another file with --out")
    assert "outputs" not in line
    assert (gold.read_bytes(), pred.read_bytes()) == before


def test_convert_out_empty_or_a_directory_is_refused(tmp_path: Path) -> None:
    gold, pred = copies(tmp_path, "aste", ("gold.txt", "pred.txt"))
    one_error_line(run_cli("convert", gold, pred, "--format", "aste", "--out", "", cwd=tmp_path),
                   "--out", "is empty", "no --out for stdout")
    one_error_line(run_cli("convert", gold, pred, "--format", "aste", "--out", tmp_path), "is a directory")
    one_error_line(run_cli("convert", gold, pred, "--format", "aste", "--out", "."), "is a directory")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["gold.txt", "pred.txt"]


def test_score_outdir_never_overwrites_an_input_named_like_an_output(tmp_path: Path) -> None:
    outdir = tmp_path / "out"
    outdir.mkdir()
    gold, pred = copies(outdir, "aste", ("units.csv", "per_sentence.csv"))
    before = gold.read_bytes(), pred.read_bytes()
    for given in (pred, tmp_path / "link"):
        if given != pred:
            given.symlink_to(pred)
        one_error_line(run_cli("score", gold, given, "--format", "aste", "--outdir", outdir),
                       f"{outdir / 'units.csv'}: is the input {gold}", "choose another directory with --outdir")
    assert (gold.read_bytes(), pred.read_bytes()) == before
    assert sorted(p.name for p in outdir.iterdir()) == ["per_sentence.csv", "units.csv"]


def test_score_outdir_empty_writes_nothing_here(tmp_path: Path) -> None:
    gold, pred = PEER / "aste" / "case_1" / "gold.txt", PEER / "aste" / "case_1" / "pred.txt"
    one_error_line(run_cli("score", gold, pred, "--format", "aste", "--outdir", "", cwd=tmp_path),
                   "--outdir", "is empty")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("kind", ["file", "dangling link", "below a file"])
def test_an_outdir_that_cannot_be_a_directory_is_named(tmp_path: Path, kind: str) -> None:
    (tmp_path / "file").write_text("x")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    outdir = {"file": tmp_path / "file", "dangling link": tmp_path / "dangling",
              "below a file": tmp_path / "file" / "out"}[kind]
    hint = {"file": "is a file, not a directory", "dangling link": "which does not exist",
            "below a file": "lies below a file"}[kind]
    gold, pred = PEER / "aste" / "case_1" / "gold.txt", PEER / "aste" / "case_1" / "pred.txt"
    for command in (["score", gold, pred, "--format", "aste"], [RUNS / "cr_n50_m1_v2__seed42"]):
        one_error_line(run_cli(*command, "--outdir", outdir), hint, "with --outdir")
    assert not (tmp_path / "nowhere").exists()


def test_the_check_is_one_function_the_writers_and_other_commands_call(tmp_path: Path) -> None:
    """What ``aggregate legacy`` calls: refuses an empty path, an input among the outputs (also a hard
    link), a loop; accepts a directory still to be made. ``write_outputs`` runs it before staging."""
    source = tmp_path / "in" / "scores.csv"
    source.parent.mkdir()
    source.write_text("x")
    os.link(source, tmp_path / "in" / "hard.csv")
    check_destination(tmp_path / "new" / "dir", ["scores.csv"], [source])
    with pytest.raises(OutputError, match="is empty"):
        check_destination("", ["a"], [])
    with pytest.raises(OutputError, match=f"{tmp_path / 'in' / 'hard.csv'}: is the input {source}"):
        check_destination(tmp_path / "in", ["hard.csv"], [source])
    (tmp_path / "loop").symlink_to("loop")
    with pytest.raises(OutputError, match="loop of symbolic links"):
        check_destination(tmp_path / "loop" / "x", ["a"], [])
    with pytest.raises(OutputError, match="choose another file with --out"):
        check_output_file(source, [source])
    with pytest.raises(OutputError, match="is the input"):
        write_outputs(tmp_path / "in", {"scores.csv": b"new"}, inputs=[source])
    with pytest.raises(OutputError, match="is empty"):
        write_outputs("", {"a": b""})
    with pytest.raises(OutputError, match="is empty"):
        aggregate_run(RUNS / "cr_n50_m1_v2__seed42", outdir="")
    assert source.read_text() == "x"


def test_a_taxonomy_file_is_an_input_too(tmp_path: Path) -> None:
    outdir = tmp_path / "out"
    outdir.mkdir()
    taxonomy = outdir / "run_metadata.json"
    taxonomy.write_text('{"refs": ["본품#품질"]}')
    one_error_line(run_cli(RUNS / "cr_n50_m1_v2__seed42", "--outdir", outdir, "--taxonomy", taxonomy),
                   f"{taxonomy}: is the input")
    assert taxonomy.read_text() == '{"refs": ["본품#품질"]}'
