"""The review action matrix of a row (family ``review``, :mod:`aggregator.metrics.review`).

Tuple ids ``t0 … t(m−1)`` (m the length of the pre-review list) plus every targeted id; raters
A, B, C label every id ``KEEP``, then their actions relabel the ids they target (``KEEP``,
``MERGE``, ``DROP``, ``FLIP_POS`` / ``FLIP_NEG`` / ``FLIP``, else ``OTHER``). The actions come from
``analysis_flags.review_actions``, else from the last ``ReviewA`` / ``ReviewB`` / ``ReviewC`` trace
entry. A row whose matrix cannot be built (quirk Q17) raises :class:`Unbuildable`. The keys of the
pre-review items (quirk Q9) are read here too; the family module states the full rules.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any, TypeAlias

import msgspec

from aggregator.metrics.reads import Items, Obj, ok, section, truthy
from scorecards.normalize import UnknownPolarity, norm_polarity, norm_ref, norm_term

RATERS = ("A", "B", "C")
KEEP = "KEEP"


class Action(msgspec.Struct, gc=False):
    """One review action as read (any JSON value in each field; the matrix checks them, quirk Q17)."""

    actor: Any = None
    action_type: Any = None
    target_tuple_ids: Any = None
    new_value: Any = None


class PreItem(msgspec.Struct, gc=False):
    """One item of the pre-review tuple list (its key: :func:`pre_key`)."""

    aspect_ref: Any = None
    polarity: Any = None
    label: Any = None


class _TraceOutput(msgspec.Struct, gc=False):
    review_actions: Items[Action] = None


class _TraceEntry(msgspec.Struct, gc=False):
    agent: Any = None
    output: Obj[_TraceOutput] = None


_Trace: TypeAlias = Items[_TraceEntry]
_PreItemSection: TypeAlias = Obj[PreItem]
_TRACE = msgspec.json.Decoder(_Trace)
_PRE_ITEM = msgspec.json.Decoder(_PreItemSection)


class Unbuildable(Exception):
    """The action matrix of a row cannot be built (quirk Q17)."""


def _text_or_fail(value: Any) -> str:
    """ok(value) for a field the matrix builder reads as text; a truthy non-string fails (quirk Q17)."""
    if isinstance(value, str):
        return value.strip()
    if value:
        raise Unbuildable
    return ""


def label(action: Action) -> str:
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


def _review_actions(flags: Any) -> list[Action]:
    """``analysis_flags.review_actions``: a list of objects (an empty or falsy value: none)."""
    actions = flags.review_actions if flags is not None else None
    if not truthy(actions):
        return []
    if not isinstance(actions, list) or not all(isinstance(a, Action) for a in actions):
        raise Unbuildable
    return actions


@lru_cache(maxsize=64)
def _positional_ids(m: int) -> tuple[str, ...]:
    """``t0 … t(m−1)``."""
    return tuple(f"t{i}" for i in range(m))


def _tuple_ids(m: int, actions: list[Action]) -> dict[str, None]:
    ids = dict.fromkeys(_positional_ids(m))
    for action in actions:
        targets = action.target_tuple_ids
        if isinstance(targets, list):
            for target in targets:
                if not isinstance(target, str):
                    raise Unbuildable
                ids[target] = None
    return ids


def _by_actor(actions: list[Action]) -> dict[str, list[Any]]:
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
            found[agent[6:]] = [a for a in actions if isinstance(a, Action)] if isinstance(actions, list) else []
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


def pre_objects(pre: Any) -> list[Any]:
    """The object items of the pre-review list (raw items decoded), non-objects dropped."""
    if not isinstance(pre, list):
        return []
    items = [_PRE_ITEM.decode(i) if isinstance(i, msgspec.Raw) else i for i in pre]
    return [i for i in items if isinstance(i, PreItem)]


def _polarity(item: PreItem) -> str:
    value = item.polarity if item.polarity is not None and item.polarity != "" else item.label
    if not isinstance(value, str):
        return "neutral" if value is None else msgspec.json.encode(value).decode()
    try:
        return norm_polarity(value)[0]
    except UnknownPolarity:
        return value.strip().lower()


def pre_key(item: PreItem) -> tuple[str, str] | None:
    """(norm_term(norm_ref(aspect_ref)), polarity) of a pre-review item (quirk Q9); None when the ref is empty."""
    ref = item.aspect_ref
    key_ref = norm_term(norm_ref(ref)) if isinstance(ref, str) else ""
    return (key_ref, _polarity(item)) if key_ref else None
