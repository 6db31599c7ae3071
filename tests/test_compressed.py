"""Compressed scorecards (gzip, zstd): chosen by magic bytes, streamed, the same outputs as the plain file."""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil
from pathlib import Path

import pytest
import zstandard

from tests.conftest import RUNS, run_cli, write_lines
from tests.outcomes import ERROR_PREFIX, but_warnings

RUN = RUNS / "cr_n50_m1_v2__seed42"
SAME_BYTES = ("structural_metrics.csv", "per_sample.csv", "per_sample.parquet")
COMPRESS = {"gz": gzip.compress, "zst": lambda data: zstandard.ZstdCompressor().compress(data)}


def aggregate(path: Path, out: Path, *extra: str) -> dict[str, bytes]:
    done = run_cli(path, "--outdir", out, "--quiet", "--allow", "ref_unmeasurable", *extra)
    assert done.returncode == 0, done.stderr
    return {p.name: p.read_bytes() for p in out.iterdir()}


@pytest.fixture(scope="module")
def plain(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    return aggregate(RUN / "scorecards.jsonl", tmp_path_factory.mktemp("plain"))


@pytest.mark.parametrize("suffix", list(COMPRESS))
def test_a_compressed_run_gives_the_plain_files_byte_for_byte(plain: dict[str, bytes], tmp_path: Path, suffix: str) -> None:
    run = tmp_path / RUN.name
    run.mkdir()
    data = COMPRESS[suffix]((RUN / "scorecards.jsonl").read_bytes())
    (run / f"scorecards.jsonl.{suffix}").write_bytes(data)
    files = aggregate(run, tmp_path / "out")  # the run directory's compressed scorecards are found
    for name in SAME_BYTES:
        assert files[name] == plain[name], name
    metadata = json.loads(files["run_metadata.json"])
    assert metadata["input_sha256"] == hashlib.sha256(data).hexdigest()
    assert metadata["input_path"].endswith(f"scorecards.jsonl.{suffix}")


def test_the_format_is_read_from_the_magic_bytes_not_the_name(plain: dict[str, bytes], tmp_path: Path) -> None:
    disguised = tmp_path / "gzip_named_plain.jsonl"
    disguised.write_bytes(gzip.compress((RUN / "scorecards.jsonl").read_bytes()))
    plain_named_gz = tmp_path / "plain.jsonl.gz"
    shutil.copyfile(RUN / "scorecards.jsonl", plain_named_gz)
    for path in (disguised, plain_named_gz):
        files = aggregate(path, tmp_path / path.name.replace(".", "_"))
        assert files["structural_metrics.csv"] == plain["structural_metrics.csv"]


def test_bad_lines_in_a_compressed_file_are_named_as_in_the_plain_file(tmp_path: Path) -> None:
    good = (RUN / "scorecards.jsonl").read_bytes().splitlines()[:3]
    plain = write_lines(tmp_path / "s.jsonl", [good[0], b"not json", good[1], b'{"x": "\xff"}', good[2]])
    packed = tmp_path / "s.jsonl.gz"
    packed.write_bytes(gzip.compress(plain.read_bytes()))
    for path in (plain, packed):
        strict = run_cli(path, "--outdir", tmp_path / "strict")
        [line] = but_warnings(strict.stderr)
        assert strict.returncode == 2 and line.startswith(f"{ERROR_PREFIX}{path}:2: not valid JSON: "), line
        out = tmp_path / f"out_{path.name}"
        skipping = run_cli(path, "--outdir", out, "--skip-bad-lines", "--quiet")
        assert skipping.returncode == 0, skipping.stderr
        skipped = json.loads((out / "run_metadata.json").read_text())["skipped_lines"]
        assert [(s["line"], s["reason"]) for s in skipped] == [(2, skipped[0]["reason"]), (4, "invalid UTF-8 at byte 7")]


@pytest.mark.parametrize("suffix", list(COMPRESS))
def test_damaged_compressed_data_is_one_error_line(tmp_path: Path, suffix: str) -> None:
    data = COMPRESS[suffix]((RUN / "scorecards.jsonl").read_bytes())
    cut = tmp_path / f"cut.jsonl.{suffix}"
    cut.write_bytes(data[: len(data) // 2])
    done = run_cli(cut, "--outdir", tmp_path / "out")
    assert done.returncode == 2 and not (tmp_path / "out").exists()
    [line] = done.stderr.splitlines()
    assert line.startswith(f"{ERROR_PREFIX}{cut}: the compressed data is damaged or cut short"), line
