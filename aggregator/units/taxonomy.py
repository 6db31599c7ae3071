"""The aspect taxonomy: which ``entity#attribute`` refs are valid.

The default is the NIKLuge 2022 taxonomy, shipped as package data
(``aggregator/data/taxonomy_nikluge.json``); ``--taxonomy FILE`` (or ``taxonomy=`` in the
Python API) puts another dataset's in force. Without it, a run whose scorecards file has a
``taxonomy.json`` beside it (:data:`SIDE_FILE`, as ``aggregate convert`` writes for the dataset it
converts) is checked against that one. A taxonomy file is UTF-8 JSON,
``{"name": "...", "refs": ["entity#attribute", ...]}``; each ref is normalized as input refs
are (:func:`~scorecards.normalize.norm_ref`). The taxonomy in force is module state, set for
each run (:func:`taxonomy_for_run`) before the reader forks its decoding processes, which inherit it.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

import msgspec

from scorecards.errors import InputError
from scorecards.normalize import norm_ref

DEFAULT_NAME = "taxonomy_nikluge.json"
SIDE_FILE = "taxonomy.json"
"""A run's own taxonomy, next to its scorecards file (used unless ``--taxonomy`` is given)."""


class _TaxonomyFile(msgspec.Struct, forbid_unknown_fields=True):
    refs: list[str]
    name: str = ""


@dataclass(frozen=True)
class Taxonomy:
    """A set of valid refs, where it came from (``source``: a path, or ``default``) and its SHA-256."""

    name: str
    refs: frozenset[str]
    source: str
    sha256: str


_AT_BYTE = re.compile(r"\(byte (\d+)\)")


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def _parse(data: bytes, source: str, where: str) -> Taxonomy:
    """``FILE:LINE: reason`` (or ``FILE: reason`` when the whole file is of the wrong shape) for any
    file that is not UTF-8 JSON of a taxonomy."""
    expected = 'expected {"name": ..., "refs": ["entity#attribute", ...]}'
    digest = hashlib.sha256(data).hexdigest()
    data = data.removeprefix(b"\xef\xbb\xbf")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{where}:{_line_of(data, exc.start)}: not UTF-8 (byte {data[exc.start]:#04x}); "
                         "save the taxonomy as UTF-8") from None
    try:
        decoded = msgspec.json.decode(data, type=_TaxonomyFile)
    except (msgspec.DecodeError, RecursionError) as exc:
        at = _AT_BYTE.search(str(exc))
        offset = int(at[1]) if at else len(data) if "truncated" in str(exc) else None
        place = "" if offset is None else f":{_line_of(data, offset)}"
        reason = str(exc) if not isinstance(exc, RecursionError) else "nesting too deep"
        raise InputError(f"{where}{place}: not a taxonomy file ({reason}); {expected}") from None
    refs = frozenset(norm_ref(ref) for ref in decoded.refs)
    if not refs or "" in refs:
        raise InputError(f"{where}: a taxonomy needs at least one ref and no empty one")
    return Taxonomy(decoded.name, refs, source, digest)


def default_taxonomy() -> Taxonomy:
    """The shipped NIKLuge 2022 taxonomy."""
    data = files("aggregator").joinpath("data", DEFAULT_NAME).read_bytes()
    return _parse(data, "default", DEFAULT_NAME)


def load_taxonomy(path: str | os.PathLike[str]) -> Taxonomy:
    """A taxonomy file; :class:`InputError` (``file: reason``) when it cannot be read or is malformed."""
    where = Path(path)
    try:
        data = where.read_bytes()
    except OSError as exc:
        raise InputError(f"{where}: cannot read the taxonomy ({exc.strerror or exc})") from None
    return _parse(data, str(where), str(where))


_IN_FORCE: Taxonomy = default_taxonomy()
_VALID: frozenset[str] = _IN_FORCE.refs
_GIVEN: list[Taxonomy | None] = [None]
"""The taxonomy given with ``--taxonomy`` (None: each run's side file, else the default)."""


def _put_in_force(taxonomy: Taxonomy) -> Taxonomy:
    global _IN_FORCE, _VALID
    _IN_FORCE, _VALID = taxonomy, taxonomy.refs
    return taxonomy


def use_taxonomy(path: str | os.PathLike[str] | None) -> Taxonomy:
    """Put the taxonomy of ``path`` in force for every run and return it; None: the default, and each
    run's own side file where it has one (:func:`taxonomy_for_run`)."""
    _GIVEN[0] = None if path is None else load_taxonomy(path)
    return _put_in_force(_GIVEN[0] or default_taxonomy())


def taxonomy_for_run(scorecards: Path) -> Taxonomy:
    """Put in force, and return, the taxonomy of the run whose scorecards file is ``scorecards``: the one
    given with ``--taxonomy``, else the :data:`SIDE_FILE` beside the file, else the default."""
    given = _GIVEN[0]
    if given is not None:
        return _put_in_force(given)
    side = scorecards.parent / SIDE_FILE
    return _put_in_force(load_taxonomy(side) if side.is_file() else default_taxonomy())


def taxonomy_in_force() -> Taxonomy:
    return _IN_FORCE


def is_valid_ref(ref: str) -> bool:
    """True when a normalized ref is one of the taxonomy's keys."""
    return ref in _VALID
