"""Compressed scorecards: gzip and zstd, recognised by their magic bytes (not by the file name),
read as a stream of decompressed bytes.

A compressed file cannot be cut into byte ranges for several decoders, so it is decoded by one
process as it is decompressed; everything downstream sees the same lines as for the plain
file, so the outputs are the same. Memory holds one block of decompressed data at a time.
zstd uses the ``zstandard`` package (Python 3.11's standard library has no zstd).
"""

from __future__ import annotations

import gzip
import io
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Literal

from scorecards.errors import InputError

if TYPE_CHECKING:
    from _typeshed import WriteableBuffer

Compression = Literal["gzip", "zstd"]
MAGIC: dict[bytes, Compression] = {b"\x1f\x8b": "gzip", b"\x28\xb5\x2f\xfd": "zstd"}
BUFFER = 1 << 20


def compression_of(path: str) -> Compression | None:
    """``gzip`` or ``zstd`` when the file starts with that format's magic bytes, else None (plain)."""
    with open(path, "rb") as handle:
        head = handle.read(4)
    return next((kind for magic, kind in MAGIC.items() if head.startswith(magic)), None)


class _Counting(io.RawIOBase):
    """A raw file that reports the (compressed) bytes read from it, for the progress bar."""

    def __init__(self, raw: io.BufferedReader, on_bytes: Callable[[int], None]) -> None:
        self._raw = raw
        self._on_bytes = on_bytes

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        count = self._raw.readinto(buffer)
        if count:
            self._on_bytes(count)
        return count or 0


class _Zstd(io.RawIOBase):
    """Decompressed zstd frames, one after another; data that ends inside a frame is an error
    (``zstandard``'s own stream reader ends quietly there)."""

    def __init__(self, source: io.RawIOBase | io.BufferedReader) -> None:
        import zstandard

        self._source = source
        self._new = zstandard.ZstdDecompressor().decompressobj
        self._frame = self._new()
        self._pending = b""
        self._started = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: WriteableBuffer) -> int:
        while not self._pending:
            data = self._source.read(BUFFER)
            if not data:
                if self._started and not self._frame.eof:
                    raise EOFError("zstd data ends inside a frame")
                return 0
            while data:
                if self._frame.eof:
                    self._frame = self._new()
                self._started = True
                self._pending += self._frame.decompress(data)
                data = self._frame.unused_data if self._frame.eof else b""
        view = memoryview(buffer)
        count = min(len(view), len(self._pending))
        view[:count] = self._pending[:count]
        self._pending = self._pending[count:]
        return count


@contextmanager
def open_stream(path: str, on_bytes: Callable[[int], None] | None = None) -> Iterator[tuple[io.BufferedIOBase, bool]]:
    """The file's content as a binary stream, decompressed when it is gzip or zstd, and whether it was.

    ``on_bytes`` is called with the compressed bytes read (for a plain file the caller counts).
    """
    kind = compression_of(path)
    with open(path, "rb") as raw:
        if kind is None:
            yield raw, False
            return
        source = _Counting(raw, on_bytes) if on_bytes is not None else raw
        if kind == "gzip":
            with gzip.GzipFile(fileobj=source, mode="rb") as unzipped:
                yield unzipped, True
            return
        with io.BufferedReader(_Zstd(source), BUFFER) as stream:
            yield stream, True


def corrupt(path: str, exc: BaseException) -> InputError | None:
    """The one-line error for damaged compressed data (truncated, bad checksum), else None."""
    errors: tuple[type[BaseException], ...] = (gzip.BadGzipFile, EOFError, zlib.error)
    try:
        import zstandard

        errors += (zstandard.ZstdError,)
    except ImportError:  # pragma: no cover - zstandard is a dependency
        pass
    if isinstance(exc, errors):
        return InputError(f"{path}: the compressed data is damaged or cut short ({exc}); decompress it to check")
    return None
