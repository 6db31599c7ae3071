"""``--snapshot_eval_inputs`` and ``--log_tuple_sources`` (LEGACY.md section 10)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from aggregator.legacy.triptych import FINAL_LABELS, STAGE1_LABELS
from aggregator.legacy.values import lf_text

if TYPE_CHECKING:
    import polars as pl

LOG_COLUMNS = ("text_id", "stage1_tuple_source", "N_stage1", "final_tuple_source", "N_final", "gold_tuple_source",
               "N_gold")


def sliced(rows: pl.DataFrame, n: int) -> pl.DataFrame:
    """The first ``n`` rows as a Python slice takes them: ``n`` < 0 leaves out the last |n| (quirk L17)."""
    return rows[: max(rows.height + n, 0)] if n < 0 else rows.head(n)


def text_id_value(text: str, as_json: str | None) -> Any:
    """TID as its JSON value (a non-string TID stays a number, a list, ...)."""
    return text if as_json is None else json.loads(as_json)


def pair_objects(tuples_text: str) -> list[dict[str, str]]:
    """L(X): the refpol pairs of a stored tuple set, sorted as (ref, pol) tuples (quirk L19)."""
    pairs = sorted({(ref, pol) for ref, _, pol in json.loads(tuples_text) if ref})
    return [{"aspect_ref": ref, "polarity": pol} for ref, pol in pairs]


def snapshot(rows: pl.DataFrame, n: int, metrics: Mapping[str, object]) -> bytes:
    """The snapshot JSON (2-space indentation, no final newline); provenance values as in the metrics CSV."""
    chosen = sliced(rows, n).select("legacy_text_id", "legacy_text_id_json", "gold_tuples", "stage1_tuples",
                                    "final_tuples")
    samples = [
        {"text_id": text_id_value(text, as_json), "gold_tuples": pair_objects(gold),
         "stage1_tuples": pair_objects(stage1), "final_tuples": pair_objects(final)}
        for text, as_json, gold, stage1, final in chosen.iter_rows()
    ]
    document = {"eval_policy_hash": metrics["eval_policy_hash"], "eval_semver": metrics["eval_semver"],
                "sample_n": len(samples), "samples": samples}
    return json.dumps(document, indent=2, ensure_ascii=False).encode("utf-8")


def tuple_sources(rows: pl.DataFrame, n: int) -> bytes:
    """The tab-separated log (not W-csv: no quoting, LF, no final newline) of the first ``n`` rows (n ≤ 0: all)."""
    chosen = rows if n <= 0 else rows.head(n)
    lines = ["\t".join(LOG_COLUMNS)]
    for text, s1, n1, s2, n2, gold, n_gold in chosen.select(
        "legacy_text_id", "stage1_source", "n_s1", "final_source", "n_s2", "legacy_gold_source", "n_gold"
    ).iter_rows():
        lines.append("\t".join((text, STAGE1_LABELS[s1], str(n1), FINAL_LABELS[s2], str(n2), gold, str(n_gold))))
    return lf_text(lines)
