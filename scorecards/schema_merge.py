"""One typed partial schema from several: the core row and each metric family's reads.

Each metric family declares, as a msgspec Struct, only the fields of a row it reads.
:func:`merge_structs` joins them into one Struct type, so a line is decoded once, typed,
whatever set of families is in force; unknown keys are still skipped without building
Python objects. Two declarations of one field merge as follows:

- equal types: kept;
- both hold a Struct (possibly inside ``T | None`` or ``list[...]``): the Structs merge
  field by field, the other members of the union are those both declarations allow;
- anything else (e.g. ``Any`` against a Struct): a :class:`SchemaConflict` at import
  time, so two families cannot silently read one field in two ways.
"""

from __future__ import annotations

from functools import reduce
from types import GenericAlias, NoneType, UnionType
from typing import Any, Union, get_args, get_origin

import msgspec


class SchemaConflict(TypeError):
    """Two partial schemas declare one field with types that cannot be merged."""


def _members(tp: Any) -> list[Any]:
    if get_origin(tp) in (Union, UnionType):
        return list(get_args(tp))
    return [tp]


def _is_struct(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, msgspec.Struct)


def _union(members: list[Any]) -> Any:
    return reduce(lambda a, b: Union[a, b], members)  # noqa: UP007 - built from runtime types


def merge_types(a: Any, b: Any, where: str) -> Any:
    """The type both declarations of the field ``where`` can read (see the module docstring)."""
    if a == b:
        return a
    left, right = _members(a), _members(b)
    structs = [m for m in left if _is_struct(m)], [m for m in right if _is_struct(m)]
    lists = [m for m in left if get_origin(m) is list], [m for m in right if get_origin(m) is list]
    merged: list[Any] = []
    if structs[0] and structs[1]:
        merged.append(merge_structs(structs[0][0].__name__, structs[0][0], structs[1][0], where=where))
    if lists[0] and lists[1]:
        merged.append(GenericAlias(list, merge_types(get_args(lists[0][0])[0], get_args(lists[1][0])[0], f"{where}[]")))
    if not merged:
        raise SchemaConflict(f"field `{where}` is declared as {a!r} and as {b!r}")
    rest = [m for m in left if not _is_struct(m) and get_origin(m) is not list and (m in right or m is NoneType and NoneType in right)]
    return _union(merged + rest)


def merge_structs(name: str, *types: type[msgspec.Struct], where: str = "$") -> type[msgspec.Struct]:
    """One Struct type with every field of ``types`` (first default wins); see the module docstring."""
    if len(types) == 1:
        return types[0]
    fields: dict[str, tuple[Any, Any]] = {}
    for struct in types:
        for info in msgspec.structs.fields(struct):
            default = info.default if info.default is not msgspec.NODEFAULT else None
            if info.name in fields:
                earlier, first_default = fields[info.name]
                fields[info.name] = (merge_types(earlier, info.type, f"{where}.{info.name}"), first_default)
            else:
                fields[info.name] = (info.type, default)
    return msgspec.defstruct(name, [(n, t, d) for n, (t, d) in fields.items()], gc=False)
