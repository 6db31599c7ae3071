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

from functools import lru_cache
from typing import Any

import msgspec
import polars as pl

from aggregator.metrics.family import Family, RowInput
from aggregator.metrics.reads import Items, Obj, RawItems, ok, section, truthy
from aggregator.metrics.registry import Metric, Registry
from aggregator.units.projection import gold_units
from aggregator.units.sample_counts import Column
from scorecards.normalize import UnknownPolarity, norm_polarity, norm_ref, norm_term
from scorecards.schema import TupleList

RATERS = ("A", "B", "C")
KEEP = "KEEP"
Q8 = ("always 1.0 when defined: with three keep/change votes a 2-of-3 majority always exists (quirk Q8); "
      "cite aar_majority_rate or aar_intervention_perfect_rate instead")


class _Action(msgspec.Struct, gc=False):
    actor: Any = None
    action_type: Any = None
    target_tuple_ids: Any = None
    new_value: Any = None


class _Nothing(msgspec.Struct, gc=False):
    """A list item whose content no rule reads."""


class _Flags(msgspec.Struct, gc=False):
    review_actions: Items[_Action] = None
    arb_actions: Items[_Nothing] = None


class _PreItem(msgspec.Struct, gc=False):
    aspect_ref: Any = None
    polarity: Any = None
    label: Any = None


class _FR(msgspec.Struct, gc=False):
    final_tuples_pre_review: RawItems = None
    """Items stay raw (decoded by :func:`_pre_objects`): ``aggregate legacy`` counts them as they are."""
    stage1_tuples: TupleList = None


class _PO(msgspec.Struct, gc=False):
    analysis_flags: Obj[_Flags] = None
    final_result: _FR | None = None
    process_trace: msgspec.Raw = msgspec.Raw()


class _Runtime(msgspec.Struct, gc=False):
    parsed_output: Obj[_PO] = None


class _TopFR(msgspec.Struct, gc=False):
    final_tuples_pre_review: Items[_PreItem] = None
    stage1_tuples: Items[_PreItem] = None


class _Fields(msgspec.Struct, gc=False):
    runtime: _Runtime | None = None
    analysis_flags: Obj[_Flags] = None
    final_result: Obj[_TopFR] = None
    process_trace: msgspec.Raw = msgspec.Raw()


class _TraceOutput(msgspec.Struct, gc=False):
    review_actions: Items[_Action] = None


class _TraceEntry(msgspec.Struct, gc=False):
    agent: Any = None
    output: Obj[_TraceOutput] = None


_TRACE = msgspec.json.Decoder(Items[_TraceEntry])
_PRE_ITEM = msgspec.json.Decoder(Obj[_PreItem])

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


class Unbuildable(Exception):
    """The action matrix of a row cannot be built (quirk Q17)."""


def _text_or_fail(value: Any) -> str:
    """ok(value) for a field the matrix builder reads as text; a truthy non-string fails (quirk Q17)."""
    if isinstance(value, str):
        return value.strip()
    if value:
        raise Unbuildable
    return ""


def label(action: _Action) -> str:
    """The canonical label an action gives the ids it targets."""
    kind = _text_or_fail(action.action_type).upper()
    if kind in (KEEP, "MERGE", "DROP"):
        return kind
    if kind != "FLIP":
        return "OTHER"
    new_value = action.new_value
    if truthy(new_value) and not isinstance(new_value, dict):
        raise Unbuildable
    polarity = ok(new_value.get("polarity")).lower() if new_value else ""
    return {"positive": "FLIP_POS", "pos": "FLIP_POS", "negative": "FLIP_NEG", "neg": "FLIP_NEG"}.get(polarity, "FLIP")


def _size(value: Any) -> int:
    """Length of the pre-review list (a non-list keeps Python's len; a number fails)."""
    if not truthy(value):
        return 0
    if isinstance(value, (list, dict, str)):
        return len(value)
    raise Unbuildable


def _pre_list(fr: Any) -> Any:
    """The pre-review list: ``final_tuples_pre_review`` when truthy, else ``stage1_tuples`` when truthy."""
    if fr is None:
        return None
    if truthy(fr.final_tuples_pre_review):
        return fr.final_tuples_pre_review
    return fr.stage1_tuples if truthy(fr.stage1_tuples) else None


def _review_actions(flags: Any) -> list[_Action]:
    """``analysis_flags.review_actions``: a list of objects (an empty or falsy value: none)."""
    actions = flags.review_actions if flags is not None else None
    if not truthy(actions):
        return []
    if not isinstance(actions, list) or not all(isinstance(a, _Action) for a in actions):
        raise Unbuildable
    return actions


@lru_cache(maxsize=64)
def _positional_ids(m: int) -> tuple[str, ...]:
    """``t0 … t(m−1)``."""
    return tuple(f"t{i}" for i in range(m))


def _tuple_ids(m: int, actions: list[_Action]) -> dict[str, None]:
    ids = dict.fromkeys(_positional_ids(m))
    for action in actions:
        targets = action.target_tuple_ids
        if isinstance(targets, list):
            for target in targets:
                if not isinstance(target, str):
                    raise Unbuildable
                ids[target] = None
    return ids


def _by_actor(actions: list[_Action]) -> dict[str, list[Any]]:
    """Rater X's actions: those whose ok(``actor``) upper-cased is X."""
    found: dict[str, list[Any]] = {rater: [] for rater in RATERS}
    for action in actions:
        rater = found.get(_text_or_fail(action.actor).upper())
        if rater is not None:
            rater.append(action)
    return found


def _trace_raters(raw: msgspec.Raw) -> dict[str, list[Any]]:
    """Rater X's actions from the last trace entry whose agent is ``ReviewX`` (quirk Q17 checks on every entry)."""
    entries = _TRACE.decode(raw) if raw else None
    found: dict[str, list[Any]] = {rater: [] for rater in RATERS}
    for entry in entries if isinstance(entries, list) else ():
        if not isinstance(entry, _TraceEntry):
            raise Unbuildable
        agent, output = entry.agent, entry.output
        if truthy(agent) and not isinstance(agent, str) or truthy(output) and not isinstance(output, _TraceOutput):
            raise Unbuildable
        if isinstance(agent, str) and agent.startswith("Review") and agent[6:] in found:
            actions = output.review_actions if isinstance(output, _TraceOutput) else None
            found[agent[6:]] = [a for a in actions if isinstance(a, _Action)] if isinstance(actions, list) else []
    return found


def _rater_labels(ids: dict[str, None], actions: list[Any]) -> dict[str, str]:
    labels = dict.fromkeys(ids, KEEP)
    for action in actions:
        targets = action.target_tuple_ids
        if not isinstance(targets, list):
            continue
        known = [t for t in targets if isinstance(t, str) and t in labels]
        if known:
            given = label(action)
            for target in known:
                labels[target] = given
    return labels


def action_matrix(out: Any) -> tuple[dict[str, tuple[str, str, str]], Any]:
    """The labels of raters A, B, C per tuple id, and the pre-review list; raises :class:`Unbuildable`."""
    flags = section(out.analysis_flags)
    fr = section(out.final_result)
    pre = _pre_list(fr)
    actions = _review_actions(flags)
    ids = _tuple_ids(_size(pre), actions)
    if not ids:
        return {}, pre
    if actions:
        by_rater = _by_actor(actions)
    else:
        by_rater = _trace_raters(out.process_trace)
    columns = [_rater_labels(ids, by_rater[rater]).values() for rater in RATERS]
    return dict(zip(ids, zip(*columns))), pre


def _pre_objects(pre: Any) -> list[Any]:
    """The object items of the pre-review list (raw items decoded), non-objects dropped."""
    if not isinstance(pre, list):
        return []
    items = [_PRE_ITEM.decode(i) if isinstance(i, msgspec.Raw) else i for i in pre]
    return [i for i in items if isinstance(i, _PreItem)]


def _polarity(item: _PreItem) -> str:
    value = item.polarity if item.polarity is not None and item.polarity != "" else item.label
    if not isinstance(value, str):
        return "neutral" if value is None else msgspec.json.encode(value).decode()
    try:
        return norm_polarity(value)[0]
    except UnknownPolarity:
        return value.strip().lower()


def _pre_key(item: _PreItem) -> tuple[str, str] | None:
    """(norm_term(norm_ref(aspect_ref)), polarity) of a pre-review item (quirk Q9); None when the ref is empty."""
    ref = item.aspect_ref
    key_ref = norm_term(norm_ref(ref)) if isinstance(ref, str) else ""
    return (key_ref, _polarity(item)) if key_ref else None


def cda_counts(inp: RowInput, ids: list[str], pre: Any) -> tuple[int, int, int]:
    """(eligible, helpful, harmful) over ``ids`` (those with ≥ 2 changes)."""
    gold = gold_units(inp.record.gold) if ids else None
    if not gold:
        return 0, 0, 0
    items = _pre_objects(pre)
    s1, s2 = gold_units(inp.record.stage1), gold_units(inp.record.final)
    eligible = helpful = harmful = 0
    for tuple_id in ids:
        digits = tuple_id[1:]
        if tuple_id[:1] != "t" or not (digits.isascii() and digits.isdigit()) or int(digits) >= len(items):
            continue
        key = _pre_key(items[int(digits)])
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
