"""What the readable files of a comparison show: ``comparison.md`` and ``comparison_report.html`` are
capped, as the run report is; the CSV files (and ``--json``) hold every row.

- Past :data:`PAIRWISE_CONDITIONS` conditions, the pairwise tables show only the pairs with the
  baseline and the ``--contrast`` pairs (``flips``: every pair of 1,000 conditions is 499,500
  pairs; ``paired`` holds those contrasts already).
- Past :data:`SHOWN_CONDITIONS` conditions (fewer with many ``--metrics``: at most
  :data:`MAX_ROWS` / metrics shown, at least 2), the reports show the baseline, the conditions of
  the ``--contrast`` pairs and the first others in condition order; their runs, contrasts, subsets,
  agreement and charts with them.
- The other tables (runs, flips, subsets, agreement, self-consistency) show at most
  :data:`MAX_ROWS` rows each, in their order.

The view is the same :class:`~aggregator.compare.result.ComparisonResult` with those rows and a
first note saying what was left out and which CSV file holds it; the numbers are unchanged.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import polars as pl

if TYPE_CHECKING:
    from aggregator.compare.result import ComparisonResult

PAIRWISE_CONDITIONS = 12
SHOWN_CONDITIONS = 100
MAX_ROWS = 5_000
_CONDITION_COLUMNS = ("condition", "condition_a", "condition_b", "scope")
CSV_OF = {"runs": "runs.csv", "conditions": "conditions.csv", "paired": "paired.csv", "subsets": "subsets.csv",
          "agreement": "agreement.csv", "flips": "flips.csv", "self_consistency": "self_consistency.csv"}


def condition_limit(result: ComparisonResult) -> int:
    """How many conditions the reports show: :data:`SHOWN_CONDITIONS`, fewer when each has many metrics."""
    return min(SHOWN_CONDITIONS, max(2, MAX_ROWS // max(1, len(result.metrics_shown))))


def _shown_conditions(result: ComparisonResult, limit: int) -> list[str]:
    wanted = [result.baseline, *(c for pair in result.contrasts if pair[0] != result.baseline for c in pair)]
    chosen = list(dict.fromkeys(wanted))[:limit]
    for condition in result.conditions_order:
        if len(chosen) >= limit:
            break
        if condition not in chosen:
            chosen.append(condition)
    return [c for c in result.conditions_order if c in chosen]


def _keep(frame: pl.DataFrame, shown: list[str]) -> pl.DataFrame:
    """The rows whose conditions (every condition column; ``pooled`` scopes too) are shown."""
    allowed = [*shown, "pooled"]
    for column in _CONDITION_COLUMNS:
        if column in frame.columns:
            frame = frame.filter(pl.col(column).is_in(allowed))
    return frame


def _with_baseline(result: ComparisonResult, flips: pl.DataFrame) -> pl.DataFrame:
    """The rows of pairs with the baseline or of a contrast (either order), in their order."""
    pairs = [pair for a, b in result.contrasts for pair in ((a, b), (b, a))]
    asked = pl.DataFrame(pairs, schema={"condition_a": pl.String, "condition_b": pl.String}, orient="row")
    rows = flips.with_row_index("_row")
    baseline = (pl.col("condition_a") == result.baseline) | (pl.col("condition_b") == result.baseline)
    chosen = pl.concat([rows.filter(baseline).get_column("_row"),
                        rows.join(asked, on=["condition_a", "condition_b"], how="semi").get_column("_row")])
    return rows.filter(pl.col("_row").is_in(chosen.implode())).drop("_row")


def shown_view(result: ComparisonResult) -> ComparisonResult:
    """``result`` as the readable reports show it (module doc); ``result`` itself when nothing is capped."""
    total = len(result.conditions_order)
    tables = {name: getattr(result, name) for name in CSV_OF}
    notes = []
    if total > PAIRWISE_CONDITIONS:
        tables["flips"] = _with_baseline(result, tables["flips"])
        notes.append(f"pairs of conditions other than with the baseline: flips.csv (past {PAIRWISE_CONDITIONS} "
                     "conditions the tables show the pairs with the baseline and the --contrast pairs)")
    order, limit = list(result.conditions_order), condition_limit(result)
    if total > limit:
        order = _shown_conditions(result, limit)
        tables = {name: _keep(frame, order) for name, frame in tables.items()}
        notes.append(f"{total - len(order):,} of {total:,} conditions (the reports show the baseline, the --contrast "
                     f"conditions and the first others, {limit} in all): runs.csv, conditions.csv, "
                     "paired.csv, flips.csv")
    for name, frame in tables.items():
        if name not in ("conditions", "paired") and frame.height > MAX_ROWS:
            notes.append(f"{frame.height - MAX_ROWS:,} more rows of the {name.replace('_', '-')} table "
                         f"(at most {MAX_ROWS:,} rows shown): {CSV_OF[name]}")
            tables[name] = frame.head(MAX_ROWS)
    if not notes:
        return result
    note = "Not shown here, to keep this file readable (every row is in the CSV files): " + "; ".join(notes) + "."
    contrasts = tuple(pair for pair in result.contrasts if pair[0] in order and pair[1] in order)
    return result.model_copy(update={**tables, "conditions_order": tuple(order), "contrasts": contrasts,
                                     "notes": (note, *result.notes)})
