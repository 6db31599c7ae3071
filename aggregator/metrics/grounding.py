"""Hallucination and RQ1 grounding (DIAGNOSTICS.md family 7): are the final aspects in the text,
and is their polarity grounded in it?

Per sample:

- ``rq1``: the grounding bucket RQ1 of the first final tuple FT (``implicit``, ``explicit``,
  ``explicit_failure`` or ``unsupported``; exactly one per row);
- ``aspect_hallucination`` (HAL): a final aspect term that is not a substring of the input text;
- ``unsupported_polarity_legacy`` (UNSUP): the legacy unsupported-polarity flag;
- ``alignment_failure_drops`` (AF): ``inputs.ate_debug.filtered`` items dropped for
  ``alignment_failure`` (read by the validator family's S1R and ``risk_flagged``);
- the drop reasons carried by ``final_tuples`` items, and whether the row has judgements.

Every column is a share of all rows (N_rows), never blank.

The reads of tuple items and judgements, and the rules over them (FT's term, J, UNSUP, RQ1, HAL),
are in :mod:`aggregator.metrics.grounding_reads`; two readers of ``is_implicit`` meet there on purpose.
"""

from __future__ import annotations

from typing import Any

import msgspec
import polars as pl

from aggregator.metrics.family import Family, RowInput
from aggregator.metrics.grounding_reads import (
    decoded_items,
    final_label,
    first_final_term,
    grounding_bucket,
    hallucinated,
    input_text,
    judgements,
    unsupported_legacy,
)
from aggregator.metrics.reads import Items, Obj, objects, ok, section
from aggregator.metrics.registry import Metric, Registry
from aggregator.units.sample_counts import Column

RQ1_BUCKETS = ("implicit", "explicit", "explicit_failure", "unsupported")
ALIGNMENT_FAILURE = "alignment_failure"
DROP_REASONS = (ALIGNMENT_FAILURE, "filter_rejection", "semantic_hallucination")


class _FR(msgspec.Struct, gc=False):
    label: Any = None


class _PO(msgspec.Struct, gc=False):
    final_result: _FR | None = None
    meta: msgspec.Raw = msgspec.Raw()


class _Runtime(msgspec.Struct, gc=False):
    parsed_output: Obj[_PO] = None


class _Filtered(msgspec.Struct, gc=False):
    action: Any = None
    drop_reason: Any = None


class _AteDebug(msgspec.Struct, gc=False):
    filtered: Items[_Filtered] = None


class _Inputs(msgspec.Struct, gc=False):
    ate_debug: Obj[_AteDebug] = None
    implicit_grounding_candidate: Any = None


class _Meta(msgspec.Struct, gc=False):
    input_text: Any = None


class _Moderator(msgspec.Struct, gc=False):
    final_label: Any = None


class _Fields(msgspec.Struct, gc=False):
    """The row fields family 7 reads (``atsa``, ``atsa_score`` and ``PO.meta`` stay raw: whether
    they are empty counts keys no rule reads, and only the one chosen is decoded)."""

    atsa: msgspec.Raw = msgspec.Raw()
    atsa_score: msgspec.Raw = msgspec.Raw()
    moderator: Obj[_Moderator] = None
    final_result: Obj[_FR] = None
    meta: _Meta | None = None
    inputs: _Inputs | None = None
    runtime: _Runtime | None = None


COLUMNS = (
    Column("rq1", "label", "RQ1 grounding bucket of the first final tuple", values=RQ1_BUCKETS),
    Column("aspect_hallucination", "bool", "HAL: a final aspect term (raw text) is not a substring of the input text"),
    Column("final_drop_alignment_failure", "bool", "some final_tuples item has drop_reason alignment_failure"),
    Column("alignment_failure_or_hallucination", "bool", "HAL, or some final_tuples item has drop_reason alignment_failure"),
    Column("final_drop_filter_rejection", "bool", "some final_tuples item has drop_reason filter_rejection"),
    Column("final_drop_semantic_hallucination", "bool", "some final_tuples item has drop_reason semantic_hallucination"),
    Column("unsupported_polarity_legacy", "bool", "UNSUP: every sentiment judgement fails, or one on a final term fails"),
    Column("alignment_failure_drops", "int", "AF: inputs.ate_debug.filtered items dropped for alignment_failure"),
    Column("sentiment_judgements_present", "bool", "the row has sentiment judgements (atsa, else atsa_score)"),
)


def _fallback_eligible(inputs: Any, filtered: list[_Filtered]) -> bool:
    """RQ1 step 5: ``implicit_grounding_candidate is true``, or every filtered item is an alignment-failure drop (≥ 1)."""
    if inputs is not None and inputs.implicit_grounding_candidate is True:
        return True
    return bool(filtered) and all(
        ok(f.action) == "drop" and ok(f.drop_reason) == ALIGNMENT_FAILURE for f in filtered
    )


def row(inp: RowInput) -> tuple[object, ...]:
    data = inp.row
    runtime = data.runtime
    parsed = section(runtime.parsed_output) if runtime is not None else None
    fr = parsed.final_result if parsed is not None else None
    tuples = decoded_items(fr.final_tuples) if fr is not None else []
    aspects = decoded_items(fr.final_aspects) if fr is not None else []
    inputs = data.inputs
    debug = section(inputs.ate_debug) if inputs is not None else None
    filtered = objects(debug.filtered) if debug is not None else []

    found = judgements(data)
    term = first_final_term(tuples, aspects, inputs.aspect_sentiments if inputs is not None else None)
    bucket = grounding_bucket(term, found, lambda: final_label(data, fr), lambda: _fallback_eligible(inputs, filtered))

    hal = hallucinated(tuples, aspects, lambda: input_text(parsed, data))
    reasons = {ok(item.drop_reason) for item in tuples}
    drops = sum(ok(f.action) == "drop" and ok(f.drop_reason) == ALIGNMENT_FAILURE for f in filtered)
    dropped = [reason in reasons for reason in DROP_REASONS]
    return (bucket, hal, dropped[0], hal or dropped[0], dropped[1], dropped[2],
            unsupported_legacy(found, inp.record.final), drops, bool(found))


def _share(flag: pl.Expr) -> pl.Expr:
    return flag.cast(pl.Float64).mean()


def declare(reg: Registry) -> None:
    def rate(name: str, label: str, meaning: str, formula: str, flag: pl.Expr,
             better: bool | None = False, present: pl.Expr | None = None) -> None:
        reg.add(Metric(name, label, meaning, formula, _share(flag), averaging="pooled", section="diagnostics",
                       requires_gold=False, higher_is_better=better, present=present))

    judged = pl.col("sentiment_judgements_present").any()
    rate("aspect_hallucination_rate", "Aspect hallucination",
         "share of rows with a final aspect term that does not occur in the input text",
         "Σ [HAL] / N_rows", pl.col("aspect_hallucination"))
    rate("alignment_failure_rate", "Alignment failure",
         "share of rows with a hallucinated final aspect or a final tuple dropped for alignment failure",
         "Σ [HAL ∨ ∃ final tuple: drop_reason = alignment_failure] / N_rows",
         pl.col("alignment_failure_or_hallucination"))
    rate("filter_rejection_rate", "Filter rejection",
         "share of rows with a final tuple whose drop_reason is filter_rejection",
         "Σ [∃ final tuple: drop_reason = filter_rejection] / N_rows", pl.col("final_drop_filter_rejection"), None)
    rate("semantic_hallucination_rate", "Semantic hallucination",
         "share of rows with a final tuple whose drop_reason is semantic_hallucination",
         "Σ [∃ final tuple: drop_reason = semantic_hallucination] / N_rows", pl.col("final_drop_semantic_hallucination"))
    rq1_meanings = {
        "implicit": ("implicit_grounding_rate", "Implicit grounding",
                     "share of rows whose first final tuple is implicit or falls back to implicit grounding", None),
        "explicit": ("explicit_grounding_rate", "Explicit grounding",
                     "share of rows whose first final tuple's polarity is grounded by its sentiment judgement", True),
        "explicit_failure": ("explicit_grounding_failure_rate", "Explicit grounding failure",
                             "share of rows whose first final tuple's judgement says the opinion is not grounded", False),
        "unsupported": ("unsupported_polarity_rate", "Unsupported polarity",
                        "share of rows whose first final tuple has no judgement or none that decides", False),
    }
    for bucket, (name, label, meaning, better) in rq1_meanings.items():
        rate(name, label, meaning, f"Σ [RQ1 = {bucket}] / N_rows", pl.col("rq1") == bucket, better,
             judged if bucket in ("explicit", "explicit_failure") else None)
    rate("legacy_unsupported_polarity_rate", "Unsupported polarity (legacy)",
         "share of rows whose sentiment judgements all fail, or one on a final term fails",
         "Σ [UNSUP] / N_rows", pl.col("unsupported_polarity_legacy"), present=judged)
    total = sum((_share(pl.col("rq1") == bucket) for bucket in RQ1_BUCKETS[1:]), _share(pl.col("rq1") == RQ1_BUCKETS[0]))
    reg.add(Metric("rq1_one_hot_sum", "RQ1 buckets sum",
                   "check: the four RQ1 rates added (1.0 up to rounding, as every row has one bucket)",
                   "implicit + explicit + explicit_failure + unsupported grounding rates", total,
                   averaging="pooled", section="diagnostics", requires_gold=False))


FAMILY = Family(
    name="grounding",
    title="Hallucination and RQ1 grounding",
    source="DIAGNOSTICS.md family 7",
    columns=COLUMNS,
    row=row,
    declare=declare,
    fields=_Fields,
)
