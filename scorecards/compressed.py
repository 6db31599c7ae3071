"""Compressed scorecards: gzip and zstd, recognised by their magic bytes (not by the file name),
read as a stream of decompressed bytes in one pass.

A compressed file cannot be cut into byte ranges for several decoders, so it is decoded by one
process as it is decompressed; everything downstream sees the same lines as for the plain file,
so the outputs are the same. Memory is bounded whatever the ratio: each read returns at most what
:data:`ZSTD_PIECE` compressed bytes decompress to (a zstd block of 128 KiB per 4 bytes: at most
32 MiB; gzip decompresses at most the size asked). zstd data may hold several frames and
skippable frames (``pzstd`` writes one first); a frame whose window exceeds :data:`MAX_WINDOW`
(``zstd --long=31``) is refused by name, as ``zstd -d`` refuses it without ``--long``. xz, bzip2,
lz4, zip and 7z files are named as formats that are not read. zstd uses the ``zstandard``
package (Python 3.11's standard library has no zstd).
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
SKIPPABLE = tuple(bytes([0x50 + low, 0x2A, 0x4D, 0x18]) for low in range(16))
"""The magic numbers of zstd's skippable frames (``pzstd`` starts its files with one)."""
MAGIC: dict[bytes, Compression] = {b"\x1f\x8b": "gzip", b"\x28\xb5\x2f\xfd": "zstd",
                                   **dict.fromkeys(SKIPPABLE, "zstd")}
UNSUPPORTED = {b"\xfd7zXZ\x00": ("xz", "xz -d"), b"BZh": ("bzip2", "bzip2 -d"), b"\x04\x22\x4d\x18": ("lz4", "lz4 -d"),
               b"PK\x03\x04": ("zip", "unzip"), b"7z\xbc\xaf\x27\x1c": ("7z", "7z x")}
"""Compressed formats that are not read, with the command that decompresses them."""
BUFFER = 1 << 20
ZSTD_PIECE = 1 << 10
"""Compressed bytes given to the zstd decoder at a time: its output is at most 128 KiB per 4 of them."""
MAX_WINDOW = 1 << 27
"""The largest zstd window read (128 MiB, zstd's own default limit for decompression)."""
_BZIP2_BLOCK = b"1AY&SY"


def compression_of(path: str) -> Compression | None:
    """``gzip`` or ``zstd`` when the file starts with that format's magic bytes, else None (plain).
    Raises :class:`InputError` for a compressed format that is not read."""
    with open(path, "rb") as handle:
        head = handle.read(10)
    for magic, (name, command) in UNSUPPORTED.items():
        if head.startswith(magic) and (name != "bzip2" or head[3:4].isdigit() and head[4:10] == _BZIP2_BLOCK):
            raise InputError(f"{path}: is {name}-compressed, a format not read (gzip and zstd are): decompress it "
                             f"first ({command}), or recompress it with gzip or zstd")
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


class WindowTooLarge(EOFError):
    """A zstd frame needs a window larger than :data:`MAX_WINDOW` (its size in bytes, or None if unknown)."""

    def __init__(self, window: int | None) -> None:
        super().__init__(window)
        self.window = window


class _Zstd(io.RawIOBase):
    """Decompressed zstd frames, one after another, fed :data:`ZSTD_PIECE` compressed bytes at a time
    (each read's output is bounded); data that ends inside a frame is an error (``zstandard``'s own
    stream reader ends quietly there)."""

    def __init__(self, source: io.RawIOBase | io.BufferedReader) -> None:
        import zstandard

        self._zstd = zstandard
        self._decompressor = zstandard.ZstdDecompressor(max_window_size=MAX_WINDOW)
        self._source = source
        self._input = memoryview(b"")
        self._unused = b""
        self._frame: zstandard.ZstdDecompressionObj | None = None
        self._header = b""
        self._output = memoryview(b"")

    def readable(self) -> bool:
        return True

    def _piece(self) -> memoryview | None:
        """The next compressed bytes, at most :data:`ZSTD_PIECE`; None at the end of the file."""
        if self._unused:
            unused, self._unused = self._unused[:ZSTD_PIECE], self._unused[ZSTD_PIECE:]
            return memoryview(unused)
        if not self._input:
            self._input = memoryview(self._source.read(BUFFER))
            if not self._input:
                return None
        piece, self._input = self._input[:ZSTD_PIECE], self._input[ZSTD_PIECE:]
        return piece

    def _decompress(self) -> bytes | None:
        """Some decompressed bytes (possibly none); None at the clean end of the data."""
        piece = self._piece()
        if piece is None:
            if self._frame is not None:
                raise EOFError("zstd data ends inside a frame")
            return None
        if self._frame is None:
            self._frame = self._decompressor.decompressobj()
            self._header = b""
        if len(self._header) < 18:
            self._header += bytes(piece[: 18 - len(self._header)])
        try:
            output: bytes = self._frame.decompress(piece)
        except self._zstd.ZstdError as exc:
            if "too much memory" in str(exc):
                raise WindowTooLarge(self._window()) from None
            raise
        if self._frame.eof:
            self._unused = self._frame.unused_data + self._unused  # a part of the last piece: small
            self._frame = None
        return output

    def _window(self) -> int | None:
        try:
            return int(self._zstd.get_frame_parameters(self._header).window_size)
        except self._zstd.ZstdError:
            return None

    def readinto(self, buffer: WriteableBuffer) -> int:
        while not self._output:
            output = self._decompress()
            if output is None:
                return 0
            self._output = memoryview(output)
        view = memoryview(buffer)
        count = min(len(view), len(self._output))
        view[:count] = self._output[:count]
        self._output = self._output[count:]
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
    """The one-line error for damaged compressed data (truncated, bad checksum) or a zstd window too
    large to read, else None."""
    if isinstance(exc, WindowTooLarge):
        size = "an unknown size" if exc.window is None else f"{exc.window / (1 << 20):,.0f} MiB"
        return InputError(f"{path}: the zstd data needs a window of {size} (written with zstd --long or "
                          f"--ultra); windows over {MAX_WINDOW >> 20} MiB are not read, to bound memory: decompress it "
                          "first (zstd -d --long=31) or recompress it without --long")
    errors: tuple[type[BaseException], ...] = (gzip.BadGzipFile, EOFError, zlib.error)
    try:
        import zstandard

        errors += (zstandard.ZstdError,)
    except ImportError:  # pragma: no cover - zstandard is a dependency
        pass
    if isinstance(exc, errors):
        return InputError(f"{path}: the compressed data is damaged or cut short ({exc}); decompress it to check")
    return None
