"""Hypothesis strategies: a gold and a prediction file of each ABSA format, as lines, sharing their items.

Each sentence draws a pool of items; gold and prediction draw lists from it (repeats and
any order allowed), so that they overlap. ``reshuffled`` gives the same content with the
items of each sentence reordered and some repeated, and the lines permuted.
"""

from __future__ import annotations

import json
from typing import Any
from xml.sax.saxutils import quoteattr

from hypothesis import strategies as st

Items = list[list[Any]]
SENTIMENTS = ("positive", "negative", "neutral")


def _indices(size: int) -> st.SearchStrategy[list[int]]:
    start = st.integers(0, size - 1)
    return st.one_of(
        st.tuples(start, st.integers(1, 3)).map(lambda t: list(range(t[0], t[0] + t[1]))),
        st.tuples(start, st.integers(1, 3)).map(lambda t: [t[0], t[0] + t[1]]),
        st.tuples(start, st.integers(1, 3)).map(lambda t: [t[0] + t[1], t[0]]),
    )


def _aste_item(size: int) -> st.SearchStrategy[list[Any]]:
    return st.tuples(_indices(size), _indices(size), st.sampled_from(("POS", "NEG", "NEU"))).map(list)


_TERMS = ("NULL", "food", "the food", "it", " wine list", "service", "null")
_asqp_item = st.tuples(st.sampled_from(_TERMS), st.sampled_from(("food quality", "service general", "food  quality")),
                       st.sampled_from(SENTIMENTS), st.sampled_from(("great", "NULL", "not good ", "slow"))).map(list)
_span = st.one_of(st.just("-1,-1"),
                  st.tuples(st.integers(0, 5), st.integers(1, 3)).map(lambda t: f"{t[0]},{t[0] + t[1]}"))
_acos_item = st.tuples(_span, st.sampled_from(("FOOD#QUALITY", "SERVICE#GENERAL")), st.sampled_from("012"), _span).map(
    lambda t: [" ".join(t)])
_CATEGORIES = ("본품#품질", "제품 전체#일반", "패키지/구성품#디자인", "브랜드#인지도")
_nikluge_gold = st.tuples(st.sampled_from(_CATEGORIES), st.sampled_from((["기어", 0, 2], [None, 0, 0])),
                          st.sampled_from(SENTIMENTS)).map(list)
_semeval_item = st.one_of(
    st.tuples(st.just("term"), st.integers(0, 6), st.integers(1, 3), st.sampled_from((*SENTIMENTS, "conflict"))),
    st.tuples(st.just("category"), st.sampled_from(("food", "service", "price")), st.just(0),
              st.sampled_from((*SENTIMENTS, "conflict"))),
)


def _pred_of(fmt: str, item: list[Any]) -> list[Any]:
    return [item[0], item[2]] if fmt == "nikluge" else item


def _item(fmt: str, size: int) -> st.SearchStrategy[list[Any]]:
    return {"aste": _aste_item(size), "asqp": _asqp_item, "acos": _acos_item, "nikluge": _nikluge_gold,
            "semeval14": _semeval_item}[fmt]


@st.composite
def corpus(draw: st.DrawFn, fmt: str) -> tuple[list[Items], list[Items]]:
    """Per sentence, gold items and predicted items."""
    golds, preds = [], []
    for _ in range(draw(st.integers(1, 5))):
        pool = draw(st.lists(_item(fmt, 8), min_size=1, max_size=4))
        golds.append(draw(st.lists(st.sampled_from(pool), max_size=4)))
        preds.append([_pred_of(fmt, i) for i in draw(st.lists(st.sampled_from(pool), max_size=4))])
    return golds, preds


def _semeval(sentences: list[tuple[int, Items]]) -> list[str]:
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', "<sentences>"]
    for i, items in sentences:
        lines.append(f'<sentence id="s{i}"><text>a b c d e f g h</text><aspectTerms>')
        lines += [f'<aspectTerm term="x" polarity="{p}" from="{s}" to="{s + n}"/>'
                  for k, s, n, p in items if k == "term"]
        lines.append("</aspectTerms><aspectCategories>")
        lines += [f"<aspectCategory category={quoteattr(c)} polarity=\"{p}\"/>"
                  for k, c, _, p in items if k == "category"]
        lines.append("</aspectCategories></sentence>")
    return lines + ["</sentences>"]


def lines(fmt: str, sentences: list[tuple[int, Items]]) -> list[str]:
    """One file's lines; ``i`` is the sentence's identity (its id or text)."""
    if fmt == "semeval14":
        return _semeval(sentences)
    if fmt == "aste":
        tokens = " ".join(f"w{j}" for j in range(8))
        return [tokens + "####" + repr([tuple(t) for t in items]) for _, items in sentences]
    if fmt == "asqp":
        return [f"sentence {i}####{items!r}" for i, items in sentences]
    if fmt == "acos":
        return [f"sentence {i} ." + "".join("\t" + q[0] for q in items) for i, items in sentences]
    return [json.dumps({"id": f"s{i}", "sentence_form": f"문장 {i}", "annotation": items}, ensure_ascii=False)
            for i, items in sentences]


KEYED = frozenset({"nikluge", "acos", "semeval14"})


@st.composite
def reshuffled(draw: st.DrawFn, fmt: str, golds: list[Items], preds: list[Items]) -> tuple[list[str], list[str]]:
    """The same corpus with each prediction's items reordered and some repeated, and the lines permuted
    (prediction lines alone for formats keyed by id or text, both files alike for those paired by line)."""
    order = draw(st.permutations(range(len(golds))))
    again = [draw(st.permutations(items + draw(st.lists(st.sampled_from(items), max_size=2)) if items else []))
             for items in preds]
    gold_order = list(range(len(golds))) if fmt in KEYED else order
    return (lines(fmt, [(i, golds[i]) for i in gold_order]), lines(fmt, [(i, again[i]) for i in order]))
