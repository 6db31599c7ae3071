"""External (HF) signal (DIAGNOSTICS.md family 16): disagreement with an external classifier.

Per sample: ``hf_label_present``: ``aux_signals.hf.label`` is present and not null;
``hf_disagrees``: present, and pol3(hf label) ≠ pol3(final), where final =
``moderator.final_label``, else the top-level ``final_result.label`` (quirk Q12: scorecards
keep the final result under ``runtime.parsed_output``, so without a moderator label the
final label reads as empty, i.e. neutral). pol3 maps the lower-cased, stripped text:
positive/pos → pos, negative/neg → neg, anything else → neu.

The coverage column counts rows where the validator flagged a structural risk at either
stage (``r1`` > 0 or ``r2`` > 0, family "validator").
"""

from __future__ import annotations

from typing import Any

import msgspec
import polars as pl

from aggregator.metrics.family import Family, RowInput
from aggregator.metrics.reads import Obj, first_truthy, ok, section
from aggregator.metrics.registry import Metric, Registry
from aggregator.units.sample_counts import Column

POL3 = {"positive": "pos", "pos": "pos", "negative": "neg", "neg": "neg"}


class _Hf(msgspec.Struct, gc=False):
    label: Any = None


class _Aux(msgspec.Struct, gc=False):
    hf: Obj[_Hf] = None


class _Moderator(msgspec.Struct, gc=False):
    final_label: Any = None


class _FinalResult(msgspec.Struct, gc=False):
    label: Any = None


class _PO(msgspec.Struct, gc=False):
    final_result: _FinalResult | None = None


class _Runtime(msgspec.Struct, gc=False):
    parsed_output: Obj[_PO] = None


class _Fields(msgspec.Struct, gc=False):
    aux_signals: Obj[_Aux] = None
    moderator: Obj[_Moderator] = None
    final_result: Obj[_FinalResult] = None
    runtime: _Runtime | None = None


COLUMNS = (
    Column("hf_label_present", "bool", "the row carries an external (HF) label (aux_signals.hf.label not null)"),
    Column("hf_disagrees", "bool",
           "HF label present and its polarity (pos/neg/neu) differs from moderator.final_label, else top-level final_result.label"),
    Column("hf_disagrees_fixed", "bool",
           "HF label present and its polarity differs from moderator.final_label, else runtime.parsed_output.final_result.label"),
)


def pol3(value: Any) -> str:
    """pos, neg or neu of a label (anything but positive/pos/negative/neg is neu)."""
    return POL3.get(ok(value).lower(), "neu")


def _label(final_result: Any) -> Any:
    found = section(final_result)
    return None if found is None else found.label


def row(inp: RowInput) -> tuple[object, ...]:
    aux = section(inp.row.aux_signals)
    hf = section(aux.hf) if aux is not None else None
    if hf is None or hf.label is None:
        return False, False, False
    moderator = section(inp.row.moderator)
    runtime = inp.row.runtime
    po = section(runtime.parsed_output) if runtime is not None else None
    moderated = moderator.final_label if moderator is not None else None
    top = first_truthy(moderated, _label(section(inp.row.final_result)))
    parsed = first_truthy(moderated, _label(po.final_result) if po is not None else None)
    hf_pol = pol3(hf.label)
    return True, hf_pol != pol3(top), hf_pol != pol3(parsed)


Q12 = ("the final label falls back to a top-level final_result.label that scorecards do not have (quirk Q12): "
       "without a moderator label every HF label is compared with neutral; use the _fixed column")


def declare(reg: Registry) -> None:
    from aggregator.metrics.exprs import count, ratio

    present = pl.col("hf_label_present")
    risky = (pl.col("r1") > 0) | (pl.col("r2") > 0)
    for suffix, fallback, compat in (("", "top-level final_result.label", Q12),
                                     ("_fixed", "runtime.parsed_output.final_result.label", None)):
        disagrees = pl.col(f"hf_disagrees{suffix}")
        final = f"final label: moderator.final_label, else {fallback}"
        columns = (
            ("hf_polarity_disagreement_rate", "HF polarity disagreement rate",
             f"share of rows with an external (HF) label whose polarity differs from the final label ({final})",
             "Σ [hf ∧ disagree] / Σ [hf]", ratio(count(disagrees).cast(pl.Float64), count(present)),
             "no row with an HF label"),
            ("hf_disagreement_coverage_of_structural_risks", "HF disagreement on risky rows",
             "share of rows with a validator structural risk (r1 > 0 or r2 > 0) and an HF label where the HF "
             f"label disagrees with the final label ({final})",
             "Σ [(r1 > 0 ∨ r2 > 0) ∧ hf ∧ disagree] / Σ [(r1 > 0 ∨ r2 > 0) ∧ hf]",
             ratio(count(risky & disagrees).cast(pl.Float64), count(risky & present)),
             "no risky row with an HF label"),
        )
        for name, label, meaning, formula, expr, blank_when in columns:
            reg.add(Metric(name + suffix, label + (" (fixed)" if suffix else ""), meaning, formula, expr,
                           averaging="pooled", requires_gold=False, blank_when=blank_when,
                           compat=compat, fixes=name if suffix else None))


FAMILY = Family(
    name="hf_signal",
    title="External (HF) signal",
    source="DIAGNOSTICS.md family 16",
    columns=COLUMNS,
    row=row,
    declare=declare,
    fields=_Fields,
    requires=("validator",),
)
