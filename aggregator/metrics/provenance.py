"""Provenance and run info (DIAGNOSTICS.md family 1): what produced the numbers.

The research tool wrote its own constants here; this tool writes its own meaningful values
(the spec marks these columns "not reproduced literally"):

- ``eval_semver``: this tool's version (:data:`aggregator.version.__version__`);
- ``eval_policy_hash``: the first 16 hex digits of SHA-256 of :func:`policy_text`, one line
  ``name: formula`` per column of the registry in force, in CSV order — it changes when a
  column is added, removed or redefined, or when another family selection is in force;
- ``aggregation_order_signature``: SHA-1 hex of :data:`ORDER_POLICY`, the text naming how this
  tool orders rows and tuples (the only thing float sums depend on);
- ``profile_filter``: the ``--profile`` value when it matched no row and every row was
  aggregated (SCORECARDS.md), blank otherwise;
- ``final_pred_source_aspects_path_unused_flag``: no row took its final set from
  ``final_result.final_aspects``.
"""

from __future__ import annotations

import hashlib

import polars as pl

from aggregator.metrics.family import Family
from aggregator.metrics.registry import Metric, Registry, RunContext, RunLevel
from aggregator.version import __version__

ORDER_POLICY = (
    "rows: sorted by sample key, then split, then run id (code-point order), then input line; "
    "sums and means: over that row order, one chunk; "
    "tuple sets: normalized (aspect_ref, aspect_term, polarity) triples, duplicates once, no order; "
    "first-of-list rules: input list order"
)
"""How this tool orders what it aggregates; ``aggregation_order_signature`` is its SHA-1."""

ORDER_SIGNATURE = hashlib.sha1(ORDER_POLICY.encode("utf-8")).hexdigest()


def policy_text(registry: Registry) -> str:
    """The metric definitions in force: one ``name: formula`` line per column, in CSV order."""
    return "".join(f"{m.name}: {m.formula}\n" for m in registry)


def policy_hash(registry: Registry) -> str:
    """First 16 hex digits of SHA-256 of :func:`policy_text`."""
    return hashlib.sha256(policy_text(registry).encode("utf-8")).hexdigest()[:16]


def _profile_filter(_: pl.DataFrame, ctx: RunContext) -> str | None:
    return ctx.profile if ctx.profile_fallback else None


def _constant(value: str) -> RunLevel:
    return lambda _table, _ctx: value


def declare(reg: Registry) -> None:
    def text(name: str, label: str, meaning: str, formula: str, value: RunLevel | str, blank_when: str = "") -> None:
        run_level = _constant(value) if isinstance(value, str) else value
        reg.add(Metric(name, label, meaning, formula, None, kind="str", averaging="text", requires_gold=False,
                       run_level=run_level, blank_when=blank_when))

    text("profile_filter", "Profile fallback",
         "the --profile asked for when it matched no row, so every row was aggregated; blank otherwise",
         "P when --profile P matched no row, else blank", _profile_filter,
         blank_when="--profile matched some row, or was not given")
    text("eval_semver", "Tool version", "version of absa-aggregator that computed these numbers",
         "aggregator.version", __version__)
    text("eval_policy_hash", "Metric definitions hash",
         "fingerprint of the metric definitions in force (every column's name and formula, in CSV order); "
         "it changes when a column is added, removed or redefined, or another --families selection is in force",
         "first 16 hex of SHA-256 of the lines 'name: formula'", lambda _table, _ctx: policy_hash(reg))
    text("aggregation_order_signature", "Aggregation order signature",
         f"fingerprint of this tool's row and tuple ordering policy: {ORDER_POLICY}",
         "SHA-1 hex of the ordering policy text", ORDER_SIGNATURE)
    reg.add(Metric("final_pred_source_aspects_path_unused_flag", "final_aspects path unused",
                   "no row took its final set from final_result.final_aspects",
                   "N_pred_final_aspects = 0 ∧ N_rows > 0",
                   (pl.col("final_source") == "final_aspects").sum().eq(0) & (pl.len() > 0),
                   kind="bool", averaging="flag", requires_gold=False))


FAMILY = Family(
    name="provenance",
    title="Provenance and run info",
    source="DIAGNOSTICS.md family 1",
    columns=(),
    row=None,
    declare=declare,
)
