"""Where a command may write: the one check of every command that writes files.

``aggregate RUN``, ``compare``, ``score``, ``convert`` (and any later command, e.g. ``legacy``)
call :func:`check_destination` before they read their inputs, and
:func:`~aggregator.outputs.atomic.write_outputs` calls it again before it stages a file. It refuses,
each with one line saying what to do:

- an empty path (an unset shell variable: ``--outdir "$OUT"``), never taken for the current
  directory (:func:`refuse_empty`; the command line's types call it on the raw text);
- an output directory that is a symbolic link loop, a link to nothing, a file or lies below one;
- an output that is one of the command's inputs: the same file, also through a symbolic or a
  hard link (:func:`refuse_inputs`), so no input is ever overwritten.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable
from pathlib import Path

PathLike = str | os.PathLike[str]


class OutputError(OSError):
    """The output directory cannot be written; the message says what to do."""


def _what(option: str) -> str:
    return "file" if option == "--out" else "directory"


def empty_reason(option: str = "--outdir") -> str:
    """Why an empty ``option`` is refused, and what to give instead."""
    instead = f"a file path, or no {option} for stdout" if option == "--out" else "a directory, '.' for the current one"
    return f"is empty (an unset variable?); give {instead}"


def refuse_empty(path: PathLike, option: str = "--outdir") -> None:
    """Raise :class:`OutputError` when ``path`` is empty or blank text (never taken for the current directory)."""
    if not os.fspath(path).strip():
        raise OutputError(f"{option} {empty_reason(option)}")


def _identity(path: PathLike) -> tuple[int, int] | None:
    """(device, inode) of the file at ``path``, links followed; None when there is none."""
    try:
        found = os.stat(path)
    except (OSError, ValueError):
        return None
    return found.st_dev, found.st_ino


def refuse_inputs(directory: PathLike, names: Iterable[str], inputs: Iterable[PathLike], option: str = "--outdir") -> None:
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
            what = "outputs" if option == "--outdir" else "output"
            raise OutputError(f"{output}: is the input {os.fspath(files[found])}; writing the {what} there would "
                              f"overwrite it: choose another {_what(option)} with {option}")


def refuse_unusable_directory(directory: PathLike, option: str = "--outdir") -> None:
    """Raise :class:`OutputError` when ``directory`` cannot become a directory: a loop of symbolic
    links, a link to nothing, a file, or a path below a file. A missing directory is fine (it is made)."""
    advice = f"choose another directory with {option}" if option != "--out" else f"choose another file with {option}"
    try:
        os.stat(directory)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise OutputError(f"{directory}: the path goes round a loop of symbolic links: {advice}") from None
        if exc.errno == errno.ENOTDIR:
            raise OutputError(f"{directory}: the path lies below a file: {advice}") from None
        if exc.errno == errno.ENOENT and os.path.islink(directory):
            target = os.readlink(directory)
            raise OutputError(f"{directory}: is a symbolic link to {target}, which does not exist: {advice}") from None
        return
    except ValueError:
        raise OutputError(f"{directory!r}: not a valid path (it holds a NUL character): {advice}") from None
    if not os.path.isdir(directory):
        raise OutputError(f"{directory}: is a file, not a directory: {advice}")


def check_destination(
    directory: PathLike, names: Iterable[str], inputs: Iterable[PathLike] = (), *, option: str = "--outdir"
) -> None:
    """The one check before writing ``names`` into ``directory`` (see the module doc); ``option`` is
    the command-line option the messages name (``--outdir``, or ``--out`` for one output file)."""
    refuse_empty(directory, option)
    refuse_unusable_directory(directory, option)
    refuse_inputs(directory, list(names), inputs, option)


def check_output_file(path: PathLike, inputs: Iterable[PathLike] = (), *, option: str = "--out") -> None:
    """:func:`check_destination` of one output file ``path``; a directory in its place is refused too."""
    refuse_empty(path, option)
    given = Path(path)
    if given.is_dir() or not given.name or given.name in (".", ".."):
        raise OutputError(f"{path}: is a directory; give the path of a file with {option}")
    check_destination(given.parent, [given.name], inputs, option=option)
