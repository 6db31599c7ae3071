"""Sentences of any format as scorecard rows, so that ``aggregate RUN`` (per-sample table, reports,
compare) runs on them.

One row per sentence (gold order, then predicted sentences unknown to gold): ``meta.text_id``
is the pairing key, ``gold_tuples`` the gold, ``final_tuples`` the prediction (stage 1 falls
back to it). Each tuple becomes ``{aspect_ref, aspect_term, polarity}`` where ``aspect_ref``
names the format's scorecard unit without its polarity: the category for (category,
polarity) pairs, else ``<format>#<JSON of the unit's other values>``. So per sample, the
GoldUnit (Ref-F1) counts of the converted run are the sound counts of that unit, and its
``tuple_f1_s2_refpol_micro`` the sound micro F1 over the sentences with gold.
``aspect_term`` is the aspect's words (empty when implicit), for the surface unit and reports.

The converted run's taxonomy (:func:`run_taxonomy`, written as ``taxonomy.json`` beside the
scorecards, which ``aggregate RUN`` reads) holds the refs the dataset can take: for a format whose
refs are its categories, the categories of the gold; for the others, whose refs are keys of the
format's unit, every key in the gold and the predictions. So ``ref_unmeasurable`` (which asks
whether predicted refs are taxonomy keys) does not fire on a converted run. The run is named
after the dataset (:func:`dataset_name`).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aggregator.formats.model import CharSpan, Element, Implicit, TokenSpan, Words, field_json

if TYPE_CHECKING:
    from aggregator.formats.pairing import Pair
    from aggregator.formats.registry import FormatSpec

SCORECARD_POLARITY = {"conflict": "mixed"}
GENERIC_STEMS = frozenset({"gold", "golds", "test", "dev", "valid", "validation", "train", "pred", "preds",
                           "prediction", "predictions", "data"})
"""File names that say a file's role or split, not its dataset: the folder's name is put before them."""


def dataset_name(gold: Path) -> str:
    """The run id of a converted run: the gold file's name without its extensions (the dataset), after
    its folder's name when that name is only a role or split (:data:`GENERIC_STEMS`): ``rest16_test.tsv``
    -> ``rest16_test``, ``rest16/test.tsv`` -> ``rest16_test``."""
    stem = gold.name.split(".", 1)[0] or gold.name
    folder = gold.resolve().parent.name
    return f"{folder}_{stem}" if stem.lower() in GENERIC_STEMS and folder else stem


def _refs_are_categories(spec: FormatSpec) -> bool:
    unit = next(u for u in spec.units if u.name == spec.scorecard_unit)
    return tuple(f for f in unit.fields if f != "sentiment") == ("category",)


def run_taxonomy(spec: FormatSpec, rows: Sequence[dict[str, Any]], gold: Path, pred: Path) -> dict[str, Any] | None:
    """The converted run's taxonomy ``{"name", "refs"}`` (module doc); None when no tuple has a ref."""

    def refs(key: str) -> set[str]:
        return {item["aspect_ref"] for row in rows for item in key_items(row, key) if item["aspect_ref"]}

    if _refs_are_categories(spec):
        found, name = refs("gold"), f"{spec.name}: the categories of {gold.name}"
    else:
        found, name = refs("gold") | refs("final"), f"{spec.name}: the unit keys of {gold.name} and {pred.name}"
    return {"name": name, "refs": sorted(found)} if found else None


def key_items(row: dict[str, Any], key: str) -> list[dict[str, Any]]:
    """The gold (``key`` gold) or final tuples of a converted row."""
    if key == "gold":
        return row["gold_tuples"]  # type: ignore[no-any-return]
    return row["runtime"]["parsed_output"]["final_result"]["final_tuples"]  # type: ignore[no-any-return]


def aspect_words(aspect: Element | None, text: str) -> str | None:
    """The aspect's surface text in its sentence ("" when implicit, None when the format has no aspect)."""
    if aspect is None or isinstance(aspect, Implicit):
        return None if aspect is None else ""
    if isinstance(aspect, Words):
        return aspect.text
    if isinstance(aspect, CharSpan):
        return text[aspect.start: aspect.end]
    tokens = text.split()
    indices = range(aspect.start, aspect.end) if isinstance(aspect, TokenSpan) else aspect.indices
    return " ".join(tokens[i] for i in indices if 0 <= i < len(tokens))


def _items(spec: FormatSpec, sentence: Any) -> list[dict[str, Any]]:
    if sentence is None:
        return []
    unit = next(u for u in spec.units if u.name == spec.scorecard_unit)
    others = tuple(f for f in unit.fields if f != "sentiment")
    items: dict[tuple[object, ...], dict[str, Any]] = {}
    for item in sentence.tuples:
        key = unit.project((item,))
        if not key:
            continue
        values = dict(zip(unit.fields, next(iter(key))))
        if others == ("category",):
            ref = str(values["category"])
        else:
            shown = [field_json(v) for f, v in values.items() if f in others]
            ref = f"{spec.name}#" + json.dumps(shown, ensure_ascii=False, separators=(",", ":"))
        polarity = str(values["sentiment"])
        row = {"aspect_ref": ref, "polarity": SCORECARD_POLARITY.get(polarity, polarity)}
        surface = aspect_words(item.aspect, sentence.text)
        if surface is not None:
            row["aspect_term"] = surface
        items.setdefault((ref, polarity), row)
    return list(items.values())


def scorecard_rows(spec: FormatSpec, pairs: list[Pair[Any]], run_id: str) -> Iterator[dict[str, Any]]:
    """One scorecard row per paired sentence."""
    for pair in pairs:
        sentence = pair.gold or pair.pred
        yield {
            "run_id": run_id,
            "meta": {"text_id": pair.key, "source_format": spec.name},
            "inputs": {"text": sentence.text if sentence else ""},
            "gold_tuples": _items(spec, pair.gold),
            "runtime": {"parsed_output": {"final_result": {"final_tuples": _items(spec, pair.pred)}}},
        }
