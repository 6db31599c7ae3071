"""Review and arbitration (DIAGNOSTICS.md family 10): CR review actions and agreement of the review agents.

``review_action_taken`` / ``arb_action_taken``: ``PO.analysis_flags.review_actions`` /
``arb_actions`` is a non-empty list (PO = ``runtime.parsed_output`` when an object).

**Action matrix** (from OUT = PO, else the row itself): tuple ids ``t0 … t(m−1)``, m = length
of ``OUT.final_result.final_tuples_pre_review``, else of ``…stage1_tuples`` (each used when
truthy), plus every id in the ``target_tuple_ids`` of ``OUT.analysis_flags.review_actions``, as
a set. Raters A, B, C: the review actions whose ok(``actor``) upper-cased names them; when
``review_actions`` is empty, ``output.review_actions`` of the last ``OUT.process_trace`` entry
whose ``agent`` is exactly ``ReviewA`` / ``ReviewB`` / ``ReviewC``. Each rater labels every id
``KEEP``, then each action relabels the known ids it targets: ``KEEP``, ``MERGE``, ``DROP``,
``FLIP_POS`` / ``FLIP_NEG`` / ``FLIP`` (by ``new_value.polarity``), else ``OTHER``. A label other
than ``KEEP`` is a *change*. When the matrix cannot be built (quirk Q17: a non-object action, a
truthy non-string actor or action type, a non-string target id, a truthy non-object
``new_value`` of a FLIP, a malformed trace entry) the row is left out of the AAR/CDA columns.

Per id: *majority* (≥ 2 of 3 labels equal), *flagged* (≥ 1 change), *perfect* (3 changes).
**CDA**: ids ``t<i>`` with ≥ 2 changes in a row whose RP(G) is non-empty; item i of the object
items of the pre-review list gives key (norm_term(norm_ref(aspect_ref)), polarity) (quirk Q9);
an empty key ref is skipped; the others are *eligible*: key ∈ RP(S2) or ∉ RP(S1) → neutral;
∈ RP(G) → harmful; else helpful.

The AAR/CDA columns count only rows with gold (quirk Q5), although agreement needs none; the
per-sample counts are given on every row.
"""

from __future__ import annotations

from typing import Any

import msgspec
import polars as pl

from aggregator.metrics.family import Family, RowInput
from aggregator.metrics.reads import Items, Obj, RawItems, section
from aggregator.metrics.registry import Metric, Registry
from aggregator.metrics.review_matrix import KEEP, Action, PreItem, Unbuildable, action_matrix, pre_key, pre_objects
from aggregator.units.sample_counts import Column
from scorecards.schema import TupleList

Q8 = ("always 1.0 when defined: with three keep/change votes a 2-of-3 majority always exists (quirk Q8); "
      "cite aar_majority_rate or aar_intervention_perfect_rate instead")


class _Nothing(msgspec.Struct, gc=False):
    """A list item whose content no rule reads."""


class _Flags(msgspec.Struct, gc=False):
    review_actions: Items[Action] = None
    arb_actions: Items[_Nothing] = None


class _FR(msgspec.Struct, gc=False):
    final_tuples_pre_review: RawItems = None
    """Items stay raw (decoded by :func:`pre_objects`): ``aggregate legacy`` counts them as they are."""
    stage1_tuples: TupleList = None


class _PO(msgspec.Struct, gc=False):
    analysis_flags: Obj[_Flags] = None
    final_result: _FR | None = None
    process_trace: msgspec.Raw = msgspec.Raw()


class _Runtime(msgspec.Struct, gc=False):
    parsed_output: Obj[_PO] = None


class _TopFR(msgspec.Struct, gc=False):
    final_tuples_pre_review: Items[PreItem] = None
    stage1_tuples: Items[PreItem] = None


class _Fields(msgspec.Struct, gc=False):
    runtime: _Runtime | None = None
    analysis_flags: Obj[_Flags] = None
    final_result: Obj[_TopFR] = None
    process_trace: msgspec.Raw = msgspec.Raw()


COLUMNS = (
    Column("analysis_flags_present", "bool", "runtime.parsed_output.analysis_flags is an object"),
    Column("review_action_taken", "bool", "runtime.parsed_output.analysis_flags.review_actions is a non-empty list"),
    Column("arb_action_taken", "bool", "runtime.parsed_output.analysis_flags.arb_actions is a non-empty list"),
    Column("review_matrix_failed", "bool",
           "the review action matrix cannot be built (quirk Q17); the row counts in no AAR/CDA column"),
    Column("aar_tuple_ids", "int", "tuple ids of the review action matrix (0 when it cannot be built)"),
    Column("aar_majority_ids", "int", "tuple ids on which at least 2 of the 3 review agents give the same label"),
    Column("aar_flagged_ids", "int", "tuple ids that at least one review agent changes (label other than KEEP)"),
    Column("aar_flagged_majority_ids", "int",
           "flagged tuple ids where ≥ 2 agents keep or ≥ 2 change (all of them, quirk Q8)"),
    Column("aar_perfect_ids", "int", "tuple ids that all 3 review agents change"),
    Column("cda_eligible_ids", "int",
           "tuple ids changed by ≥ 2 agents whose pre-review tuple has a non-empty ref (rows with gold refs only)"),
    Column("cda_helpful_ids", "int", "eligible ids whose pre-review pair was in S1, left S2 and is not gold"),
    Column("cda_harmful_ids", "int", "eligible ids whose pre-review pair was in S1, left S2 and is gold"),
    Column("aar_labels", "str", "labels of review agents A, B, C per tuple id, as JSON [[A, B, C], …] in id order "
           "(blank when the matrix cannot be built)", nullable=True),
)


def cda_counts(inp: RowInput, ids: list[str], pre: Any) -> tuple[int, int, int]:
    """(eligible, helpful, harmful) over ``ids`` (those with ≥ 2 changes)."""
    if not ids:
        return 0, 0, 0
    gold, s1, s2 = inp.pairs["refpol"]
    if not gold:
        return 0, 0, 0
    items = pre_objects(pre)
    eligible = helpful = harmful = 0
    for tuple_id in ids:
        digits = tuple_id[1:]
        if tuple_id[:1] != "t" or not (digits.isascii() and digits.isdigit()) or int(digits) >= len(items):
            continue
        key = pre_key(items[int(digits)])
        if key is None:
            continue
        eligible += 1
        if key in s2 or key not in s1:
            continue
        if key in gold:
            harmful += 1
        else:
            helpful += 1
    return eligible, helpful, harmful


def _non_empty_list(flags: Any, name: str) -> bool:
    value = getattr(flags, name) if flags is not None else None
    return isinstance(value, list) and len(value) > 0


def row(inp: RowInput) -> tuple[object, ...]:
    data = inp.row
    runtime = data.runtime
    parsed = section(runtime.parsed_output) if runtime is not None else None
    flags = section(parsed.analysis_flags) if parsed is not None else None
    head = (flags is not None, _non_empty_list(flags, "review_actions"), _non_empty_list(flags, "arb_actions"))
    try:
        matrix, pre = action_matrix(parsed if parsed is not None else data)
    except Unbuildable:
        return (*head, True, 0, 0, 0, 0, 0, 0, 0, 0, None)
    majority = flagged = flagged_majority = perfect = 0
    contested: list[str] = []
    for tuple_id, (a, b, c) in matrix.items():
        changes = (a != KEEP) + (b != KEEP) + (c != KEEP)
        majority += a == b or b == c or a == c
        if changes:
            flagged += 1
            flagged_majority += changes >= 2 or 3 - changes >= 2
            perfect += changes == 3
        if changes >= 2:
            contested.append(tuple_id)
    cda = cda_counts(inp, contested, pre)
    labels = msgspec.json.encode(list(matrix.values())).decode()
    return (*head, False, len(matrix), majority, flagged, flagged_majority, perfect, *cda, labels)


def declare(reg: Registry) -> None:
    from aggregator.metrics.exprs import HAS_GOLD, ratio

    present = pl.col("analysis_flags_present").any()

    def gold_sum(column: str) -> pl.Expr:
        return pl.col(column).filter(HAS_GOLD).sum()

    def share(name: str, label: str, meaning: str, formula: str, expr: pl.Expr, blank: str = "",
              better: bool | None = None, compat: str | None = None) -> None:
        reg.add(Metric(name, label, meaning, formula, expr, averaging="pooled", section="diagnostics",
                       blank_when=blank, requires_gold=False, higher_is_better=better, present=present,
                       compat=compat))

    share("review_action_rate", "Review action rate", "share of rows where the review agents proposed actions",
          "Σ [PO.analysis_flags.review_actions non-empty] / N_rows", pl.col("review_action_taken").mean())
    share("arb_intervention_rate", "Arbiter intervention rate", "share of rows where the arbiter took actions",
          "Σ [PO.analysis_flags.arb_actions non-empty] / N_rows", pl.col("arb_action_taken").mean())
    share("aar_majority_rate", "Review agreement (majority)",
          "share of reviewed tuples on which at least two of the three review agents agree (rows with gold, Q5)",
          "Σ_gold majority ids / Σ_gold ids", ratio(gold_sum("aar_majority_ids"), gold_sum("aar_tuple_ids")),
          "no tuple id in a row with gold", True)
    share("aar_intervention_majority_rate", "Flagged-tuple majority",
          "share of flagged tuples (changed by an agent) where two agents keep or two change",
          "Σ_gold flagged ids with keep ≥ 2 ∨ change ≥ 2 / Σ_gold flagged ids",
          ratio(gold_sum("aar_flagged_majority_ids"), gold_sum("aar_flagged_ids")), "no flagged id", compat=Q8)
    share("aar_intervention_perfect_rate", "Flagged-tuple unanimity",
          "share of flagged tuples that all three review agents change",
          "Σ_gold ids with change = 3 / Σ_gold flagged ids",
          ratio(gold_sum("aar_perfect_ids"), gold_sum("aar_flagged_ids")), "no flagged id", True)
    for what, meaning in (("eligible", "tuples two or more review agents changed whose pre-review pair has a ref"),
                          ("helpful", "eligible tuples whose stage-1 pair left the final output and was not gold"),
                          ("harmful", "eligible tuples whose stage-1 pair left the final output and was gold")):
        reg.add(Metric(f"cda_{what}_n", f"CDA {what}", meaning, f"Σ_gold cda_{what}_ids",
                       gold_sum(f"cda_{what}_ids").cast(pl.Int64), kind="int", averaging="count",
                       requires_gold=False, present=present,
                       higher_is_better={"helpful": True, "harmful": False}.get(what)))
    helpful, harmful = gold_sum("cda_helpful_ids"), gold_sum("cda_harmful_ids")
    share("cda_refpol", "CDA (action-based)", "share of helpful among helpful and harmful review changes",
          "cda_helpful_n / (cda_helpful_n + cda_harmful_n)", ratio(helpful, helpful + harmful),
          "helpful + harmful = 0", True)


FAMILY = Family(
    name="review",
    title="Review and arbitration",
    source="DIAGNOSTICS.md family 10",
    columns=COLUMNS,
    row=row,
    declare=declare,
    fields=_Fields,
)
