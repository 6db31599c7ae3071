"""Cells and captions shared by the comparison's Markdown, its HTML report, the paper table and the summary.

Numbers at four decimals (counts as integers), signed differences, intervals, p-values, mean ± SD, metric
labels, and the caption that states how the intervals and tests were made.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from aggregator.metrics.structural import STRUCTURAL
from aggregator.outputs.cells import NOT_AVAILABLE, count_cell, markdown_cell
from aggregator.text import md_code, md_text

if TYPE_CHECKING:
    from aggregator.compare.result import ComparisonResult


def table(header: Sequence[str], rows: Sequence[Sequence[str]], numeric_from: int) -> list[str]:
    align = ["---" if i < numeric_from else "---:" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines + [""]


def name(text: object) -> str:
    """A condition (or a level) in a table cell."""
    return md_code(str(text), in_table=True)


def note(text: object) -> str:
    """A note in a table cell."""
    return md_text(str(text or ""))


def is_count(metric: object) -> bool:
    """A metric that counts (``kind`` int, e.g. Breaks): its values print as counts (:func:`count_cell`)."""
    return isinstance(metric, str) and metric in STRUCTURAL and STRUCTURAL[metric].kind == "int"


def value(number: object, count: bool = False) -> str:
    """A value of a metric: four decimals, or as a count."""
    return count_cell(number) if count else markdown_cell(number)


def signed(number: object, count: bool = False) -> str:
    if count:
        return count_cell(number, sign=True)
    return NOT_AVAILABLE if number is None else f"{number:+.4f}"


def interval(low: object, high: object, sign: bool = False, count: bool = False) -> str:
    if low is None or high is None:
        return NOT_AVAILABLE
    if sign:
        return f"[{signed(low, count)}, {signed(high, count)}]"
    return f"[{value(low, count)}, {value(high, count)}]"


def mean_sd(row: dict[str, object]) -> str:
    """``mean ± SD`` of a row of ``conditions`` (counts as counts)."""
    mean, sd, count = row["mean"], row["sd"], is_count(row.get("metric"))
    if mean is None:
        return NOT_AVAILABLE
    return value(mean, count) if sd is None else f"{value(mean, count)} ± {value(sd, count)}"


def p_cell(p: object) -> str:
    if p is None:
        return NOT_AVAILABLE
    return "< 0.0001" if isinstance(p, float) and p < 1e-4 else markdown_cell(p)


def label(metric: str) -> str:
    return STRUCTURAL[metric].label if metric in STRUCTURAL else metric


def method_caption(result: ComparisonResult, *, sd: bool = True) -> str:
    """How the condition and contrast numbers were made, for captions (``sd``: the SD over seeds is shown)."""
    shown_sd = f"SD over seeds with ddof = {result.ddof}. " if sd else ""
    return (f"{shown_sd}95% intervals over seeds and samples: seed variance from "
            "the runs' values (ddof 1, t with seeds − 1 df), sample variance from a paired bootstrap over samples "
            f"({result.resamples} resamples, seed {result.seed}; t with samples − 1 df), combined by Banerjee's "
            "conservative rule; p-values from the same test (the interval excludes 0 exactly when p < 0.05).")


SEED_SHARE = ("Seed share: the part of the interval's variance that comes from the seeds (the rest from the "
              "samples); near 1, more seeds narrow the interval more than more samples would.")
MARKED = "⚠: a coded warning covers the value (its codes in the Note column; docs/warnings.md)."
