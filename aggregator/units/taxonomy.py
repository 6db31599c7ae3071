"""The aspect taxonomy: which ``entity#attribute`` refs are valid.

The default is the NIKLuge 2022 taxonomy, shipped as package data
(``aggregator/data/taxonomy_nikluge.json``); ``--taxonomy FILE`` (or ``taxonomy=`` in the
Python API) puts another dataset's in force. A taxonomy file is UTF-8 JSON,
``{"name": "...", "refs": ["entity#attribute", ...]}``; each ref is normalized as input refs
are (:func:`~scorecards.normalize.norm_ref`). The taxonomy in force is module state, set before
the reader forks its decoding processes, which inherit it.
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


def use_taxonomy(path: str | os.PathLike[str] | None) -> Taxonomy:
    """Put the taxonomy of ``path`` (None: the default) in force and return it."""
    global _IN_FORCE, _VALID
    _IN_FORCE = default_taxonomy() if path is None else load_taxonomy(path)
    _VALID = _IN_FORCE.refs
    return _IN_FORCE


def taxonomy_in_force() -> Taxonomy:
    return _IN_FORCE


def is_valid_ref(ref: str) -> bool:
    """True when a normalized ref is one of the taxonomy's keys."""
    return ref in _VALID
