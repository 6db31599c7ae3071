"""The file scan (SHA-256 and non-UTF-8 lines) names exactly the lines a per-line decode rejects.

The scan validates whole blocks cut at character boundaries; these tests cut the file into
tiny blocks so every kind of cut (inside a multi-byte character, at a newline, after a
byte-order mark) happens, and compare with the plain rule: a line is bad when
``str(line, "utf-8")`` fails, at the byte it names.
"""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

import pytest
from blake3 import blake3
from hypothesis import given
from hypothesis import strategies as st

import scorecards.inputs
import scorecards.scan
from scorecards.compressed import compression_of
from scorecards.errors import BadLineError
from scorecards.reader import read_scorecards
from scorecards.scan import is_utf8, scan_file, whole_chars
from tests.strategies import fuzz_budgets, jsonl, plain_line, to_line

TEXT = st.text(alphabet=st.characters(exclude_characters="\n", exclude_categories=["Cs"]), max_size=12)
LINE = st.one_of(
    TEXT.map(lambda text: text.encode("utf-8")),
    st.binary(max_size=12).map(plain_line),
    st.tuples(TEXT, st.integers(1, 3)).map(lambda pair: pair[0].encode("utf-8") + "한🙂é".encode()[: pair[1]]),
)


def expected_invalid(data: bytes) -> dict[int, str]:
    """The per-line rule, independently of the scan."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    invalid = {}
    for number, line in enumerate(lines, 1):
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as exc:
            invalid[number] = f"invalid UTF-8 at byte {exc.start}"
    return invalid


def check_scan(lines: list[bytes], block: int, bom: bool, crlf: bool) -> None:
    data = jsonl(lines, bom=bom, crlf=crlf)
    saved, scorecards.scan.BLOCK = scorecards.scan.BLOCK, block
    try:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "scorecards.jsonl"
            path.write_bytes(data)
            full = scan_file(str(path))
            first = scan_file(str(path), first_only=True)
    finally:
        scorecards.scan.BLOCK = saved
    wanted = expected_invalid(data)
    assert full.invalid == wanted
    assert first.invalid == dict(sorted(wanted.items())[:1])
    assert full.sha256 == hashlib.sha256(data).hexdigest()
    assert full.blake3 == blake3(data).hexdigest()


test_scan_names_the_lines_a_per_line_decode_rejects, test_scan_names_the_lines_slow = fuzz_budgets(
    200, 3000, lines=st.lists(LINE, min_size=1, max_size=8), block=st.integers(1, 12), bom=st.booleans(),
    crlf=st.booleans(),
)(check_scan)


@given(st.binary(max_size=12))
def test_random_lines_never_open_a_compressed_file(data: bytes) -> None:
    assert compression_of_bytes(plain_line(data) + b"\n") is None
    assert compression_of_bytes(plain_line(b"\x28\xb5\x2f\xfd" + data)) is None
    assert compression_of_bytes(plain_line(b"P*M\x18" + data)) is None
    assert compression_of_bytes(plain_line(b"\xfd7zXZ\x00" + data)) is None


def compression_of_bytes(data: bytes) -> str | None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scorecards.jsonl"
        path.write_bytes(data)
        return compression_of(str(path))


@given(st.binary(max_size=16))
def test_whole_chars_leaves_out_only_a_cut_character(data: bytes) -> None:
    cut = whole_chars(data)
    assert len(data) - cut <= 3
    if cut < len(data):
        assert data[cut] >= 0xC0 and all(0x80 <= byte < 0xC0 for byte in data[cut + 1 :])
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return
    assert cut == len(data)


@pytest.mark.parametrize(
    "sample",
    [b"\xed\xa0\x80", b"\xc0\xaf", b"\xe0\x80\xaf", b"\xf4\x90\x80\x80", b"\xf8\x88\x80\x80\x80", b"\xff", b"\xe3\x80",
     b"\x80", b"a\xc3", b"\xef\xbb\xbf", "한🙂é".encode(), b"plain ascii"],
)
def test_polars_validator_agrees_with_python(sample: bytes) -> None:
    try:
        sample.decode("utf-8")
        valid = True
    except UnicodeDecodeError:
        valid = False
    assert is_utf8(sample) is valid
    assert is_utf8(b"x" * 100 + sample + "가".encode() * 50) is valid


def test_rows_the_decoder_accepts_are_still_bad_when_not_utf8(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bad bytes in a field no metric reads: the line is skipped (or stops the run), on any worker."""
    monkeypatch.setattr(scorecards.inputs, "MIN_PART_BYTES", 64)
    good = [to_line({"meta": {"text_id": f"k{i}"}, "gold_tuples": [{"aspect_ref": "a#b"}]}) for i in range(12)]
    lines = list(good)
    lines[3] = good[3][:-1] + b', "note": "\xff"}'
    lines[8] = good[2][:-1] + b', "note": "\xe3\x80"}'  # also a copy of line 3's key: not a duplicate, a bad line
    lines.append(good[3])  # line 13: line 4 was bad, so this is the first row with key k3
    path = tmp_path / "scorecards.jsonl"
    path.write_bytes(jsonl(lines))
    for workers in (1, 3):
        read = read_scorecards(path, skip_bad_lines=True, workers=workers)
        assert [(bad.line, bad.reason) for bad in read.skipped] == [
            (4, "invalid UTF-8 at byte 77"), (9, "invalid UTF-8 at byte 77")
        ]
        assert sorted(key for _, _, key, _ in read.ids) == sorted(f"k{i}" for i in range(12) if i != 8)
        with pytest.raises(BadLineError, match=r":4: invalid UTF-8 at byte 77$"):
            read_scorecards(path, workers=workers)


def test_python_has_the_last_word_when_the_fast_check_fails(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fast check that wrongly says "not UTF-8" costs a line-by-line pass, never a wrong result."""
    data = jsonl([to_line({"meta": {"text_id": "k"}, "note": "한국어"}, ascii_only=False)] * 3)
    path = tmp_path / "scorecards.jsonl"
    path.write_bytes(data)
    monkeypatch.setattr(scorecards.scan, "is_utf8", lambda block: False)
    for first_only in (False, True):
        scan = scan_file(str(path), first_only=first_only)
        assert scan.invalid == {} and scan.sha256 == hashlib.sha256(data).hexdigest()
        assert scan.blake3 == blake3(data).hexdigest()
