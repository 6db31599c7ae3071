"""Options the commands share: ``--outdir`` and ``--out`` (never empty) and ``--spreadsheet-safe``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


class OutputDirectory(click.Path):
    """A directory path (``option``: ``--outdir``) or an output file's (``--out``); an empty value (an
    unset shell variable, ``--outdir "$OUT"``) is refused instead of being taken for the current directory
    (:func:`~aggregator.outputs.destination.empty_reason`)."""

    def __init__(self, option: str = "--outdir") -> None:
        super().__init__(path_type=Path, readable=False)
        self.option = option

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if isinstance(value, str) and not value.strip():
            from aggregator.outputs.destination import empty_reason

            self.fail(empty_reason(self.option), param, ctx)
        return super().convert(value, param, ctx)


def spreadsheet_safe_option(command: F) -> F:
    """``--spreadsheet-safe``: see :func:`aggregator.text.spreadsheet_cell`."""
    return click.option(
        "--spreadsheet-safe", is_flag=True,
        help="Prefix ' to every CSV text cell that a spreadsheet would run as a formula (one starting "
             "with = + - @, tab or CR); for CSV files opened by people. Parquet stays exact.",
    )(command)
