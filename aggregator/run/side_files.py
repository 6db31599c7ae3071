"""Side files: JSON files next to a run's scorecards that some metric families read.

A family names its side file and the typed schema it is decoded into
(:class:`~aggregator.metrics.family.SideFile`). An absent file is no error (the family's
columns that need it are blank); a file that is not JSON of that shape is bad input,
reported as one line naming the file, like a bad scorecard line.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from scorecards.errors import InputError

if TYPE_CHECKING:
    from aggregator.metrics.family import Family


def read_side_file(path: Path, schema: type[msgspec.Struct], digests: MutableMapping[str, str | None] | None = None) -> Any:
    """Decode ``path`` into ``schema``; raise :class:`InputError` naming the file when it cannot.
    ``digests``: the SHA-256 of the bytes decoded is put there under the file's name."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read side file ({exc.strerror or exc})") from None
    if digests is not None:
        digests[path.name] = hashlib.sha256(data).hexdigest()
    try:
        return msgspec.json.decode(data, type=schema)
    except msgspec.ValidationError as exc:
        raise InputError(f"{path}: wrong shape: {exc}") from None
    except (msgspec.DecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not valid JSON: {exc}") from None
    except RecursionError:
        raise InputError(f"{path}: nesting too deep to parse") from None


def read_side_files(
    directory: Path, families: Iterable[Family], digests: MutableMapping[str, str | None] | None = None
) -> dict[str, Any]:
    """The side files of ``families`` present in ``directory``, decoded, by file name.
    ``digests``: each side file's SHA-256 (None when absent) is put there by name."""
    found: dict[str, Any] = {}
    for fam in families:
        side = fam.side_file
        if side is None or side.name in found:
            continue
        path = directory / side.name
        if path.is_file():
            found[side.name] = read_side_file(path, side.schema, digests)
        elif digests is not None:
            digests[side.name] = None
    return found


def side_file_digests(directory: Path, families: Iterable[Family]) -> dict[str, str | None]:
    """SHA-256 of each side file of ``families`` in ``directory`` (None when absent), as
    :func:`read_side_files` records them."""
    digests: dict[str, str | None] = {}
    for fam in families:
        side = fam.side_file
        if side is None or side.name in digests:
            continue
        path = directory / side.name
        digests[side.name] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
    return digests
