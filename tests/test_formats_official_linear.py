"""The official scorers count in linear time per sentence and give the numbers of the straightforward
version (issue #25: 50k ASTE triplets in one sentence took 138 s, 20k NIKLuge annotations 26 s).

The straightforward versions below compare every prediction with every gold item, as the scorers'
own code does; on random small corpora, every quirk set of every scorer gives the same tallies and
the same event counts.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from aggregator.formats.official import asqp, aste, gas, nikluge, semeval14
from aggregator.formats.official.base import by_position
from aggregator.formats.pairing import pair
from aggregator.formats.registry import FORMATS
from aggregator.formats.tally import Tallies, Tally
from tests.format_strategies import corpus, lines

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _aste(gold: Any, pred: Any, quirks: frozenset[str]) -> Tallies:
    hits = n_pred = n_gold = 0
    for g, p in by_position(gold, pred):
        gold_keys, pred_keys = aste.keys(g, quirks), aste.keys(p, quirks)
        if "pair_multiplication" in quirks:
            hits += sum(a == b for a in pred_keys for b in gold_keys)
            n_pred, n_gold = n_pred + len(pred_keys), n_gold + len(gold_keys)
        else:
            hits += len(set(pred_keys) & set(gold_keys))
            n_pred, n_gold = n_pred + len(set(pred_keys)), n_gold + len(set(gold_keys))
    return {(aste.TRIPLET, "all"): Tally.of(hits, n_pred, n_gold)}


def _recovered(term: str, tokens: list[str]) -> str:
    import editdistance

    return " ".join(min(tokens, key=lambda token: editdistance.eval(word, token)) for word in term.split(" "))


def _gas(gold: Any, pred: Any, quirks: frozenset[str]) -> Tallies:
    pairs = by_position(gold, pred)
    golds = [gas.side(g, quirks) for g, _ in pairs]
    preds = [gas.side(p, quirks) for _, p in pairs]
    if "edit_distance_fix" in quirks:
        fixed, state = [], None
        for triplets, (g, _) in zip(preds, pairs):
            tokens = g.text.split() if g is not None else []
            sentence, new = " ".join(tokens), []
            for p0, p1, p2 in triplets:
                if p1 in gas.SENTIMENTS or p2 in gas.SENTIMENTS or state is None:
                    state = (p0, p2, p1, False) if p1 in gas.SENTIMENTS else (p0, p1, p2, True)
                at, ott, ac, extraction = state
                new_at = at if at in sentence or not tokens else _recovered(at, tokens)
                new_ac = ac if ac in gas.SENTIMENTS else _recovered(ac, list(gas.SENTIMENTS))
                new_ot = ", ".join(ot if ot in sentence or not tokens else _recovered(ot, tokens) for ot in ott.split(", "))
                new.append((new_at, new_ot, new_ac) if extraction else (new_at, new_ac, new_ot))
            fixed.append(new)
        preds = fixed
    return _searched(zip(golds, preds), quirks, gas.TRIPLET)


def _searched(sides: Iterable[tuple[list[Any], list[Any]]], quirks: frozenset[str], unit: str) -> Tallies:
    """Every predicted item looked up in the gold list, repeats kept unless ``duplicates`` is off."""
    hits = n_pred = n_gold = 0
    for golds, preds in sides:
        if "duplicates" not in quirks:
            golds, preds = list(set(golds)), list(set(preds))
        hits += sum(t in golds for t in preds)
        n_pred, n_gold = n_pred + len(preds), n_gold + len(golds)
    return {(unit, "all"): Tally.of(hits, n_pred, n_gold)}


def _asqp(gold: Any, pred: Any, quirks: frozenset[str]) -> Tallies:
    return _searched(((asqp.side(g, quirks), asqp.side(p, quirks)) for g, p in by_position(gold, pred)), quirks, asqp.QUAD)


def _semeval14(gold: Any, pred: Any, quirks: frozenset[str]) -> Tallies:
    sentences = (by_position(gold, pred[: len(gold)]) if "position_pairing" in quirks
                 else [(p.gold, p.pred) for p in pair(list(gold), list(pred))])
    terms, categories = Tally(0, 0, 0), Tally(0, 0, 0)
    repeats = "duplicates" in quirks
    for g, p in sentences:
        cor, pre = semeval14._terms(g, quirks), semeval14._terms(p, quirks)
        cor, pre = (cor, pre) if repeats else (list(set(cor)), list(set(pre)))
        terms = terms.plus(Tally.of(sum(a in cor for a in pre), len(pre), len(cor)))
        cor_c, pre_c = semeval14._categories(g, quirks), list(set(semeval14._categories(p, quirks)))
        cor_c = cor_c if repeats else list(set(cor_c))
        categories = categories.plus(Tally.of(sum(c in cor_c for c in pre_c), len(pre_c), len(cor_c)))
    return {("aspect", "all"): terms, ("category", "all"): categories}


def _nikluge_events(gold: Any, pred: Any) -> dict[str, int]:
    exact = frozenset({"exact_strings", "polarity_at_index_1"})
    counts = {"first_match": 0, "stale_flags": 0}
    for g, p in by_position(gold, pred):
        gold_anns, pred_anns = nikluge._annotations(g, True, exact), nikluge._annotations(p, False, exact)
        for side, other in ((gold_anns, pred_anns), (pred_anns, gold_anns)):
            counts["first_match"] += sum(len({o for o in other if o[0] == a[0]}) > 1 for a in side)
        matched = [i for i, a in enumerate(pred_anns) if any(g_[0] == a[0] for g_ in gold_anns)]
        counts["stale_flags"] += len(pred_anns) - 1 - matched[0] if matched else 0
    return counts


STRAIGHTFORWARD = {"official": _aste, "gts_score_uniontags": _aste, "gas_compute_scores_extraction": _gas,
                   "gas_fixed_editdistance": _gas}
CASES = [("aste", s.name, STRAIGHTFORWARD[s.name]) for s in FORMATS["aste"].scorers] + [
    ("asqp", s.name, _asqp) for s in FORMATS["asqp"].scorers] + [("semeval14", "official", _semeval14)]


def _read(fmt: str, sentences: list[Any]) -> list[Any]:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "f")
        path.write_text("\n".join(lines(fmt, list(enumerate(sentences)))) + "\n")
        return FORMATS[fmt].read(path)


def _quirk_sets(names: list[str]) -> list[frozenset[str]]:
    """Every subset of the quirks (the edit-distance fix only on texts: it reads words, not positions)."""
    subsets = [frozenset(c) for size in range(len(names) + 1) for c in combinations(names, size)]
    return [q for q in subsets if "edit_distance_fix" not in q or "surface_text" in q]


@pytest.mark.parametrize(("fmt", "compat", "straightforward"), CASES, ids=[f"{f}-{c}" for f, c, _ in CASES])
@SETTINGS
@given(data=st.data())
def test_linear_scorers_count_as_the_straightforward_ones(fmt: str, compat: str, straightforward: Any,
                                                          data: st.DataObject) -> None:
    golds, preds = data.draw(corpus(fmt))
    extra = data.draw(st.lists(st.sampled_from([*golds, *preds]), max_size=2), label="predicted lines past the gold")
    gold, pred = _read(fmt, golds), _read(fmt, preds + extra)
    scorer = FORMATS[fmt].scorer(compat)
    assert scorer is not None
    for quirks in _quirk_sets([q.name for q in scorer.quirks]):
        assert scorer.run(gold, pred, quirks) == straightforward(gold, pred, quirks), sorted(quirks)


@SETTINGS
@given(data=st.data())
def test_nikluge_events_count_as_the_straightforward_ones(data: st.DataObject) -> None:
    golds, preds = data.draw(corpus("nikluge"))
    gold, pred = _read("nikluge", golds), _read("nikluge", preds)
    found = nikluge.events(gold, pred)
    assert {key: found[key] for key in ("first_match", "stale_flags")} == _nikluge_events(gold, pred)
