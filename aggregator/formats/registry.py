"""Each format once: its reader, its units (the main ones named for ``--json``), how its sentences pair, its scorers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from aggregator.formats import acos, asqp, aste, nikluge, semeval
from aggregator.formats.official import acos as official_acos
from aggregator.formats.official import asqp as official_asqp
from aggregator.formats.official import aste as official_aste
from aggregator.formats.official import gas, semeval14
from aggregator.formats.official import nikluge as official_nikluge
from aggregator.formats.units import Unit, subsets, unit

if TYPE_CHECKING:
    from aggregator.formats.model import Sentence
    from aggregator.formats.official.base import Scorer


@dataclass(frozen=True)
class FormatSpec:
    """A format: ``main`` maps the ``--json`` keys to unit names; ``scorecard_unit`` is the unit whose
    values become scorecard refs (``aggregate convert``); ``scorers[0]`` is the official scorer."""

    name: str
    title: str
    read: Callable[[Path], list[Sentence[Any]]]
    units: tuple[Unit, ...]
    main: dict[str, str]
    scorecard_unit: str
    keyed_by: str
    tuple_word: str
    merge_same_key: bool = False
    breakdowns: bool = False
    scorers: tuple[Scorer, ...] = ()

    def scorer(self, name: str) -> Scorer | None:
        """The scorer named ``name`` (or one of its aliases); None when the format has none."""
        for scorer in self.scorers:
            if name in (scorer.name, *scorer.aliases):
                return scorer
        return None

    def scorer_names(self) -> list[str]:
        return [name for s in self.scorers for name in (s.name, *s.aliases)]


QUAD_UNITS = official_acos.UNITS
QUAD = {"quad": "category sentiment aspect opinion"}

FORMATS: dict[str, FormatSpec] = {
    spec.name: spec
    for spec in (
        FormatSpec("nikluge", "NIKLuge 2022 JSONL", nikluge.read, subsets("category", "sentiment", complete=True),
                   {"category": "category", "pipeline": "category sentiment"}, "category sentiment", "id",
                   "annotations",
                   scorers=(official_nikluge.OFFICIAL, official_nikluge.PRE_FIX)),
        FormatSpec("aste", "ASTE-Data-V2 lines", aste.read, subsets("sentiment", "aspect", "opinion", complete=True),
                   {"triplet": "sentiment aspect opinion"}, "sentiment aspect opinion", "line", "triplets",
                   scorers=(official_aste.SPAN_ASTE, official_aste.GTS, gas.RAW, gas.FIXED)),
        FormatSpec("asqp", "ASQP / ABSA-QUAD lines", asqp.read, QUAD_UNITS, QUAD, QUAD["quad"], "line", "quads",
                   scorers=(official_asqp.OFFICIAL, official_asqp.TUPLE_LEVEL)),
        FormatSpec("acos", "ACOS tsv", acos.read, QUAD_UNITS, QUAD, QUAD["quad"], "text", "quads", merge_same_key=True,
                   breakdowns=True, scorers=(official_acos.OFFICIAL,)),
        FormatSpec("semeval14", "SemEval-2014 Task 4 XML", partial(semeval.read, edition="2014"),
                   (unit("aspect"), unit("sentiment", "aspect"), unit("category"), unit("category", "sentiment")),
                   {"aspect": "aspect", "category": "category"}, "sentiment aspect", "id", "annotations",
                   scorers=(semeval14.OFFICIAL,)),
        FormatSpec("semeval16", "SemEval-2016 Task 5 XML", partial(semeval.read, edition="2016"),
                   (unit("category"), unit("aspect", explicit_only=True), unit("category", "aspect"),
                    unit("category", "sentiment"), unit("category", "sentiment", "aspect")),
                   {u: u for u in ("category", "aspect", "category aspect", "category sentiment",
                                   "category sentiment aspect")},
                   "category sentiment aspect", "id", "opinions"),
    )
}
