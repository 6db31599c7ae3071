"""What each shared case's ``expected.json`` (the official scorers' printed numbers) says, as checks on
``aggregate score --json``: (compat, label, expected value, where to read it in the payload)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

Check = tuple[str, str, Any, Callable[[dict[str, Any]], Any]]
FORMAT = {"nikluge_sa_2022": "nikluge", "aste": "aste", "asqp": "asqp", "acos": "acos"}
FILES = {"nikluge": "jsonl", "aste": "txt", "asqp": "txt", "acos": "tsv"}
PRF = (("precision", "precision"), ("recall", "recall"), ("f1", "f1"))


def case_files(case: Path) -> tuple[Path, Path, str]:
    fmt = FORMAT[case.parent.name]
    return case / f"gold.{FILES[fmt]}", case / f"pred.{FILES[fmt]}", fmt


def _official(key: str | None, name: str) -> Callable[[dict[str, Any]], Any]:
    return lambda p: (p["official"] if key is None else p["official"][key])[name]


def _tally(name: str) -> Callable[[dict[str, Any]], Any]:
    """tp, tp + fp (predictions) or tp + fn (gold) of the main unit's official row."""
    def read(p: dict[str, Any]) -> Any:
        row = next(r for r in p["units"]["official"] if r["breakdown"] == "all" and r["unit"] in MAIN_UNITS)
        return {"tp": row["tp"], "pred": row["tp"] + row["fp"], "gold": row["tp"] + row["fn"]}[name]
    return read


MAIN_UNITS = ("sentiment aspect opinion", "category sentiment aspect opinion")


def _crash_or_prf(compat: str, label: str, block: Any) -> Iterator[Check]:
    if not isinstance(block, dict) or "precision" not in block:
        yield compat, f"{label} crashes", True, lambda p: p["official"] is None and bool(p["official_crash"])
        return
    for theirs, ours in PRF:
        yield compat, f"{label} {theirs}", block[theirs], _official(None, ours)
    for theirs, ours in (("n_gold", "gold"), ("n_pred", "pred"), ("n_tp", "tp"), ("n_correct", "tp")):
        if theirs in block:
            yield compat, f"{label} {theirs}", block[theirs], _tally(ours)


def _nikluge(expected: dict[str, Any]) -> Iterator[Check]:
    for compat in ("official", "pre_fix_2022_10"):
        result = expected[compat]["result"]
        for theirs, ours in (("category extraction result", "category"), ("entire pipeline result", "pipeline")):
            for name in ("Precision", "Recall", "F1"):
                yield compat, f"{compat} {ours} {name}", result[theirs][name], _official(ours, name.lower())


def _aste(expected: dict[str, Any]) -> Iterator[Check]:
    yield from _crash_or_prf("official", "Span-ASTE", expected["official"])
    yield from _crash_or_prf("gts_score_uniontags", "GTS", expected["gts_score_uniontags"])
    gas = expected["gas_compute_scores_extraction"]
    yield from _crash_or_prf("gas_compute_scores_extraction", "GAS raw", gas["raw"])
    yield from _crash_or_prf("fixed_editdistance", "GAS fixed", gas.get("fixed_editdistance"))


def _asqp(expected: dict[str, Any]) -> Iterator[Check]:
    yield from _crash_or_prf("official", "ABSA-QUAD", expected["official"])
    yield from _crash_or_prf("tuple_level_compute_f1_scores", "tuple level", expected["tuple_level_compute_f1_scores"])


def _acos_row(unit: str, kind: str, name: str) -> Callable[[dict[str, Any]], Any]:
    return lambda p: next(r for r in p["units"]["official"] if (r["unit"], r["breakdown"]) == (unit, kind))[name]


def _acos(expected: dict[str, Any]) -> Iterator[Check]:
    names = (("precision", "precision"), ("recall", "recall"), ("micro-F1", "f1"),
             ("tp", "tp"), ("fp", "fp"), ("fn", "fn"))
    for theirs, ours in names[:3]:
        yield "official", f"quad {theirs}", expected["official"][theirs], _official(None, ours)
    for unit, kinds in expected["subtasks"].items():
        for kind, block in kinds.items():
            for theirs, ours in names:
                yield "official", f"{unit} {kind} {theirs}", block[theirs], _acos_row(unit, kind, ours)


CHECKS = {"nikluge": _nikluge, "aste": _aste, "asqp": _asqp, "acos": _acos}


def checks(fmt: str, expected: dict[str, Any]) -> list[Check]:
    return list(CHECKS[fmt](expected))
