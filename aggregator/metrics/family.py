"""A metric family: what it reads from a row, what it derives per sample, what it declares.

A family lives in one module under :mod:`aggregator.metrics` and exports ``FAMILY``. It
holds, in one place:

- ``fields``: a msgspec Struct of the row fields it reads (merged with the core schema and
  the other families' into one decoder, :mod:`scorecards.schema_merge`);
- ``columns`` and ``row``: its per-sample columns and the function computing them for one
  sample (in column order) from a :class:`RowInput`; ``row`` runs in the reader's worker
  processes, so it returns plain values;
- ``declare``: its CSV columns, added to a :class:`~aggregator.metrics.registry.Registry`;
- ``requires``: the families whose per-sample values its ``row`` reads (``inp.values``)
  or whose per-sample columns its metrics read. They are put in force with it;
- ``warnings``: its coded warnings (:mod:`aggregator.run_warnings`), checked when it is in force.

Leaving a family out drops its decode, its per-sample columns and its CSV columns.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import msgspec

    from aggregator.metrics.registry import Registry
    from aggregator.run_warnings.declare import WarningCode
    from aggregator.units.sample_counts import Column, UnitPairs
    from scorecards.record import SampleRecord


class RowInput:
    """One sample as a family's ``row`` sees it.

    ``record``: the typed tuples and identity (:class:`~scorecards.record.SampleRecord`);
    ``row``: the decoded row (every family's fields in force); ``values``: the per-sample
    values already computed for this sample by the core and by earlier families, by column name;
    ``core``: the core's values alone, in :data:`~aggregator.units.sample_counts.COLUMNS` order
    (read by position where a family reads many of them); ``pairs``: each unit's projected pairs,
    ``{unit: (gold, stage 1, final)}``, as the core counted them. Both are computed here when not given.
    """

    __slots__ = ("record", "row", "values", "_core", "_pairs")

    def __init__(self, record: SampleRecord, values: Mapping[str, Any], core: Sequence[object] | None = None,
                 pairs: UnitPairs | None = None) -> None:
        self.record = record
        self.row: Any = record.row
        self.values = values
        self._core = core
        self._pairs = pairs

    @property
    def core(self) -> Sequence[object]:
        return self._core if self._core is not None else self._count()[0]

    @property
    def pairs(self) -> UnitPairs:
        return self._pairs if self._pairs is not None else self._count()[1]

    def _count(self) -> tuple[Sequence[object], UnitPairs]:
        from aggregator.units.sample_counts import counts_and_pairs

        self._core, self._pairs = counts_and_pairs(self.record)
        return self._core, self._pairs


@dataclass(frozen=True)
class SideFile:
    """A JSON file next to the scorecards that a family reads (decoded strictly into ``schema``)."""

    name: str
    schema: type[msgspec.Struct]


@dataclass(frozen=True)
class Family:
    """A group of diagnostics that is added or left out as a whole (see the module docstring)."""

    name: str
    title: str
    source: str
    columns: tuple[Column, ...]
    row: Callable[[RowInput], tuple[object, ...]] | None
    declare: Callable[[Registry], None]
    fields: type[msgspec.Struct] | None = None
    requires: tuple[str, ...] = ()
    side_file: SideFile | None = None
    warnings: tuple[WarningCode, ...] = ()
