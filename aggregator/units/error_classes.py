"""Error classes of a comparison and the matching that assigns them (shared by scorecards and formats).

Every gold item and every predicted item of one comparison gets exactly one class. The classes,
in precedence order (names as error analyses in information extraction use them: MUC's
*missing* and *spurious*, SemEval-2013 Task 9.1's *partial* boundary and wrong *type*, the ABSA
elements polarity, category and implicit aspect; docs/errors.md):

==========  =======================================================================
exact       the unit counts the pair as a true positive
polarity    same aspect as the unit sees it, other polarity
category    same term, other ref (units that carry a ref)
boundary    the terms overlap but differ (:func:`term_overlap` ≥ :data:`BOUNDARY_THRESHOLD`)
implicit    one side implicit (no term), the other explicit
spurious    a prediction left over (pred side only)
missed      a gold item left over (gold side only)
==========  =======================================================================

:func:`assign` takes the exact matches as the unit makes them, then, class by class in this order,
pairs the items still left over that the class's relation joins. One prediction explains at most
one gold item and the reverse. Within a class it takes a maximum matching (as many pairs as
possible), and among those the one with the highest total preference (each relation scores a pair
in [0, 1): same polarity, shared term, larger overlap); what remains ties is settled by the items'
sorted order (the Hungarian method, :func:`_assignment`, on the sorted items). Items are distinct
and sorted before they are matched, so neither the order of the tuples nor repeated tuples change a
class.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from difflib import SequenceMatcher
from functools import lru_cache
from typing import NamedTuple, TypeVar

EXACT, POLARITY, CATEGORY, BOUNDARY, IMPLICIT, SPURIOUS, MISSED = (
    "exact", "polarity", "category", "boundary", "implicit", "spurious", "missed")
PAIRED = (POLARITY, CATEGORY, BOUNDARY, IMPLICIT)
"""The classes that pair one gold item with one prediction (in precedence order)."""
CLASSES = (EXACT, *PAIRED, SPURIOUS, MISSED)
BOUNDARY_THRESHOLD = 0.5
"""Two different terms overlap when their longest common part covers at least half of the shorter."""

G = TypeVar("G")
P = TypeVar("P")
Scores = tuple["float | None", ...]
Relate = Callable[[G, P], Scores]
"""The relations of a ladder at once: for a gold item and a prediction, one entry per paired class
of the ladder, None when that class's relation does not join them, else a preference score in
[0, 1) (higher is chosen first among matchings of equal size)."""


class Assignment(NamedTuple):
    """Each gold item's and each prediction's class, and which prediction explains which gold item."""

    gold: list[str]
    pred: list[str]
    partner: list[int | None]
    """For each gold item, the index of the prediction paired with it (None: missed)."""


def common_run(a: Sequence[object], b: Sequence[object]) -> int:
    """Length of the longest contiguous run that ``a`` and ``b`` share (characters of a text, tokens of a list)."""
    if not a or not b:
        return 0
    return SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b)).size


@lru_cache(maxsize=1 << 16)
def term_overlap(a: str, b: str) -> float:
    """How much of the shorter term the longest common substring covers: 1.0 when one contains the
    other, 0.0 when either is empty (implicit). Terms are compared as the unit keys them."""
    if not a or not b:
        return 0.0
    if a in b or b in a:
        return 1.0
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    run = _threshold_run(short)
    if not _shares_run(short, long, run):
        return common_run(a, b) / len(short)
    while _shares_run(short, long, run + 1):
        run += 1
    return run / len(short)


@lru_cache(maxsize=1 << 16)
def overlaps(a: str, b: str) -> bool:
    """The boundary relation of two terms: both explicit, different, and :func:`term_overlap` ≥
    :data:`BOUNDARY_THRESHOLD` (tested with substring searches, which run in C)."""
    if not a or not b or a == b:
        return False
    if a in b or b in a:
        return True
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    return _shares_run(short, long, _threshold_run(short))


def _threshold_run(short: str) -> int:
    """The shortest common run that reaches the threshold for a shorter term of this length."""
    return math.ceil(BOUNDARY_THRESHOLD * len(short))


def _shares_run(short: str, long: str, run: int) -> bool:
    return any(short[i:i + run] in long for i in range(len(short) - run + 1))


def assign(
    gold: Sequence[G],
    pred: Sequence[P],
    exact: Sequence[tuple[int, int]],
    ladder: Sequence[str],
    relate: Relate[G, P],
) -> Assignment:
    """Classes of distinct, sorted ``gold`` and ``pred`` items: ``exact`` holds the (gold index, pred
    index) pairs the unit matches; ``ladder`` names the paired classes after it, in precedence
    order, and ``relate`` gives their relations (:data:`Relate`)."""
    gold_class = [MISSED] * len(gold)
    pred_class = [SPURIOUS] * len(pred)
    partner: list[int | None] = [None] * len(gold)
    for g, p in exact:
        gold_class[g], pred_class[p], partner[g] = EXACT, EXACT, p
    left_gold = [g for g, c in enumerate(gold_class) if c == MISSED]
    left_pred = [p for p, c in enumerate(pred_class) if c == SPURIOUS]
    if not left_gold or not left_pred:
        return Assignment(gold_class, pred_class, partner)
    match = _one_side if len(left_gold) == 1 or len(left_pred) == 1 else _ladder
    for (g, p), name in match(gold, pred, left_gold, left_pred, ladder, relate):
        gold_class[g], pred_class[p], partner[g] = name, name, p
    return Assignment(gold_class, pred_class, partner)


Pairing = list[tuple[tuple[int, int], str]]
"""((gold index, pred index), class) of each pair a ladder makes."""


def _ladder(gold: Sequence[G], pred: Sequence[P], left_gold: list[int], left_pred: list[int],
            ladder: Sequence[str], relate: Relate[G, P]) -> Pairing:
    """The pairs of the items left after the exact matches: class by class, a best maximum matching
    (:func:`_best_matching`) of the items still unpaired."""
    by_class: list[list[tuple[int, int, float]]] = [[] for _ in ladder]
    for g in left_gold:
        item = gold[g]
        for p in left_pred:
            for k, score in enumerate(relate(item, pred[p])):
                if score is not None:
                    by_class[k].append((g, p, score))
    paired_gold: set[int] = set()
    paired_pred: set[int] = set()
    out: Pairing = []
    for name, edges in zip(ladder, by_class):
        edges = [e for e in edges if e[0] not in paired_gold and e[1] not in paired_pred]
        for g, p in _best_matching(edges):
            paired_gold.add(g)
            paired_pred.add(p)
            out.append(((g, p), name))
    return out


def _one_side(gold: Sequence[G], pred: Sequence[P], left_gold: list[int], left_pred: list[int],
              ladder: Sequence[str], relate: Relate[G, P]) -> Pairing:
    """:func:`_ladder` when one gold item or one prediction is left (at most one pair): the first class
    of the ladder that joins any, its best score, the first item in sorted order on ties (what
    :func:`_best_matching` gives for one row or one column), without building the edge lists."""
    scored = [((g, p), relate(gold[g], pred[p])) for g in left_gold for p in left_pred]
    for k, name in enumerate(ladder):
        best: float | None = None
        chosen = scored[0][0]
        for pair, scores in scored:  # in sorted order: a strictly higher score replaces the first found
            score = scores[k]
            if score is not None and (best is None or score > best):
                best, chosen = score, pair
        if best is not None:
            return [(chosen, name)]
    return []


def lone_gold_class(item: G, pred: Sequence[P], ladder: Sequence[str], relate: Relate[G, P]) -> str:
    """The class :func:`assign` gives a lone gold item that no prediction matches exactly: the first class
    of the ladder that joins it to a prediction, else missed."""
    found = _one_side([item], pred, [0], list(range(len(pred))), ladder, relate)
    return found[0][1] if found else MISSED


def _best_matching(edges: list[tuple[int, int, float]]) -> list[tuple[int, int]]:
    """A maximum matching of ``edges`` with the highest total score (see the module docstring)."""
    if not edges:
        return []
    rows = sorted({g for g, _, _ in edges})
    cols = sorted({p for _, p, _ in edges})
    if len(rows) == len(edges) == len(cols):
        return [(g, p) for g, p, _ in edges]
    if len(rows) == 1 or len(cols) == 1:  # what the Hungarian method gives: the best score, the first on ties
        other = 1 if len(rows) == 1 else 0
        g, p, _ = max(edges, key=lambda e: (e[2], -e[other]))
        return [(g, p)]
    row_of, col_of = {g: i for i, g in enumerate(rows)}, {p: j for j, p in enumerate(cols)}
    size = float(min(len(rows), len(cols)) + 1)
    weight = [[0.0] * len(cols) for _ in rows]
    for g, p, score in edges:
        weight[row_of[g]][col_of[p]] = size + score
    transposed = len(rows) > len(cols)
    if transposed:
        weight = [list(column) for column in zip(*weight)]
    chosen = _assignment([[-w for w in line] for line in weight])
    pairs = [(i, j) for i, j in enumerate(chosen) if weight[i][j] > 0]
    return [(rows[j], cols[i]) if transposed else (rows[i], cols[j]) for i, j in pairs]


def _assignment(cost: list[list[float]]) -> list[int]:
    """The column of each row in a minimum-cost assignment of ``n ≤ m`` rows to ``m`` columns: the
    Hungarian method with shortest augmenting paths (Kuhn-Munkres; rows taken in order, the first
    column of least reduced cost on ties). The matchings here have a few rows, so plain Python."""
    n, m = len(cost), len(cost[0])
    u, v = [0.0] * (n + 1), [0.0] * (m + 1)
    owner, way = [0] * (m + 1), [0] * (m + 1)
    for i in range(1, n + 1):
        owner[0], j0 = i, 0
        least, used = [math.inf] * (m + 1), [False] * (m + 1)
        while True:
            used[j0] = True
            i0, delta, j1 = owner[j0], math.inf, 0
            for j in range(1, m + 1):
                if not used[j]:
                    reduced = cost[i0 - 1][j - 1] - u[i0] - v[j]
                    if reduced < least[j]:
                        least[j], way[j] = reduced, j0
                    if least[j] < delta:
                        delta, j1 = least[j], j
            for j in range(m + 1):
                if used[j]:
                    u[owner[j]] += delta
                    v[j] -= delta
                else:
                    least[j] -= delta
            j0 = j1
            if owner[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            owner[j0] = owner[j1]
            j0 = j1
    column = [0] * n
    for j in range(1, m + 1):
        if owner[j]:
            column[owner[j] - 1] = j - 1
    return column
