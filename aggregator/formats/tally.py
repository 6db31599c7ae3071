"""Micro counts of one unit and the precision, recall and F1 they give.

P = tp / (tp + fp), R = tp / (tp + fn), F1 = 2PR / (P + R), each 0 on a zero denominator
(:func:`~aggregator.metrics.prf.prf`). An official scorer may count so that fp or fn is
negative (Span-ASTE: tp = 2 hits for 1 prediction); then tp + fp is still its n_pred and
P its tp / n_pred, which may exceed 1.
"""

from __future__ import annotations

from typing import NamedTuple

from aggregator.metrics.prf import prf


class Scores(NamedTuple):
    precision: float
    recall: float
    f1: float


class Tally(NamedTuple):
    """Summed true positives, false positives and false negatives of one unit."""

    tp: float
    fp: float
    fn: float

    @classmethod
    def of(cls, tp: float, n_pred: float, n_gold: float) -> Tally:
        """From hits and the totals an official scorer divides by."""
        return cls(tp, n_pred - tp, n_gold - tp)

    def plus(self, other: Tally) -> Tally:
        return Tally(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn)

    def scores(self) -> Scores:
        return Scores(*prf(self.tp, self.fp, self.fn))


ZERO = Tally(0, 0, 0)
UnitKey = tuple[str, str]
"""(unit name, breakdown): breakdown is ``all`` or an ACOS type such as ``IA&EO``."""
Tallies = dict[UnitKey, Tally]
