"""Per-sample counts: the state every metric is computed from.

:func:`sample_counts` turns one :class:`SampleRecord` into one row of integer counts
(tp/fp/fn per unit and stage, set sizes, ref statistics) plus identity and sources.
It runs inside the reader's worker processes, so only small tuples cross processes.
Rates, F1 and transitions are derived from these counts in :mod:`aggregator.run.per_sample`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

import msgspec

from aggregator.units.projection import UNITS, Counts, Pair, is_explicit, match_exact, ref_copies_term
from aggregator.units.taxonomy import is_valid_ref
from scorecards.record import FinalSource, SampleRecord, Stage1Source

if TYPE_CHECKING:
    from scorecards.tuples import EvalTuple, TupleSet

Kind = Literal["str", "label", "int", "bool", "float", "count"]
STAGES = ("s1", "s2")
BASIC_POLARITIES = frozenset({"positive", "negative", "neutral"})


@dataclass(frozen=True)
class Column:
    """One column of the per-sample table.

    ``kind`` "label" is a text from a small set (a source, a bucket, a code read from the
    row), held as a Polars Categorical: 4 bytes a row where a "str" takes 16 for its string
    view. With ``values`` the set is closed and the column is an Enum of them (1 byte a row;
    any other value is an error). ``kind`` "count" is a small non-negative integer held as
    UInt8 (1 byte a row; Int64 when a value does not fit): only its sums are safe to take in
    Polars, so a metric sums each such column on its own before any arithmetic.
    """

    name: str
    kind: Kind
    meaning: str
    nullable: bool = False
    values: tuple[str, ...] = ()


def _count_columns(prefix: str, what: str) -> list[Column]:
    return [
        Column(f"{prefix}_tp", "int", f"true positives of {what}"),
        Column(f"{prefix}_fp", "int", f"false positives of {what}"),
        Column(f"{prefix}_fn", "int", f"false negatives of {what}"),
    ]


COLUMNS: tuple[Column, ...] = (
    Column("run_id", "str", "run id (row, else meta, else run directory name)"),
    Column("sample_key", "str", "sample key (meta.text_id, meta.uid, meta.case_id, runtime.uid)"),
    Column("split", "str", "meta.split (blank when absent); a sample is (run_id, split, sample_key)"),
    Column("profile", "label", "profile of the row (profile, else meta.profile)", nullable=True),
    Column("has_gold", "bool", "the gold set is non-empty"),
    Column("n_gold", "int", "|G|: gold EvalTuples after dedup"),
    Column("n_gold_explicit", "int", "gold tuples with a non-empty surface key (explicit)"),
    Column("n_gold_implicit", "int", "gold tuples with an empty surface key (implicit)"),
    Column("n_s1", "int", "|S1|: stage-1 EvalTuples"),
    Column("n_s2", "int", "|S2|: final EvalTuples"),
    Column("stage1_source", "label", "where S1 was read from", values=get_args(Stage1Source)),
    Column("final_source", "label", "where S2 was read from", values=get_args(FinalSource)),
    Column("changed", "bool", "S1 != S2 as EvalTuple sets"),
    *(
        column
        for unit in UNITS
        for stage in STAGES
        for column in _count_columns(f"{unit}_{stage}", f"{stage.upper()} against gold under {unit}")
    ),
    *_count_columns("refpol_explicit_s2", "S2 against explicit gold under refpol"),
    *_count_columns("otepol_explicit_s2", "explicit S2 against explicit gold under otepol"),
    Column("implicit_eligible", "bool", "gold has an implicit tuple with a basic polarity"),
    *_count_columns("implicit_polarity", "S2 polarities against implicit gold polarities"),
    Column("s1_ref_filled", "int", "S1 tuples with a non-empty ref"),
    Column("s1_ref_valid", "int", "S1 tuples whose ref is in the taxonomy"),
    Column("s1_ref_copies_term", "int", "S1 tuples whose non-empty ref is a copy of their own term"),
    Column("s2_ref_filled", "int", "S2 tuples with a non-empty ref"),
    Column("s2_ref_valid", "int", "S2 tuples whose ref is in the taxonomy"),
    Column("s2_ref_copies_term", "int", "S2 tuples whose non-empty ref is a copy of their own term"),
    Column("s2_term_empty", "int", "S2 tuples with an empty surface key (implicit)"),
    Column("invalid_ref_count", "int", "meta.invalid_ref_count (integer, else 0)"),
    Column("invalid_language_count", "int", "meta.invalid_language_count (integer, else 0)"),
    Column("invalid_target_count", "int", "meta.invalid_target_count (integer, else 0)"),
    Column("polarity_defaulted", "int", "tuple items whose missing polarity became neutral"),
    Column("input_text", "str", "meta.input_text, the sentence (a string, else empty)"),
    Column("gold_tuples", "str", "gold EvalTuples as sorted JSON [ref, term, polarity] triples"),
    Column("stage1_tuples", "str", "stage-1 EvalTuples as sorted JSON triples"),
    Column("final_tuples", "str", "final EvalTuples as sorted JSON triples"),
)
COLUMN_NAMES: tuple[str, ...] = tuple(c.name for c in COLUMNS)


def input_text(record: SampleRecord) -> str:
    """``meta.input_text`` of the record's row when it is a string, else ``""``."""
    text = getattr(getattr(record.row, "meta", None), "input_text", None)
    return text if isinstance(text, str) else ""


def tuples_text(tuples: TupleSet) -> str:
    """Canonical text of a tuple set: JSON array of ``[ref, term, polarity]``, sorted."""
    return msgspec.json.encode(sorted(tuples)).decode()


def _explicit(tuples: TupleSet) -> frozenset[EvalTuple]:
    return frozenset(filter(is_explicit, tuples))


def _explicit_pairs(surface: frozenset[Pair]) -> frozenset[Pair]:
    """The surface pairs of a set's explicit tuples: ``surface_units(_explicit(tuples))`` is the set's
    surface pairs with a non-empty key. No implicit gold pair is left, so :func:`match_surface` of
    two such sets is :func:`match_exact`."""
    return frozenset(pair for pair in surface if pair[0])


def _implicit_polarity(gold_surface: frozenset[Pair], final: TupleSet) -> tuple[bool, Counts]:
    """Polarity matching of the implicit gold tuples (surface key ``""``, read off the gold's surface pairs)."""
    gold_polarities = {polarity for key, polarity in gold_surface if not key and polarity in BASIC_POLARITIES}
    if not gold_polarities:
        return False, Counts(0, 0, 0)
    pred_polarities = {t.polarity for t in final if t.polarity in BASIC_POLARITIES}
    tp = len(gold_polarities & pred_polarities)
    return True, Counts(tp, len(pred_polarities) - tp, len(gold_polarities) - tp)


def _ref_stats(tuples: TupleSet) -> tuple[int, int, int]:
    filled = [t for t in tuples if t.aspect_ref]
    return (len(filled), sum(is_valid_ref(t.aspect_ref) for t in filled),
            sum(ref_copies_term(t.aspect_ref, t.aspect_term) for t in filled))


UnitPairs = dict[str, tuple[frozenset[Pair], frozenset[Pair], frozenset[Pair]]]
"""Each unit's projected pairs of a sample: ``{unit: (gold, stage 1, final)}``."""


def sample_counts(record: SampleRecord) -> tuple[object, ...]:
    """One per-sample row, in :data:`COLUMNS` order."""
    return counts_and_pairs(record)[0]


def counts_and_pairs(record: SampleRecord) -> tuple[tuple[object, ...], UnitPairs]:
    """:func:`sample_counts` and the projections it counted, which the families read instead of
    projecting the tuples again (:attr:`~aggregator.metrics.family.RowInput.pairs`)."""
    gold, s1, s2 = record.gold, record.stage1, record.final
    gold_explicit, s2_explicit = _explicit(gold), _explicit(s2)
    row: list[object] = [
        record.run_id,
        record.sample_key,
        record.split,
        record.profile,
        bool(gold),
        len(gold),
        len(gold_explicit),
        len(gold) - len(gold_explicit),
        len(s1),
        len(s2),
        record.stage1_source,
        record.final_source,
        s1 != s2,
    ]
    pairs: UnitPairs = {}
    for name, unit in UNITS.items():
        gold_pairs, first, final = unit.project(gold), unit.project(s1), unit.project(s2)
        pairs[name] = gold_pairs, first, final
        row.extend(unit.match(first, gold_pairs))
        row.extend(unit.match(final, gold_pairs))
    row.extend(match_exact(pairs["refpol"][2], UNITS["refpol"].project(gold_explicit)))
    surface_gold, _, surface_final = pairs["otepol"]
    row.extend(match_exact(_explicit_pairs(surface_final), _explicit_pairs(surface_gold)))
    eligible, implicit = _implicit_polarity(surface_gold, s2)
    row.append(eligible)
    row.extend(implicit)
    row.extend(_ref_stats(s1))
    row.extend(_ref_stats(s2))
    row.append(len(s2) - len(s2_explicit))
    row.extend(
        (
            record.invalid_ref_count,
            record.invalid_language_count,
            record.invalid_target_count,
            record.polarity_defaulted,
            input_text(record),
            tuples_text(gold),
            tuples_text(s1),
            tuples_text(s2),
        )
    )
    return tuple(row), pairs
