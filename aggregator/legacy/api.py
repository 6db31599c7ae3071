"""The four functions research code imports from the research script (LEGACY.md section 12).

Each takes one dict shaped like a scorecard row (``make_scorecard`` passes
``{"runtime": {"parsed_output": <pipeline output>}}``) and reads it with the project's one
reader, as ``aggregate`` reads a scorecard line, but leniently, as the script did: no sample key
is needed, an unknown polarity reads as ``neutral``, missing sections count as absent. They are
pure (the record is encoded, never changed) and deterministic. A shape the script could not read
either (e.g. a number where an object is dereferenced) raises an ``Exception``.

The risk functions compute S1R / S2R (DIAGNOSTICS.md) from the validator blocks, the final
tuples and the grounding signals; they never read the record's own ``stage1_structural_risk`` /
``stage2_structural_risk`` fields, which the scorecard writer is about to set from them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import msgspec

from aggregator.run.sample_values import SampleEvaluator, columns_for, decoder_for
from scorecards.chunks import decode_row
from scorecards.record import SampleRecord, to_record

if TYPE_CHECKING:
    from scorecards.tuples import TupleSet

FAMILIES = ("validator",)
"""The families S1R and S2R need (validator, with the grounding, conflict and stage-change values it reads)."""
GIVEN_RISKS = ("stage1_structural_risk", "stage2_structural_risk")
Tuples = set[tuple[str, str, str]]


def _read(record: Mapping[str, Any]) -> SampleRecord:
    """The record read as a scorecard row (its given risk flags left out), leniently."""
    shown = {key: value for key, value in record.items() if key not in GIVEN_RISKS}
    line = msgspec.json.encode(shown, enc_hook=str)
    return to_record(decode_row(line, decoder_for(FAMILIES)), 0, "", lenient=True)


def _plain(tuples: TupleSet) -> Tuples:
    """Plain 3-tuples of strings, as the script returned them."""
    return {(t.aspect_ref, t.aspect_term, t.polarity) for t in tuples}


def _values(record: Mapping[str, Any]) -> dict[str, Any]:
    read = _read(record)
    names = (column.name for column in columns_for(FAMILIES))
    return dict(zip(names, SampleEvaluator(FAMILIES)(read)))


def _extract_stage1_tuples(record: Mapping[str, Any]) -> Tuples:
    """S1 as a set of ``(aspect_ref, aspect_term, polarity)`` strings: ``stage1_tuples`` (reader B),
    else the stage-1 ATSA process-trace entry, else the final set."""
    return _plain(_read(record).stage1)


def _extract_final_tuples(record: Mapping[str, Any]) -> Tuples:
    """S2 as a set of ``(aspect_ref, aspect_term, polarity)`` strings: ``final_tuples``, else
    ``final_aspects``, else ``inputs.aspect_sentiments``."""
    return _plain(_read(record).final)


def has_stage1_structural_risk(record: Mapping[str, Any]) -> bool:
    """The computed S1R: r1 > 0, a polarity conflict, nc1 > 0, AF ≥ 2 or RQ1 = explicit_failure."""
    return bool(_values(record)["stage1_risk"])


def has_stage2_structural_risk(record: Mapping[str, Any]) -> bool:
    """The computed S2R: r2 > 0 or nc2 > 0."""
    return bool(_values(record)["stage2_risk"])
