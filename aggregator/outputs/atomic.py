"""Atomic output: every file is written to a temporary name beside it, then renamed into place.

A failure while writing leaves the previous outputs untouched and no temporary files;
a kill at any moment leaves each output either the old whole file or the new whole file.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Mapping
from pathlib import Path


class OutputError(OSError):
    """The output directory cannot be written; the message says what to do."""


def _file_mode() -> int:
    """0o666 less the process umask: the mode a plain ``open()`` would have given."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def _stage(directory: Path, name: str, data: bytes, mode: int) -> Path:
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{name}.", suffix=".tmp")
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)


def write_outputs(directory: str | os.PathLike[str], files: Mapping[str, bytes]) -> list[Path]:
    """Write ``{file name: content}`` into ``directory`` atomically; return the final paths.

    All files are staged first; only when every one is on disk are they renamed into
    place, so an error (disk full, permissions) leaves no new file and no partial file.
    """
    target = Path(directory)
    staged: list[tuple[Path, Path]] = []
    mode = _file_mode()
    try:
        target.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            staged.append((_stage(target, name, data, mode), target / name))
        for tmp, final in staged:
            os.replace(tmp, final)
    except OSError as exc:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
        reason = exc.strerror or str(exc)
        raise OutputError(
            f"{target}: cannot write outputs ({reason}); choose a writable directory with --outdir "
            "or free some space"
        ) from None
    except BaseException:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
        raise
    if hasattr(os, "O_DIRECTORY"):
        try:
            dir_fd = os.open(target, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            return [final for _, final in staged]
        try:
            os.fsync(dir_fd)
        except OSError:
            pass
        finally:
            os.close(dir_fd)
    return [final for _, final in staged]
