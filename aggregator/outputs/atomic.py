"""Atomic output sets: every file is written to a temporary name beside it, then renamed into place.

All or nothing: the new files are all staged first, and each previous output is kept under a
second name (a hard link) until every rename has succeeded; a failure at any step (disk full,
permissions, a directory or a locked file in an output's place) puts every previous output
back byte-identical and leaves no new file and no temporary file. A kill at any moment leaves
each output either the old whole file or the new whole file. No output may be an input of the
run (:func:`refuse_inputs`). Writers of one directory take turns (an exclusive ``flock`` on
the directory), so two concurrent runs leave the complete set of files of the run that renamed
last. A writer killed while staging leaves its ``.NAME.XXXXXXXX.tmp`` files; the next write of
NAME, holding the lock, removes those older than itself, and only names of exactly that form.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import ExitStack, contextmanager
from glob import escape
from pathlib import Path
from typing import BinaryIO

if sys.platform != "win32":
    import fcntl

NO_SPACE = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})
NO_PERMISSION = frozenset({errno.EACCES, errno.EPERM, errno.EROFS})
NOT_A_DIRECTORY = frozenset({errno.EEXIST, errno.ENOTDIR})
Output = bytes | Callable[[BinaryIO], None]
"""A file's content: its bytes, or a function that writes them into an open file (a large table,
written without its whole text in memory)."""
TEMP_CHARACTERS = "abcdefghijklmnopqrstuvwxyz0123456789_"
"""The characters of the 8-character random part of a temporary name (as :func:`tempfile.mkstemp` makes them)."""


class OutputError(OSError):
    """The output directory cannot be written; the message says what to do."""


def _file_mode() -> int:
    """0o666 less the process umask: the mode a plain ``open()`` would have given."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def temp_pattern(name: str) -> str:
    """Glob of the temporary files staged for output ``name`` (wider than :func:`is_temp_of`)."""
    return f".{escape(name)}.*.tmp"


def is_temp_of(file_name: str, name: str) -> bool:
    """Whether ``file_name`` is exactly a temporary name this module makes for output ``name``:
    ``.NAME.`` + 8 characters of :data:`TEMP_CHARACTERS` + ``.tmp``."""
    pattern = rf"\.{re.escape(name)}\.[{TEMP_CHARACTERS}]{{8}}\.tmp"
    return re.fullmatch(pattern, file_name) is not None


def _stage(directory: Path, name: str, data: Output, mode: int) -> Path:
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{name}.", suffix=".tmp")
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            if isinstance(data, bytes):
                handle.write(data)
            else:
                data(handle)
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
            if not is_temp_of(stale.name, name):
                continue  # a user's file that only looks like ours (e.g. .report.html.my-backup.tmp)
            try:
                if stale.is_file() and stale.stat().st_mtime < before:
                    stale.unlink()
            except OSError:
                pass


@contextmanager
def _turn(directory: Path) -> Iterator[tuple[int | None, bool]]:
    """Wait for an exclusive lock on ``directory``; yield its descriptor (None: cannot open) and
    whether the lock is held (not where the platform or file system has no ``flock``)."""
    if sys.platform == "win32" or not hasattr(os, "O_DIRECTORY"):
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
    if exc.errno == errno.EISDIR:
        return "move it away or choose another directory with --outdir"
    if exc.errno == errno.ELOOP:
        return "the path goes round a loop of symbolic links: choose another directory with --outdir"
    return "choose a writable directory with --outdir or free some space"


def _identity(path: str | os.PathLike[str]) -> tuple[int, int] | None:
    """(device, inode) of the file at ``path``, links followed; None when there is none."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return found.st_dev, found.st_ino


def refuse_inputs(
    directory: str | os.PathLike[str], names: Iterable[str], inputs: Iterable[str | os.PathLike[str]]
) -> None:
    """Raise :class:`OutputError` when an output ``directory/NAME`` is one of ``inputs``
    (the same file, also through a symbolic or hard link): writing it would destroy the input."""
    files = {_identity(path): path for path in inputs}
    files.pop(None, None)
    if not files:
        return
    for name in names:
        output = Path(directory) / name
        found = _identity(output)
        if found in files:
            raise OutputError(
                f"{output}: is the input {os.fspath(files[found])}; writing the outputs there would overwrite it: "
                "choose another directory with --outdir"
            )


def _random_name(directory: Path, name: str) -> Path:
    token = "".join(secrets.choice(TEMP_CHARACTERS) for _ in range(8))
    return directory / f".{name}.{token}.tmp"


def _keep_previous(final: Path) -> Path | None:
    """Keep the previous output at ``final`` under a temporary second name until the new set is
    in place (a hard link, or a copy where links are not supported); None when there is none."""
    if not os.path.lexists(final):
        return None
    if final.is_dir() and not final.is_symlink():
        raise IsADirectoryError(errno.EISDIR, f"{final.name} is a directory, where an output file goes", str(final))
    while True:
        kept = _random_name(final.parent, final.name)
        try:
            os.link(final, kept, follow_symlinks=False)
        except FileExistsError:
            continue
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK, errno.ENOTSUP):
                raise
            shutil.copy2(final, kept, follow_symlinks=False)
        return kept


def _swap(staged: list[tuple[Path, Path]]) -> None:
    """Rename every staged file into place; on any failure put every previous output back.

    The previous outputs are kept under second names first (no rename has happened if that
    fails); a failed rename then undoes the renames before it: each previous file is renamed
    back, each new file that had no predecessor is removed. A second name that cannot be put
    back is left in place (a ``.NAME.XXXXXXXX.tmp`` holding the previous output) rather than lost.
    """
    kept: list[Path | None] = []
    try:
        for _, final in staged:
            kept.append(_keep_previous(final))
    except BaseException:
        for path in kept:
            if path is not None:
                path.unlink(missing_ok=True)
        raise
    done = 0
    try:
        for tmp, final in staged:
            os.replace(tmp, final)
            done += 1
    except BaseException:
        for (_, final), previous in zip(staged[:done], kept):
            try:
                if previous is None:
                    final.unlink(missing_ok=True)
                else:
                    os.replace(previous, final)
            except OSError:
                pass
        for previous in kept[done:]:
            if previous is not None:
                previous.unlink(missing_ok=True)
        raise
    for previous in kept:
        if previous is not None:
            previous.unlink(missing_ok=True)


def write_outputs(
    directory: str | os.PathLike[str],
    files: Mapping[str, Output],
    *,
    inputs: Iterable[str | os.PathLike[str]] = (),
) -> list[Path]:
    """Write ``{file name: content}`` (:data:`Output`) into ``directory`` as one set; return the final paths.

    All files are staged first; only when every one is on disk are they renamed into
    place (in the mapping's order), each previous output kept until all renames succeeded
    (:func:`_swap`). So an error (disk full, permissions, a directory in an output's place)
    leaves the previous outputs byte-identical, no new file and no temporary file. An output
    that is one of ``inputs`` is refused before anything is written.
    """
    return write_output_sets({Path(directory): files}, inputs=inputs)


def write_output_sets(
    sets: Mapping[Path, Mapping[str, Output]],
    *,
    inputs: Iterable[str | os.PathLike[str]] = (),
) -> list[Path]:
    """:func:`write_outputs` of files in several directories as one set: all staged (each
    directory's lock taken in path order), then all renamed, or none."""
    staged: list[tuple[Path, Path]] = []
    mode = _file_mode()
    inputs = list(inputs)
    target = Path(".")
    try:
        with ExitStack() as turns:
            for target in sorted(sets):
                target.mkdir(parents=True, exist_ok=True)
                dir_fd, locked = turns.enter_context(_turn(target))
                refuse_inputs(target, sets[target], inputs)
                if locked:
                    _remove_stale(target, list(sets[target]), time.time())
                if dir_fd is not None:
                    turns.callback(_sync, dir_fd)
            for target, files in sets.items():
                for name, data in files.items():
                    staged.append((_stage(target, name, data, mode), target / name))
            _swap(staged)
    except OutputError:
        raise
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


def _sync(dir_fd: int) -> None:
    try:
        os.fsync(dir_fd)
    except OSError:
        pass
