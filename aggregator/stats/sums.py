"""Column sums of bootstrap resamples, and a bound of their rounding error.

A resample's column sums s_j = Σ w·x_j feed every leaf (:mod:`aggregator.stats.leaves`);
:class:`ColumnSums` keeps a column that no resample changes once, :class:`Rounding` says how the sums
were taken, and :func:`spread_rounding` bounds the error of a variance computed from them, so that the
spread of drawn values that are all equal is 0, not rounding noise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from aggregator.stats.leaves import Leaf

_UNIT = float(np.finfo(np.float64).eps) / 2
_TINY = float(np.finfo(np.float64).smallest_subnormal)


@dataclass(frozen=True)
class ColumnSums:
    """Column sums of R resamples; a column that is the same in every resample is kept once.

    ``first``: every column's sum in the first resample (in all of them for a constant column);
    ``varying``: the other columns (ascending) and ``values`` (R, V) their sums.
    """

    rows: int
    first: np.ndarray
    varying: np.ndarray
    values: np.ndarray
    rounding: Rounding | None = None
    """How every column was summed (None: plain float64 sums)."""

    @classmethod
    def of(cls, dense: np.ndarray, rounding: Rounding | None = None) -> ColumnSums:
        if dense.shape[0] == 0:
            return cls(0, np.zeros(dense.shape[1]), np.arange(0), np.zeros((0, 0)), rounding)
        varying = np.flatnonzero(~np.all(dense == dense[:1], axis=0))
        return cls(dense.shape[0], dense[0].copy(), varying, dense[:, varying], rounding)

    def columns(self, wanted: Sequence[int]) -> np.ndarray:
        """``(R, len(wanted))`` sums of the columns ``wanted``."""
        out = np.repeat(self.first[None, list(wanted)], self.rows, axis=0)
        place = np.searchsorted(self.varying, wanted)
        inside = (place < len(self.varying)) & (self.varying[np.minimum(place, len(self.varying) - 1)] == wanted) \
            if len(self.varying) else np.zeros(len(wanted), dtype=bool)
        if inside.any():
            out[:, inside] = self.values[:, place[inside]]
        return out

    def dense(self) -> np.ndarray:
        """``(R, C)`` sums of every column."""
        return self.columns(range(len(self.first)))


def leaf_spread(leaf: Leaf, sums: np.ndarray, rounding: Rounding | None = None) -> np.ndarray:
    """A mean, variance or standard deviation from its (values, presence[, squares]) sums; NaN when undefined."""
    values, present = sums[:, 0], sums[:, 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        if leaf.kind == "mean":
            return np.where(present > 0, values / present, np.nan)
        centred = sums[:, 2] - values * values / present
        centred = np.where(centred > spread_rounding(sums, rounding), centred, 0.0)
        spread = np.where(present > leaf.ddof, centred / (present - leaf.ddof), np.nan)
    return np.sqrt(spread) if leaf.kind == "std" else spread


@dataclass(frozen=True)
class Rounding:
    """How column sums s_j = Σ w·x_j were taken, so that their rounding error is known.

    ``added[j]``: what was added to column j's product afterwards (its centre c_j times n, 0 when the
    column was not centred); ``gamma[j]``: γ_k = k·u / (1 − k·u) for the product's type (u its unit
    roundoff, k the number of samples summed, plus 4 for the centring, the cast, the centre and the
    final addition); ``floor[j]``: k·η (η the type's smallest subnormal: what gradual underflow may
    lose on each operation). By the bound of a sum of products (Higham 2002, *Accuracy and Stability
    of Numerical Algorithms*, §3.1), s_j is off by at most γ_j·(Σ w·|x_j − c_j| + |added_j| + |s_j|) + floor_j.
    """

    added: np.ndarray
    gamma: np.ndarray
    floor: np.ndarray

    @classmethod
    def of(cls, count: float | np.ndarray, dtypes: Sequence[type[np.floating]],
           added: np.ndarray | float = 0.0) -> Rounding:
        """Sums of ``count`` samples, column j's product taken in ``dtypes[j]``, ``added`` afterwards."""
        info = {dtype: np.finfo(dtype) for dtype in set(dtypes)}
        unit = np.array([float(info[dtype].eps) / 2 for dtype in dtypes])
        k = np.asarray(count, dtype=np.float64) + 4
        with np.errstate(divide="ignore"):
            gamma = np.where(k * unit < 1, k * unit / np.maximum(1 - k * unit, 0.0), np.inf)
        floor = k * np.array([float(info[dtype].smallest_subnormal) for dtype in dtypes])
        return cls(np.broadcast_to(np.asarray(added, dtype=np.float64), gamma.shape), gamma, floor)

    def __getitem__(self, where: slice | Sequence[int]) -> Rounding:
        return Rounding(self.added[where], self.gamma[where], self.floor[where])


def spread_rounding(sums: np.ndarray, rounding: Rounding | None = None) -> np.ndarray:
    """``(R,)`` bound of the rounding error of S = Q − V²/N computed from the (V, N, Q) = (values,
    presence, squares) sums of a spread leaf: a computed S within it cannot be told from 0, the
    spread of drawn values that are all equal.

    Each sum's error is bounded as :class:`Rounding` says (``rounding`` None: plain float64 sums of
    at most N non-zero terms, nothing added), with Σ w·|x² − c| ≤ Q + |added| (squares and their
    centre are ≥ 0) and Σ w·|x − c| ≤ √(N·Q) + |added| (Cauchy–Schwarz; a row without a value adds
    |c|): e_Q = γ·(2Q + 2|added|) + floor, e_V = γ·(√(N·Q) + 2|added| + |V|) + floor. Then
    |Ŝ − S| ≤ e_Q + (2|V| + e_V)·e_V / N + 4u·(Q + V²/N) + 4η, u and η the float64 unit roundoff and
    smallest subnormal (the squares x² and the formula's own arithmetic).
    """
    values, present, squares = sums[:, 0], sums[:, 1], np.abs(sums[:, 2])
    if rounding is None:  # per resample: N bounds the terms that are not 0
        rounding = Rounding.of(present[:, None], [np.float64] * 3)
    gamma_v, gamma_q = (rounding.gamma[..., j] for j in (0, 2))
    added_v, added_q = (np.abs(rounding.added[..., j]) for j in (0, 2))
    floor_v, floor_q = (rounding.floor[..., j] for j in (0, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        error_q = gamma_q * (2 * squares + 2 * added_q) + floor_q
        error_v = gamma_v * (np.sqrt(present * squares) + 2 * added_v + np.abs(values)) + floor_v
        squared = values * values / present
        bound: np.ndarray = error_q + (2 * np.abs(values) + error_v) * error_v / present + 4 * (_UNIT * (squares + squared) + _TINY)
        return bound
