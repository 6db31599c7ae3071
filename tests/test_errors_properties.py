"""Error anatomy, properties: classes add up to the unit's counts, a set against itself is exact,
polarity swaps are polarity errors, and neither tuple order nor repeats change a class."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from aggregator.metrics.errors import COLUMNS, row
from aggregator.metrics.family import RowInput
from aggregator.units.error_anatomy import UNIT_CLASSES, classify, counts, exact_pairs, items, transitions
from aggregator.units.error_classes import CLASSES, EXACT, MISSED, POLARITY, SPURIOUS
from aggregator.units.projection import UNITS
from aggregator.units.sample_counts import COLUMN_NAMES, sample_counts
from scorecards.tuples import EvalTuple
from tests.scorecard_rows import item, record_of
from tests.scorecard_rows import row as scorecard_row

FAST = settings(max_examples=300, deadline=None)
REFS = ["", "본품#품질", "본품#가격", "제품 전체#일반", "배송#속도", "battery", "battery life"]
TERMS = ["", "battery", "battery life", "life", "screen size", "size of screen", "배송", "배송 속도", "속도", "향"]
POLARITIES = ["positive", "negative", "neutral", "mixed"]
eval_tuple = st.builds(EvalTuple, st.sampled_from(REFS), st.sampled_from(TERMS), st.sampled_from(POLARITIES))
tuple_set = st.frozensets(eval_tuple, max_size=7)


@FAST
@given(gold=tuple_set, pred=tuple_set)
def test_classes_sum_to_the_units_counts(gold: frozenset[EvalTuple], pred: frozenset[EvalTuple]) -> None:
    """Gold classes sum to |G| = tp + fn, prediction classes to |P| = tp + fp, exact = tp, under every unit."""
    for unit in UNITS.values():
        gold_items, pred_items = items(unit.name, gold), items(unit.name, pred)
        assert {i.pair for i in gold_items} == unit.project(gold)
        assert {i.pair for i in pred_items} == unit.project(pred)
        found = classify(unit.name, gold_items, pred_items)
        tp, fp, fn = unit.counts(pred, gold)
        assert len(found.gold) == tp + fn and len(found.pred) == tp + fp
        assert found.gold.count(EXACT) == found.pred.count(EXACT) == tp
        assert set(found.gold) <= set(CLASSES) - {SPURIOUS} and set(found.pred) <= set(CLASSES) - {MISSED}
        for cls in (*UNIT_CLASSES[unit.name], EXACT):
            if cls not in (SPURIOUS, MISSED):
                assert found.gold.count(cls) == found.pred.count(cls), cls
        partners = [p for p in found.partner if p is not None]
        assert len(partners) == len(set(partners)), "one prediction explains at most one gold pair"
        assert all((found.partner[g] is None) == (c == MISSED) for g, c in enumerate(found.gold))


@FAST
@given(gold=tuple_set, pred=tuple_set)
def test_exact_pairs_are_the_units_own_matches(gold: frozenset[EvalTuple], pred: frozenset[EvalTuple]) -> None:
    for unit in UNITS.values():
        gold_items, pred_items = items(unit.name, gold), items(unit.name, pred)
        pairs = exact_pairs(unit.name, gold_items, pred_items)
        matched_pred, matched_gold = unit.matched(unit.project(pred), unit.project(gold))
        assert {pred_items[j].pair for _, j in pairs} == matched_pred
        assert {gold_items[i].pair for i, _ in pairs} == matched_gold


@FAST
@given(gold=tuple_set)
def test_a_set_against_itself_is_all_exact(gold: frozenset[EvalTuple]) -> None:
    for unit in UNITS:
        found = classify(unit, items(unit, gold), items(unit, gold))
        assert set(found.gold) <= {EXACT} and set(found.pred) <= {EXACT}


@st.composite
def distinct_aspects(draw: st.DrawFn, unit: str) -> tuple[list[EvalTuple], list[EvalTuple]]:
    """Gold tuples with pairwise different keys under ``unit`` (explicit terms under otepol), and the
    same tuples with every polarity replaced by another one."""
    keys = draw(st.lists(st.sampled_from([t for t in TERMS if t]), unique=True, max_size=5))
    gold = [EvalTuple(f"본품#{k}" if unit != "otepol" else draw(st.sampled_from(REFS)),
                      k if unit != "refpol" else draw(st.sampled_from(TERMS)), draw(st.sampled_from(POLARITIES)))
            for k in keys]
    swapped = [t._replace(polarity=draw(st.sampled_from([p for p in POLARITIES if p != t.polarity]))) for t in gold]
    return gold, swapped


@FAST
@given(data=st.data())
def test_swapping_only_polarities_gives_only_polarity_errors(data: st.DataObject) -> None:
    for unit in UNITS:
        gold, swapped = data.draw(distinct_aspects(unit))
        found = classify(unit, items(unit, gold), items(unit, swapped))
        assert found.gold == [POLARITY] * len(gold) and found.pred == [POLARITY] * len(gold)


def _values(gold: list[dict[str, str]], stage1: list[dict[str, str]], final: list[dict[str, str]]) -> tuple[object, ...]:
    record = record_of(scorecard_row("k", gold=gold, stage1=stage1, final=final))
    return row(RowInput(record, dict(zip(COLUMN_NAMES, sample_counts(record)))))


def _as_items(tuples: frozenset[EvalTuple]) -> list[dict[str, str]]:
    return [item(t.aspect_ref or None, t.aspect_term or None, t.polarity) for t in sorted(tuples)]


@FAST
@given(gold=tuple_set, stage1=tuple_set, final=tuple_set, seed=st.integers(0, 2**32 - 1), repeat=st.integers(1, 3))
def test_order_and_repeats_of_tuples_change_nothing(gold: frozenset[EvalTuple], stage1: frozenset[EvalTuple],
                                                    final: frozenset[EvalTuple], seed: int, repeat: int) -> None:
    """The per-sample columns of a row are those of its tuples shuffled and repeated."""
    rng = random.Random(seed)
    plain = [_as_items(s) for s in (gold, stage1, final)]
    shuffled = []
    for listed in plain:
        copies = [dict(x) for x in listed for _ in range(rng.randint(1, repeat))]
        rng.shuffle(copies)
        shuffled.append(copies)
    assert len(COLUMNS) == len(_values(*plain))
    assert _values(*plain) == _values(*shuffled)


@FAST
@given(gold=tuple_set, stage1=tuple_set, final=tuple_set)
def test_transitions_account_for_every_change_of_class(gold: frozenset[EvalTuple], stage1: frozenset[EvalTuple],
                                                       final: frozenset[EvalTuple]) -> None:
    """Per gold-side class: final count − stage-1 count = introduced + changed into it − repaired − changed out."""
    values = dict(zip((c.name for c in COLUMNS), _values(*(_as_items(s) for s in (gold, stage1, final)))))
    for unit, classes in UNIT_CLASSES.items():
        changes = str(values[f"err_{unit}_changes"] or "").split(",")
        for cls in classes:
            into = sum(c.endswith(f">{cls}") for c in changes)
            out = values.get(f"err_{unit}_changed_{cls}", 0)
            net = values[f"err_{unit}_s2_{cls}"] - values[f"err_{unit}_s1_{cls}"]  # type: ignore[operator]
            moved = values[f"err_{unit}_introduced_{cls}"] + into - values[f"err_{unit}_repaired_{cls}"] - out  # type: ignore[operator]
            if cls != SPURIOUS:
                assert net == moved, (unit, cls)
            else:
                assert net == values[f"err_{unit}_introduced_{cls}"] - values[f"err_{unit}_repaired_{cls}"]


@FAST
@given(weights=st.integers(1, 5).flatmap(lambda n: st.integers(1, 5).flatmap(
    lambda m: st.lists(st.lists(st.sampled_from([0.0, 0.0, 1.0, 1.25, 1.5, 2.0]), min_size=m, max_size=m),
                       min_size=n, max_size=n))))
def test_the_matching_is_an_optimal_assignment(weights: list[list[float]]) -> None:
    """The Hungarian method of the matching reaches scipy's optimum (ties may be broken otherwise)."""
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    from aggregator.units.error_classes import _assignment

    matrix = np.array(weights)
    flip = matrix.shape[0] > matrix.shape[1]
    cost = (-matrix.T if flip else -matrix).tolist()
    chosen = _assignment(cost)
    assert len(set(chosen)) == len(chosen)
    rows, cols = linear_sum_assignment(np.array(cost))
    assert sum(cost[i][j] for i, j in enumerate(chosen)) == pytest.approx(float(np.array(cost)[rows, cols].sum()))


@FAST
@given(gold=tuple_set, stage1=tuple_set, final=tuple_set)
def test_the_row_shortcuts_give_what_classifying_every_unit_and_stage_gives(
        gold: frozenset[EvalTuple], stage1: frozenset[EvalTuple], final: frozenset[EvalTuple]) -> None:
    """The row skips units without predictions and stages equal to the other: the same values as
    classifying both stages of every unit and reading the transitions."""
    _check_row_shortcuts(gold, stage1, final)


def _check_row_shortcuts(gold: frozenset[EvalTuple], stage1: frozenset[EvalTuple], final: frozenset[EvalTuple]) -> None:
    record = record_of(scorecard_row("k", gold=_as_items(gold), stage1=_as_items(stage1), final=_as_items(final)))
    expected: list[object] = []
    for unit in UNIT_CLASSES:
        tuples = [items(unit, stage) for stage in (record.gold, record.stage1, record.final)]
        first, final_stage = classify(unit, tuples[0], tuples[1]), classify(unit, tuples[0], tuples[2])
        expected += counts(unit, first) + counts(unit, final_stage)
        moved = transitions(unit, first, final_stage, tuples[1], tuples[2])
        for counted in moved[:3]:
            expected += counted.values()
        expected.append(",".join(moved.changes) or None)
    assert row(RowInput(record, dict(zip(COLUMN_NAMES, sample_counts(record))))) == tuple(expected)


@st.composite
def _stage_of(draw: st.DrawFn, gold: frozenset[EvalTuple]) -> frozenset[EvalTuple]:
    """A stage made from the gold tuples as a pipeline gets them wrong: each kept, given another polarity,
    ref or term, stripped of its ref, or left out; plus a few tuples of its own."""
    out = set()
    for ref, term, polarity in gold:
        change = draw(st.sampled_from(("keep", "polarity", "ref", "term", "no ref", "drop")))
        if change == "polarity":
            polarity = draw(st.sampled_from([p for p in POLARITIES if p != polarity]))
        elif change in ("ref", "term", "no ref"):
            ref = "" if change == "no ref" else draw(st.sampled_from(REFS)) if change == "ref" else ref
            term = draw(st.sampled_from(TERMS)) if change == "term" else term
        if change != "drop":
            out.add(EvalTuple(ref, term, polarity))
    return frozenset(out | draw(st.frozensets(eval_tuple, max_size=2)))


@FAST
@given(data=st.data(), gold=st.frozensets(eval_tuple, min_size=1, max_size=5))
def test_the_row_shortcuts_on_stages_made_from_gold(data: st.DataObject, gold: frozenset[EvalTuple]) -> None:
    """The same, on stages that get some gold tuples right and others wrong in one way each (most
    samples of a real run; independent random stages seldom have several paired errors at one stage
    and none at the other)."""
    _check_row_shortcuts(gold, data.draw(_stage_of(gold)), data.draw(_stage_of(gold)))


def test_a_stage_without_predictions_moves_every_paired_error_from_or_to_missed() -> None:
    """Hand-worked: stage 1 has no ref (no pair under refpol), the final stage two polarity errors; and
    the reverse."""
    gold = [item("본품#품질", "맛", "positive"), item("배송#속도", "배송", "positive")]
    no_refs = [item(None, "맛", "positive")]
    wrong = [item("본품#품질", "맛", "negative"), item("배송#속도", "배송", "negative")]
    for stage1, final, moved, change in ((no_refs, wrong, "repaired", "missed>polarity"),
                                         (wrong, no_refs, "introduced", "polarity>missed")):
        values = dict(zip((c.name for c in COLUMNS), _values(gold, stage1, final)))
        assert (values["err_refpol_s1_missed"], values["err_refpol_s2_missed"]) == ((2, 0) if final is wrong else (0, 2))
        assert (values["err_refpol_s1_polarity"], values["err_refpol_s2_polarity"]) == ((0, 2) if final is wrong else (2, 0))
        changed = "err_refpol_changed_missed" if final is wrong else "err_refpol_changed_polarity"
        assert values[changed] == 2 and values[f"err_refpol_{moved}_missed"] == 0
        assert values["err_refpol_changes"] == f"{change},{change}"


SCORES = st.sampled_from([None, None, 0.0, 0.4, 0.5, 0.9])


@FAST
@given(data=st.data(), single_gold=st.booleans(), others=st.integers(1, 5))
def test_one_side_pairs_as_the_full_ladder_does(data: st.DataObject, single_gold: bool, others: int) -> None:
    """With one gold item or one prediction left, the shortcut makes the pair the class-by-class
    maximum matching makes (relations drawn at random, ties included)."""
    from aggregator.units.error_classes import PAIRED, _ladder, _one_side

    n, m = (1, others) if single_gold else (others, 1)
    table = data.draw(st.lists(st.lists(st.tuples(*[SCORES] * len(PAIRED)), min_size=m, max_size=m),
                               min_size=n, max_size=n))

    def relate(g: int, p: int) -> tuple[float | None, ...]:
        return table[g][p]

    left_gold, left_pred = list(range(n)), list(range(m))
    args = (left_gold, left_pred, left_gold, left_pred, PAIRED, relate)
    assert _one_side(*args) == _ladder(*args)
