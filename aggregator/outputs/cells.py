"""How one metric value is written: CSV cells, Markdown cells, JSON values."""

from __future__ import annotations

BLANK = ""
NOT_AVAILABLE = "N/A"


def csv_cell(value: object) -> str:
    """Full precision: floats as the shortest round-trip repr, booleans True/False, blank for None."""
    if value is None:
        return BLANK
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def markdown_cell(value: object, digits: int = 4) -> str:
    """Readable: floats with ``digits`` decimals, ``N/A`` for blank."""
    if value is None:
        return NOT_AVAILABLE
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def count_cell(value: object, *, sign: bool = False) -> str:
    """A count, or a mean of counts: a whole number as an integer (``3``, ``+0`` with ``sign``), any
    other with two decimals; ``N/A`` for blank."""
    if value is None:
        return NOT_AVAILABLE
    number = float(value)  # type: ignore[arg-type]
    if number.is_integer():
        return f"{int(number):+d}" if sign else f"{int(number)}"
    return f"{number:+.2f}" if sign else f"{number:.2f}"
