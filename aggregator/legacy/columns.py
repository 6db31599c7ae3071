"""The per-sample columns of the research script's files (opt-in family ``legacy``, LEGACY.md).

Computed in the same single pass as every family (its fields are merged into the one row
decoder), from the core's tuple sets and the values of the families it requires; put in force
only by ``aggregate legacy`` (:data:`aggregator.metrics.families.OPT_IN`): a plain run neither
decodes nor holds them. It declares no metric. Per sample:

- identities (quirk L8): ``legacy_text_id`` = TID as text (S(x)), ``legacy_text_id_json`` its JSON
  value when it is not a string; ``legacy_uid``; ``legacy_run_id`` = LRID; ``legacy_gold_source``
  = the G label (quirk L7);
- pairs (quirk L19): ``legacy_{gold,stage1,final}_pairs`` = PS(X); ``legacy_gold_ref_pairs`` =
  |RP(G)|; ``legacy_new_correct`` = |(RP(G) ∩ RP(S2)) − RP(S1)|;
- the triptych's raw fields: ``legacy_text`` (column 73), ``legacy_evidence`` (d2),
  ``legacy_ate_hallucination`` (the stage-1 flag of column 50, quirk L5),
  ``legacy_s{1,2}_risk_ids`` (the **last** block of a stage, quirk L12), ``legacy_moderator_rules``,
  ``legacy_stage2_adopted_no_change``, ``legacy_sd_changed_raw`` (``stage_delta.changed`` as V,
  quirk L16), the memory fields (columns 62, 65–69), ``legacy_risk_details`` (the row's line of
  ``triptych_risk_details.jsonl``);
- the stage summary's per-row counts (:mod:`aggregator.legacy.stage_lists`),
  ``legacy_skip_review`` and ``legacy_parse_fail`` (DIAGNOSTICS.md family 5 on every row).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeAlias

import msgspec

from aggregator.legacy.fields import Fields
from aggregator.legacy.stage_lists import STAGE_LISTS, STATS, stage_raw_lists, stage_stats
from aggregator.legacy.values import json_line, python_text
from aggregator.metrics.family import Family, RowInput
from aggregator.metrics.implicit_validity import parse_fail
from aggregator.metrics.memory import memory_of
from aggregator.metrics.reads import Obj, as_int, first_truthy, objects, raw_truthy, section, truthy
from aggregator.metrics.stage_change import stage_delta
from aggregator.units.projection import gold_units
from aggregator.units.sample_counts import Column, Kind

if TYPE_CHECKING:
    from aggregator.metrics.registry import Registry
    from scorecards.tuples import TupleSet

GOLD_SOURCES = ("", "inputs.gold_tuples", "gold_tuples", "gold_triplets")
RISK_IDS_SHOWN, RULES_SHOWN, MEMORY_IDS_SHOWN, DROP_REASONS_SHOWN, EVIDENCE_CHARS = 5, 5, 3, 10, 200
_STAGE_KINDS: dict[str, Kind] = {"items": "int", "null_term": "int", "null_ref": "int", "invalid_polarity": "int",
                "x_basic": "bool", "x_conflict": "bool"}
_ANY = msgspec.json.Decoder()

COLUMNS = (
    Column("legacy_text_id", "str", "TID: meta.text_id, else meta.case_id, else top-level text_id (first truthy), as text"),
    Column("legacy_text_id_json", "str", "TID as JSON when it is not a string", nullable=True),
    Column("legacy_uid", "str", "meta.uid when truthy, as text"),
    Column("legacy_run_id", "str", "LRID: meta.run_id, else top-level run_id (first truthy)"),
    Column("legacy_gold_source", "label", "G label: where the gold came from, as the research script names it",
           values=GOLD_SOURCES),
    Column("legacy_gold_pairs", "str", "PS(G): the ref|pol pairs of gold, sorted as strings, joined by ;"),
    Column("legacy_stage1_pairs", "str", "PS(S1)"),
    Column("legacy_final_pairs", "str", "PS(S2)"),
    Column("legacy_gold_ref_pairs", "int", "|RP(G)|: refpol pairs of gold"),
    Column("legacy_new_correct", "int", "|(RP(G) ∩ RP(S2)) − RP(S1)|: gold pairs the final output gained"),
    Column("legacy_text", "str", "inputs.text, else meta.input_text; stripped, LF and TAB inside made spaces"),
    Column("legacy_evidence", "str", "atsa (else atsa_score) .evidence as text, first 200 characters"),
    Column("legacy_ate_hallucination", "bool", "ate.hallucination_flag is true, or an ate_debug item was dropped"),
    Column("legacy_s1_risk_ids", "str", "risk ids of the last stage1 validator block, joined by ;"),
    Column("legacy_s2_risk_ids", "str", "risk ids of the last stage2 validator block, joined by ;"),
    Column("legacy_moderator_rules", "str", "the first 5 moderator.applied_rules, joined by ,"),
    Column("legacy_stage2_adopted_no_change", "bool", "stage_delta.stage2_adopted_but_no_change is truthy"),
    Column("legacy_sd_changed_raw", "str", "stage_delta.changed as written (V; empty when missing or null)"),
    Column("legacy_memory_exposed", "bool", "MEM.exposed_to_debate is truthy"),
    Column("legacy_memory_chars", "int", "integer of MEM.prompt_injection_chars"),
    Column("legacy_memory_ids", "str", "the first 3 MEM.retrieved_ids, joined by ;"),
    Column("legacy_memory_blocked_episode_n", "int", "integer of MEM.memory_blocked_episode_n"),
    Column("legacy_memory_blocked_advisory_n", "int", "integer of MEM.memory_blocked_advisory_n"),
    Column("legacy_memory_block_reason", "str", "MEM.memory_block_reason when it is a string"),
    Column("legacy_risk_details", "str", "the row's line of triptych_risk_details.jsonl"),
    *(Column(f"legacy_{stage}_{stat}", _STAGE_KINDS[stat], f"stage summary, {stage} list: {stat.replace('_', ' ')}")
      for stage in STAGE_LISTS for stat in STATS),
    Column("legacy_skip_review", "bool", "runtime.parsed_output.analysis_flags.skip_review_flag is truthy"),
    Column("legacy_parse_fail", "bool", "DIAGNOSTICS.md family 5 parse_fail (on every row)"),
)


def pair_string(tuples: TupleSet) -> str:
    """PS(X): ``ref|pol`` of the refpol pairs, sorted as strings, joined by ``;``."""
    return ";".join(sorted(f"{ref}|{pol}" for ref, pol in gold_units(tuples)))


def _prefix(value: Any, n: int) -> list[Any]:
    """``value[:n]`` for a list or a string (the script slices either), else nothing."""
    return list(value[:n]) if isinstance(value, (list, str)) else []


def _gold_source(row: Any, has_gold: bool) -> str:
    if not has_gold:
        return ""
    inputs = row.inputs
    if inputs is not None and inputs.gold_tuples:
        return "inputs.gold_tuples"
    return "gold_tuples" if row.gold_tuples else "gold_triplets"


def _text(row: Any) -> str:
    inputs, meta = row.inputs, row.meta
    found = first_truthy(inputs.text if inputs is not None else None, meta.input_text if meta is not None else None)
    text = python_text(found).strip() if found is not None else ""
    return text.replace("\n", " ").replace("\t", " ")


class _Evidence(msgspec.Struct, gc=False):
    evidence: Any = None


_EvidenceSection: TypeAlias = Obj[_Evidence]
_EVIDENCE = msgspec.json.Decoder(_EvidenceSection)


def _evidence(row: Any) -> str:
    """``atsa`` (else ``atsa_score``) ``.evidence`` as text, its first 200 characters (``""`` when falsy)."""
    chosen = row.atsa if raw_truthy(row.atsa) else row.atsa_score if raw_truthy(row.atsa_score) else None
    found = section(_EVIDENCE.decode(chosen)) if chosen is not None else None
    evidence = found.evidence if found is not None else None
    return python_text(evidence)[:EVIDENCE_CHARS] if evidence else ""


def _risk_ids(block: dict[str, Any] | None) -> list[str]:
    risks = block.get("structural_risks") if block is not None else None
    if not risks or not isinstance(risks, list):
        return []
    ids = []
    for risk in risks:
        given = risk.get("risk_id") if isinstance(risk, dict) else None
        ids.append((python_text(given).strip() if given else "") or "UNKNOWN")
    return ids


def _validator(row: Any) -> tuple[list[str], list[str], list[dict[str, Any]]]:
    """Risk ids of the last stage1 and stage2 blocks, and every block as ``validator_raw`` shows it."""
    value = _ANY.decode(row.validator) if row.validator else None
    blocks = [b for b in value if isinstance(b, dict)] if isinstance(value, list) else []
    last: dict[str, dict[str, Any]] = {}
    for block in blocks:
        stage = block.get("stage")
        if isinstance(stage, str):
            last[stage.lower()] = block
    raw = [{"stage": b.get("stage"), "structural_risks": b.get("structural_risks") or []} for b in blocks]
    return _risk_ids(last.get("stage1")), _risk_ids(last.get("stage2")), raw


def _override_stats(row: Any) -> Any:
    """OV copied verbatim: ``debate.override_stats``, else ``meta.debate_override_stats``; ``{}`` when not an object."""
    debate, meta = section(row.debate), row.meta
    for raw in (debate.override_stats if debate is not None else b"",
                meta.debate_override_stats if meta is not None else b""):
        if raw_truthy(raw):
            found = _ANY.decode(raw)
            return found if isinstance(found, dict) else {}
    return {}


def _filtered(row: Any) -> list[Any]:
    inputs = row.inputs
    debug = section(inputs.ate_debug) if inputs is not None else None
    return objects(debug.filtered) if debug is not None else []


def _text_id(row: Any) -> Any:
    meta = row.meta
    return first_truthy(meta.text_id if meta is not None else None, meta.case_id if meta is not None else None,
                        row.text_id)


def _run_id(row: Any) -> str:
    meta = row.meta
    return first_truthy(meta.run_id if meta is not None else None, row.run_id) or ""


def _memory(row: Any) -> tuple[bool, int, str, int, int, str]:
    mem = memory_of(row)
    if mem is None:
        return False, 0, "", 0, 0, ""
    ids = ";".join(map(python_text, _prefix(mem.retrieved_ids, MEMORY_IDS_SHOWN))) if mem.retrieved_ids else ""
    reason = mem.memory_block_reason
    return (truthy(mem.exposed_to_debate), as_int(mem.prompt_injection_chars), ids, as_int(mem.memory_blocked_episode_n),
            as_int(mem.memory_blocked_advisory_n), reason if isinstance(reason, str) else "")


def row(inp: RowInput) -> tuple[object, ...]:
    data, record, values = inp.row, inp.record, inp.values
    text_id = _text_id(data)
    s1_ids, s2_ids, blocks = _validator(data)
    filtered = _filtered(data)
    drops = [f.drop_reason for f in filtered if f.action == "drop"]
    details = json_line({"text_id": text_id if text_id is not None else "", "validator_s1_risk_ids": s1_ids,
                         "validator_s2_risk_ids": s2_ids, "validator_raw": blocks,
                         "debate_override_stats": _override_stats(data),
                         "ate_debug_filtered_drop_reasons_top10": drops[:DROP_REASONS_SHOWN]})
    ate = section(data.ate)
    moderator = section(data.moderator)
    rules = _prefix(moderator.applied_rules if moderator is not None and moderator.applied_rules else None, RULES_SHOWN)
    sd = stage_delta(data)
    said = sd.changed if sd is not None else None
    gold, s1, s2 = gold_units(record.gold), gold_units(record.stage1), gold_units(record.final)
    runtime = data.runtime
    parsed = section(runtime.parsed_output) if runtime is not None else None
    fr = parsed.final_result if parsed is not None else None
    flags = section(parsed.analysis_flags) if parsed is not None else None
    stats = [v for raw in stage_raw_lists(fr) for v in stage_stats(raw)]
    parsed_fail = values["implicit_parse_fail"] if values["implicit_eligible"] else parse_fail(inp)
    return (
        python_text(text_id) if text_id is not None else "",
        None if text_id is None or isinstance(text_id, str) else json_line(text_id),
        python_text(data.meta.uid) if data.meta is not None and data.meta.uid else "",
        _run_id(data),
        _gold_source(data, bool(record.gold)),
        pair_string(record.gold), pair_string(record.stage1), pair_string(record.final),
        len(gold), len((gold & s2) - s1),
        _text(data),
        _evidence(data),
        (ate is not None and ate.hallucination_flag is True) or bool(drops),
        ";".join(s1_ids), ";".join(s2_ids),
        ",".join(python_text(rule).strip() for rule in rules),
        sd is not None and truthy(sd.stage2_adopted_but_no_change),
        python_text(said) if said is not None else "",
        *_memory(data),
        details,
        *stats,
        flags is not None and truthy(flags.skip_review_flag),
        parsed_fail,
    )


def _declare(reg: Registry) -> None:
    """No metric: the columns serve the legacy files only."""


FAMILY = Family(
    name="legacy",
    title="Research script files",
    source="LEGACY.md",
    columns=COLUMNS,
    row=row,
    declare=_declare,
    fields=Fields,
    requires=("stage_change", "memory", "grounding", "implicit_validity", "validator", "override", "debate", "review"),
)
