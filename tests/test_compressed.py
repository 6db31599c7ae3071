"""Compressed scorecards (gzip, zstd): chosen by magic bytes, streamed, the same outputs as the plain file."""

from __future__ import annotations

import bz2
import gzip
import hashlib
import io
import json
import lzma
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
import zstandard
from blake3 import blake3
from hypothesis import given, settings
from hypothesis import strategies as st

import scorecards.lines as lines_module
from scorecards import compressed
from scorecards.errors import BadLineError
from scorecards.reader import read_scorecards
from scorecards.scan import utf8_error
from tests.conftest import RUNS, run_cli, write_lines
from tests.outcomes import ERROR_PREFIX, but_warnings

RUN = RUNS / "cr_n50_m1_v2__seed42"
SAME_BYTES = ("structural_metrics.csv", "per_sample.csv", "per_sample.parquet")
COMPRESS = {"gz": gzip.compress, "zst": lambda data: zstandard.ZstdCompressor().compress(data)}
SKIPPABLE_MAGIC = compressed.SKIPPABLE


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
    assert metadata["reuse"]["input_blake3"] == blake3(data).hexdigest()
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


SKIPPABLE = b"\x50\x2a\x4d\x18" + (4).to_bytes(4, "little") + b"pzst"


def test_skippable_frames_and_several_frames_are_read(plain: dict[str, bytes], tmp_path: Path) -> None:
    """``pzstd`` writes a skippable frame first: it was reported as invalid UTF-8 (issue #25)."""
    data = (RUN / "scorecards.jsonl").read_bytes()
    half = data.index(b"\n", len(data) // 2) + 1
    compress = zstandard.ZstdCompressor().compress
    packed = tmp_path / "pzstd.jsonl.zst"
    packed.write_bytes(SKIPPABLE + compress(data[:half]) + SKIPPABLE + compress(data[half:]) + SKIPPABLE)
    assert aggregate(packed, tmp_path / "out")["structural_metrics.csv"] == plain["structural_metrics.csv"]
    if shutil.which("pzstd"):
        made = tmp_path / "made.jsonl.zst"
        subprocess.run(["pzstd", "-q", "-p", "2", str(RUN / "scorecards.jsonl"), "-o", str(made)], check=True)
        assert made.read_bytes()[:4] in SKIPPABLE_MAGIC
        assert aggregate(made, tmp_path / "made")["structural_metrics.csv"] == plain["structural_metrics.csv"]


def test_a_zstd_window_beyond_128_mib_is_named(tmp_path: Path) -> None:
    """``zstd --long=31`` output (a 2 GiB window) was called damaged."""
    params = zstandard.ZstdCompressionParameters(window_log=31, enable_ldm=True, write_content_size=False)
    writer = zstandard.ZstdCompressor(compression_params=params).compressobj()
    packed = tmp_path / "long.jsonl.zst"
    packed.write_bytes(writer.compress((RUN / "scorecards.jsonl").read_bytes()) + writer.flush())
    done = run_cli(packed, "--outdir", tmp_path / "out")
    assert done.returncode == 2 and not (tmp_path / "out").exists()
    [line] = done.stderr.splitlines()
    assert line.startswith(f"{ERROR_PREFIX}{packed}: the zstd data needs a window of 2,048 MiB"), line
    assert "zstd -d --long=31" in line


@pytest.mark.parametrize(("name", "pack"), [("xz", lzma.compress), ("bzip2", bz2.compress),
                                            ("zip", lambda data: b"PK\x03\x04" + data)])
def test_compressed_formats_not_read_are_named(tmp_path: Path, name: str, pack: Callable[[bytes], bytes]) -> None:
    """``.xz`` and ``.bz2`` files were reported as invalid UTF-8."""
    packed = tmp_path / "scorecards.jsonl"
    packed.write_bytes(pack((RUN / "scorecards.jsonl").read_bytes()))
    done = run_cli(packed, "--outdir", tmp_path / "out")
    assert done.returncode == 2 and not (tmp_path / "out").exists()
    [line] = done.stderr.splitlines()
    assert line.startswith(f"{ERROR_PREFIX}{packed}: is {name}-compressed, a format not read"), line


def test_each_read_of_a_zstd_bomb_is_bounded_and_the_stream_is_decompressed_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each 1 MB read kept all of its output (5.8 GB for a 200 KB file of 2 GB) and the rest was re-sliced on
    every read; the scan decompressed the file a second time. Now each decoder call gets 1 KiB of input (at
    most 32 MiB out), and the reader's own pass checks UTF-8."""
    zeros = zstandard.ZstdCompressor(level=19).compress(b"\n" * (96 << 20))
    assert len(zeros) < 100_000
    stream = compressed._Zstd(io.BytesIO(zeros))  # type: ignore[arg-type]
    largest = total = 0
    while (output := stream._decompress()) is not None:
        largest, total = max(largest, len(output)), total + len(output)
    assert total == 96 << 20 and largest <= (compressed.ZSTD_PIECE // 4 + 1) * (128 << 10)
    made: list[object] = []
    monkeypatch.setattr(compressed._Zstd, "__init__", _counted(compressed._Zstd.__init__, made))
    rows = (RUN / "scorecards.jsonl").read_bytes()
    packed = tmp_path / "s.jsonl.zst"
    packed.write_bytes(zstandard.ZstdCompressor().compress(rows + b"\n" * 1000 + rows.replace(b"seed42", b"seed43")))
    assert read_scorecards(packed, workers=1).rows_read == 100
    assert len(made) == 1


def _counted(init: Callable[..., None], made: list[object]) -> Callable[..., None]:
    def counting(self: object, *args: object) -> None:
        made.append(self)
        init(self, *args)
    return counting


@pytest.mark.parametrize("suffix", ["", *COMPRESS])
def test_a_line_over_the_limit_is_a_bad_line_named_with_the_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, suffix: str
) -> None:
    """A line longer than a block was joined by repeated copying (a 1 GB one-line file: killed at 120 s, 2.4 GB);
    now its pieces are joined once, and a line over the limit (256 MiB; 64 KiB here) is a bad line."""
    monkeypatch.setattr(lines_module, "MAX_LINE", 1 << 16)
    monkeypatch.setattr(lines_module, "BLOCK", 10_000)
    good = (RUN / "scorecards.jsonl").read_bytes().splitlines()
    long = b"[" + b"0," * 50_000 + b"0]"
    data = good[0] + b"\n" + long + b"\n" + good[1] + b"\n"
    path = tmp_path / f"s.jsonl{'.' + suffix if suffix else ''}"
    path.write_bytes(COMPRESS[suffix](data) if suffix else data)
    with pytest.raises(BadLineError, match=re.escape(f"{path}:2: line of {len(long):,} bytes is longer than the limit "
                                                     "of 65,536 bytes per line")):
        read_scorecards(path, workers=1)
    read = read_scorecards(path, workers=1, skip_bad_lines=True)
    assert [r.line for r in read.items] == [1, 3] and [s.line for s in read.skipped] == [2]


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(st.one_of(st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"")), st.just(b"")), max_size=30),
       block=st.integers(1, 40), limit=st.integers(0, 40), final_newline=st.booleans())
def test_lines_are_numbered_joined_and_limited_as_a_split_would(
    lines: list[bytes], block: int, limit: int, final_newline: bool
) -> None:
    """:class:`~scorecards.lines.Lines` over any blocks: the non-empty lines with their numbers (empty ones
    counted), over ``limit`` an :class:`Oversized` of their size, the lines that are not UTF-8 named as a
    line-by-line decode names them."""
    data = b"\n".join(lines) + (b"\n" if final_newline and lines else b"")
    expected = data.split(b"\n")
    expected = expected[:-1] if expected and expected[-1] == b"" else expected
    original = lines_module.BLOCK
    lines_module.BLOCK = block
    try:
        reader = lines_module.Lines(io.BytesIO(data), 0, None, limit=limit, utf8=True)
        found = [(number, line if isinstance(line, lines_module.Oversized) else bytes(line)) for number, line in reader]
    finally:
        lines_module.BLOCK = original
    assert found == [(i, lines_module.Oversized(len(line)) if len(line) > limit else line)
                     for i, line in enumerate(expected, 1) if line]
    assert reader.count == len(expected)
    assert reader.invalid == {i: utf8_error(line) for i, line in enumerate(expected, 1)
                              if line and len(line) <= limit and utf8_error(line)}
