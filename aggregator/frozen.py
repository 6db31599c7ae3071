"""Read-only containers for the typed results: a frozen model whose dict could be changed is not frozen."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, NoReturn, TypeVar

from pydantic import AfterValidator

K = TypeVar("K")
V = TypeVar("V")


class FrozenDict(dict[K, V]):
    """A ``dict`` that refuses every change (``TypeError``); still a ``dict`` for JSON, pickling and copying."""

    def _refuse(self, *args: object, **kwargs: object) -> NoReturn:
        raise TypeError(f"{type(self).__name__} is read-only")

    __setitem__ = __delitem__ = __ior__ = _refuse
    clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self) -> tuple[Any, ...]:
        return type(self), (dict(self),)

    def __copy__(self) -> FrozenDict[K, V]:
        return self

    def __deepcopy__(self, memo: dict[int, object]) -> FrozenDict[K, V]:
        return self


def _freeze(value: Mapping[Any, Any]) -> FrozenDict[Any, Any]:
    return value if isinstance(value, FrozenDict) else FrozenDict(value)


Frozen = Annotated[dict[K, V], AfterValidator(_freeze)]
"""A pydantic field type: a dict, validated as usual, then held as a :class:`FrozenDict`."""
