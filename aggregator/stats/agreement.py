"""Agreement between the three review agents: Fleiss' κ and Krippendorff's α (nominal) from sums.

The review family's per-sample ``aar_labels`` hold, per tuple id (an *item*), the labels of agents
A, B and C (m = 3 ratings per item; categories :data:`CATEGORIES`). With n_ic the ratings of item
i in category c, every statistic is a function of sums over items, so it is a function of
per-sample sums (``items``, ``squares`` = Σ_i Σ_c n_ic², ``c_<category>`` = Σ_i n_ic) and can be
resampled over samples like any registry metric (:mod:`aggregator.stats.weighted`):

- Fleiss (1971): P̄ = (squares − N·m) / (N·m·(m − 1)), p_c = c_c / (N·m), P_e = Σ p_c²,
  κ = (P̄ − P_e) / (1 − P_e); blank when P_e = 1 (every rating in one category);
- Krippendorff (2004; 2011, "Computing Krippendorff's alpha-reliability"), nominal, no missing
  ratings: n = N·m, D_o = (N·m² − squares) / (m − 1) / n, D_e = (n² − Σ c_c²) / (n·(n − 1)),
  α = 1 − D_o / D_e; blank when D_e = 0;
- ``observed_agreement`` = P̄.

Tests pin both to the maintained implementations (``statsmodels.stats.inter_rater.fleiss_kappa``,
``krippendorff.alpha``) and to a hand-worked example.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from aggregator.metrics.registry import Metric, Registry

RATERS = 3
CATEGORIES = ("KEEP", "MERGE", "DROP", "FLIP_POS", "FLIP_NEG", "FLIP", "OTHER")
STAT_COLUMNS = ("items", "squares", *(f"c_{c}" for c in CATEGORIES))


def sample_stats(table: pl.DataFrame, labels: str, keys: Sequence[str | pl.Expr] = ()) -> pl.DataFrame:
    """Per row of ``table``: ``keys`` and the sums of :data:`STAT_COLUMNS` from the JSON ``[[A, B, C], …]``
    column ``labels`` (null or ``[]``: no item, every sum 0)."""
    rows = table.select(*keys, pl.col(labels).str.json_decode(pl.List(pl.List(pl.String))).alias("_items")) \
        .with_row_index("_row")
    items = rows.select("_row", "_items").explode("_items").drop_nulls("_items")
    counts = items.select("_row", *(pl.col("_items").list.count_matches(c).cast(pl.Int64).alias(f"c_{c}")
                                   for c in CATEGORIES))
    per_row = counts.group_by("_row").agg(
        pl.len().cast(pl.Int64).alias("items"),
        pl.sum_horizontal(pl.col(f"c_{c}") ** 2 for c in CATEGORIES).sum().cast(pl.Int64).alias("squares"),
        *(pl.col(f"c_{c}").sum() for c in CATEGORIES),
    )
    return (rows.drop("_items").join(per_row, on="_row", how="left", maintain_order="left")
            .with_columns(pl.col(c).fill_null(0) for c in STAT_COLUMNS).drop("_row"))


def _sums() -> tuple[pl.Expr, pl.Expr, list[pl.Expr]]:
    return (pl.col("items").sum().cast(pl.Float64), pl.col("squares").sum().cast(pl.Float64),
            [pl.col(f"c_{c}").sum().cast(pl.Float64) for c in CATEGORIES])


def observed_agreement() -> pl.Expr:
    n, squares, _ = _sums()
    return pl.when(n > 0).then((squares - n * RATERS) / (n * RATERS * (RATERS - 1)))


def fleiss_kappa() -> pl.Expr:
    n, _, counts = _sums()
    expected = sum(((c / (n * RATERS)) ** 2 for c in counts), start=pl.lit(0.0))
    return pl.when((n > 0) & (expected < 1)).then((observed_agreement() - expected) / (1 - expected))


def krippendorff_alpha() -> pl.Expr:
    n, squares, counts = _sums()
    values = n * RATERS
    disagreement = (n * RATERS**2 - squares) / (RATERS - 1) / values
    expected = (values**2 - sum((c**2 for c in counts), start=pl.lit(0.0))) / (values * (values - 1))
    return pl.when((n > 0) & (expected > 0)).then(1 - disagreement / expected)


def agreement_registry() -> Registry:
    """The three statistics as metrics over a table of :func:`sample_stats` columns."""
    reg = Registry()
    for name, label, expr in (("fleiss_kappa", "Fleiss' κ", fleiss_kappa()),
                              ("krippendorff_alpha", "Krippendorff's α (nominal)", krippendorff_alpha()),
                              ("observed_agreement", "Observed agreement (P̄)", observed_agreement())):
        reg.add(Metric(name, label, f"{label} of review agents A, B, C", "see aggregator.stats.agreement", expr,
                       requires_gold=False, higher_is_better=True))
    return reg
