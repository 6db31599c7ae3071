"""The reader contract, as a check and a strategy: any bytes give a result or one ``FILE:LINE: reason`` line.

:func:`mutated` draws a file from valid bytes by random mutations (bytes flipped, hostile snippets
inserted, ranges deleted, repeated or cut). A crash-freedom property reads any input, so no drawn
file has to keep a meaning: the strategies only look for inputs that break a reader.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from scorecards.errors import InputError

HOSTILE = (
    b"[" * 100_000, b"(" * 3_000, b"([" * 2_000, b"9" * 5_000, b"-" + b"9" * 40, b"\\ud800", b"'\\ud800'",
    b'"\\ud800"', b"\xed\xa0\x80", b"\xff", b"\xc3", b"\xef\xbb\xbf", b"\r", b"\r\n", b"\x00", b"\n", b"\n\n",
    b"####", b"\t", b",", b"'", b'"', b"\\", b"-1,-1", b" 1_0 ", b"-5", b"1e400", b"NULL", b"None", b"]", b")",
    b"\xe2\x80\xae", b'<sentence id="x">', b"</sentence>", b'<?xml version="1.0" encoding="x-unknown"?>',
    b'<?xml version="1.0" encoding="cp949"?>', b'<?xml version="1.0" encoding="utf-16"?>', b"&#xD800;",
    b'<!DOCTYPE a [<!ENTITY e "x">]>', b"&e;", b'from="4294967296"', b'from="-1"', b"{}", b"[]", b"{" * 2_000,
    b'{"id": 1, "annotation": [["a", [null, 0, 0], "positive"]]}', b'"annotation": null', b"null",
)


BOUNDARIES = frozenset(b"'\",[](){}<>=\t #:")
"""Bytes after which an insertion lands inside a field: a quote, a separator, a bracket, a tag."""
ENCODINGS = ("cp949", "latin-1", "utf-16", "shift_jis", "utf-8-sig")


def _position(draw: st.DrawFn, data: bytearray) -> int:
    """A position drawn as a share of the length, or just after a boundary byte (half the time)."""
    at = int(draw(st.floats(0, 1)) * len(data))
    if draw(st.booleans()):
        after = [i + 1 for i, byte in enumerate(data) if byte in BOUNDARIES]
        if after:
            return after[min(int(draw(st.floats(0, 1)) * len(after)), len(after) - 1)]
    return at


@st.composite
def mutated(draw: st.DrawFn, valid: bytes) -> bytes:
    """``valid`` after 1 to 4 random mutations: a byte flipped, a hostile snippet or random bytes
    inserted, a range deleted, repeated or cut off, or the text written in another encoding."""
    data = bytearray(valid)
    for _ in range(draw(st.integers(1, 4))):
        at = _position(draw, data)
        kind = draw(st.sampled_from(("flip", "insert", "insert", "delete", "repeat", "cut", "recode")))
        if kind == "recode":
            text = data.decode("utf-8", "replace")
            data = bytearray(text.encode(draw(st.sampled_from(ENCODINGS)), "replace"))
        elif kind == "flip" and data:
            data[min(at, len(data) - 1)] = draw(st.integers(0, 255))
        elif kind == "insert":
            data[at:at] = draw(st.one_of(st.sampled_from(HOSTILE), st.binary(min_size=1, max_size=8)))
        elif kind == "delete":
            del data[at:at + draw(st.integers(1, 40))]
        elif kind == "repeat":
            data[at:at] = data[at:at + draw(st.integers(1, 200))]
        elif kind == "cut":
            del data[at:]
    return bytes(data)


def inputs(valid: list[bytes]) -> st.SearchStrategy[bytes]:
    """Random bytes, a valid file, or a mutated valid file."""
    return st.one_of(st.binary(max_size=300), st.sampled_from(valid),
                     st.sampled_from(valid).flatmap(lambda v: mutated(v)))  # type: ignore[arg-type]


def honours_contract(read: Callable[[], Any], *paths: Path) -> Any:
    """Run ``read``: its result, or None when it raised the project's input error, which must be one
    line naming one of ``paths``. Any other exception propagates (and fails the property)."""
    try:
        return read()
    except InputError as exc:
        message = str(exc)
        assert "\n" not in message and message.startswith(tuple(str(p) for p in paths)), message
        return None
