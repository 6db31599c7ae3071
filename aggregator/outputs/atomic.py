"""Atomic output: every file is written to a temporary name beside it, then renamed into place.

A failure while writing leaves the previous outputs untouched and no temporary files;
a kill at any moment leaves each output either the old whole file or the new whole file.
Writers of one directory take turns (an exclusive ``flock`` on the directory), so two
concurrent runs leave the complete set of files of the run that renamed last. A writer
killed while staging leaves its ``.NAME.*.tmp`` files; the next write of NAME, holding the
lock, removes those older than itself.
"""

from __future__ import annotations

import errno
import os
import tempfile
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from glob import escape
from pathlib import Path

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

NO_SPACE = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
NO_PERMISSION = frozenset({errno.EACCES, errno.EPERM, errno.EROFS})
NOT_A_DIRECTORY = frozenset({errno.EEXIST, errno.ENOTDIR})


class OutputError(OSError):
    """The output directory cannot be written; the message says what to do."""


def _file_mode() -> int:
    """0o666 less the process umask: the mode a plain ``open()`` would have given."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def temp_pattern(name: str) -> str:
    """Glob of the temporary files staged for output ``name``."""
    return f".{escape(name)}.*.tmp"


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


def _remove_stale(directory: Path, names: list[str], before: float) -> None:
    """Remove temp files of ``names`` last modified before ``before``: left by a killed writer.

    Only under the directory lock: then no live writer is staging (it would be holding the lock).
    """
    for name in names:
        for stale in directory.glob(temp_pattern(name)):
            try:
                if stale.is_file() and stale.stat().st_mtime < before:
                    stale.unlink()
            except OSError:
                pass


@contextmanager
def _turn(directory: Path) -> Iterator[tuple[int | None, bool]]:
    """Wait for an exclusive lock on ``directory``; yield its descriptor (None: cannot open) and
    whether the lock is held (not where the platform or file system has no ``flock``)."""
    if fcntl is None or not hasattr(os, "O_DIRECTORY"):
        yield None, False
        return
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        yield None, False
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            yield fd, False
        else:
            yield fd, True
    finally:
        os.close(fd)


def _advice(exc: OSError) -> str:
    if exc.errno in NO_SPACE:
        return "free some space or choose another directory with --outdir"
    if exc.errno in NO_PERMISSION:
        return "choose a writable directory with --outdir"
    if exc.errno in NOT_A_DIRECTORY:
        return "the path is a file or lies below one: choose a directory with --outdir"
    return "choose a writable directory with --outdir or free some space"


def write_outputs(directory: str | os.PathLike[str], files: Mapping[str, bytes]) -> list[Path]:
    """Write ``{file name: content}`` into ``directory`` atomically; return the final paths.

    All files are staged first; only when every one is on disk are they renamed into
    place (in the mapping's order), so an error (disk full, permissions) leaves no new
    file and no partial file.
    """
    target = Path(directory)
    staged: list[tuple[Path, Path]] = []
    mode = _file_mode()
    try:
        target.mkdir(parents=True, exist_ok=True)
        with _turn(target) as (dir_fd, locked):
            if locked:
                _remove_stale(target, list(files), time.time())
            for name, data in files.items():
                staged.append((_stage(target, name, data, mode), target / name))
            for tmp, final in staged:
                os.replace(tmp, final)
            if dir_fd is not None:
                try:
                    os.fsync(dir_fd)
                except OSError:
                    pass
    except OSError as exc:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
        reason = exc.strerror or str(exc)
        raise OutputError(f"{target}: cannot write outputs ({reason}); {_advice(exc)}") from None
    except BaseException:
        for tmp, _ in staged:
            tmp.unlink(missing_ok=True)
        raise
    return [final for _, final in staged]
