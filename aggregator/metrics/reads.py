"""How the diagnostic families read a row: JSON truthiness, text tests and integer fields.

The research tool read rows as Python dicts; DIAGNOSTICS.md ("Conventions") states its
rules. Families declare the fields they read as msgspec Structs with these shapes:

- an object section: ``Obj[Section]`` — the Struct when the JSON value is an object, else the
  plain value (a list, string, number, bool or null), which reads as absent (``{}``);
- a list of objects: ``Items[Item]`` — its items are Structs or plain values (skip those);
  any other JSON value, an object included, is kept as is and holds no item;
- a leaf that may be of any JSON type: ``Any``.

An object decoded into a Struct keeps only the declared keys, so an object whose declared
keys are all absent reads like ``{}`` (see :func:`filled`).
"""

from __future__ import annotations

from typing import Any, TypeVar, Union

import msgspec
from msgspec.structs import astuple

T = TypeVar("T")

Obj = Union[T, list[Any], str, int, float, bool, None]
"""An object section read into the Struct ``T``; any other JSON value is kept as is."""

JSON_BLANKS = b" \t\r\n"
"""The whitespace bytes of JSON."""

Items = Union[list[T | list[Any] | str | int | float | bool | None], dict[str, Any], str, int, float, bool, None]
"""A list whose object items are read into the Struct ``T``."""

RawItems = Union[list[msgspec.Raw], dict[str, Any], str, int, float, bool, None]
"""A list whose items stay raw JSON (decoded where needed); any other JSON value is kept as is."""


def truthy(value: Any) -> bool:
    """JSON truthiness: not missing, null, false, 0, "", [] or {} (a Struct with every declared field unset counts as {})."""
    if isinstance(value, msgspec.Struct):
        return filled(value)
    return bool(value)


def filled(struct: msgspec.Struct) -> bool:
    """Some declared field of ``struct`` was present in the input (with a non-null value)."""
    return astuple(struct).count(None) != len(struct.__struct_fields__)


def section(value: Any) -> Any:
    """``value`` when it is an object read into a Struct, else None (reads as ``{}``)."""
    return value if isinstance(value, msgspec.Struct) else None


def objects(value: Any) -> list[Any]:
    """The object items (Structs) of a list field; none when the field is not a list."""
    return [item for item in value if isinstance(item, msgspec.Struct)] if isinstance(value, list) else []


def ok(value: Any) -> str:
    """DIAGNOSTICS.md ok(x): a string stripped; a falsy value ""; any other value a non-empty
    text that equals no word the families compare with."""
    if isinstance(value, str):
        return value.strip()
    if not truthy(value):
        return ""
    return "\x00<non-string>"


def raw_truthy(raw: msgspec.Raw | bytes) -> bool:
    """JSON truthiness of a raw value; a missing field (empty raw) is falsy."""
    view = memoryview(raw)
    if not view:
        return False
    head = view[0]
    if head in b"{[":
        i = 1
        while view[i] in JSON_BLANKS:
            i += 1
        return view[i] not in b"}]"
    if head == ord('"'):
        return len(view) > 2
    if head in b"nf":
        return False
    if head == ord("t"):
        return True
    return float(bytes(view)) != 0


def is_true(value: Any) -> bool:
    """The JSON literal ``true`` exactly."""
    return value is True


def as_int(value: Any) -> int:
    """An integer field: an int as is (a bool as 0/1), a float truncated, a digit string parsed, else 0."""
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if value == value and abs(value) != float("inf") else 0
    if isinstance(value, str):
        text = value.strip()
        if text.lstrip("+-").isdigit() and text.isascii():
            return int(text)
    return 0


def first_truthy(*values: Any) -> Any:
    """The first truthy value ("a, else b"), else None."""
    for value in values:
        if truthy(value):
            return value
    return None
