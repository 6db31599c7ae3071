"""Registry metrics as functions of weighted sums over samples, so that any of them can be resampled.

Every metric of the registry is a Polars aggregation over the per-sample table. Most are built from
``sum``, ``mean``, ``count`` and ``len`` of per-sample (row-wise) expressions, combined by scalar
arithmetic: macro means, micro F1 of summed counts, ratios of sums. Such a metric is a function
``F(s_1, …, s_L)`` of *leaf sums* ``s_j = Σ_i w_i · x_ij`` over samples i, with every weight
``w_i = 1`` in the run itself. A bootstrap replicate only changes the weights (how often each
sample is drawn), so the replicate values of every metric are ``F(W @ X)``: one matrix product
of the ``(resamples × n)`` draw counts with the ``(n × L)`` leaf matrix, then ``F`` evaluated by
Polars row-wise over a frame of leaf sums. Nothing is re-declared: the metric's own serialized
expression is rewritten, each aggregation node replaced by a column of leaf sums
(:mod:`aggregator.stats.leaves`, which lists the leaves and their weighted forms).

:class:`WeightedMetrics` holds the rewritten metrics and evaluates them from column sums
(:class:`~aggregator.stats.sums.ColumnSums`, whose rounding :mod:`aggregator.stats.sums` bounds);
:func:`aggregator.stats.compile.compile_metrics` builds it from a registry and says which metrics are
not resampled, and why.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from aggregator.stats.sums import ColumnSums, leaf_spread

if TYPE_CHECKING:
    from aggregator.stats.leaves import Leaf
    from aggregator.stats.sums import Rounding

FIXED_CACHE = 64


@dataclass(frozen=True)
class WeightedMetrics:
    """The resampled metrics of a registry as leaf sums and scalar expressions over them.

    ``names[k]`` is computed by ``scalars[k]`` from the leaf-sum columns; ``not_resampled`` maps
    every other metric to the reason. ``columns`` are the per-sample vectors whose weighted sums
    make the leaves (a mean leaf uses two: values and presence).
    """

    names: list[str]
    scalars: list[pl.Expr]
    leaves: list[Leaf]
    leaf_dtypes: list[pl.DataType]
    not_resampled: dict[str, str]
    uses: list[list[int]] = field(default_factory=list)
    """Per metric, the indices of the leaves its scalar expression reads."""
    _fixed: dict[tuple[tuple[int, ...], bytes], np.ndarray] = field(default_factory=dict, repr=False, compare=False)
    _spans: list[slice] = field(default_factory=list, repr=False, compare=False)

    def __post_init__(self) -> None:
        bounds = np.cumsum([0] + [leaf.width for leaf in self.leaves])
        object.__setattr__(self, "_spans", [slice(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])])
        if not self.uses and self.names:
            index = {leaf.key: i for i, leaf in enumerate(self.leaves)}
            found = [sorted(index[n] for n in e.meta.root_names() if n in index) for e in self.scalars]
            object.__setattr__(self, "uses", found)

    def sample_matrix(self, table: pl.DataFrame) -> np.ndarray:
        """``(n, C)`` float64 per-sample vectors: for each leaf its values (nulls as 0), and for a
        mean leaf also its presence; ``len`` is a column of ones."""
        exprs = self._sample_exprs()
        if not exprs:
            return np.zeros((table.height, 0))
        frame = table.select(exprs)  # one query: comparisons build many small matrices
        out = np.empty((table.height, len(exprs)), order="F")
        for j, name in enumerate(list(frame.columns)):  # one column at a time: the frame shrinks as out fills
            out[:, j] = frame.drop_in_place(name).to_numpy()
        return out

    def sample_columns(self, table: pl.DataFrame) -> Iterator[np.ndarray]:
        """The columns of :meth:`sample_matrix`, each computed when it is asked for (memory holds one;
        one query a column, for the large tables of a single run)."""
        for expr in self._sample_exprs():
            yield table.select(expr).to_series().to_numpy()

    def _sample_exprs(self) -> list[pl.Expr]:
        exprs: list[pl.Expr] = []
        for i, leaf in enumerate(self.leaves):
            if leaf.kind == "len":
                exprs.append(pl.repeat(1.0, pl.len()).alias(f"v{i}"))
                continue
            assert leaf.row is not None
            if leaf.kind == "count":
                exprs.append(leaf.row.is_not_null().cast(pl.Float64).alias(f"v{i}"))
                continue
            value = leaf.row.cast(pl.Float64)
            if leaf.kind in ("var", "std"):
                value = value - value.mean()  # a spread does not depend on a shift; its sums cancel less so
            exprs.append(value.fill_null(0.0).alias(f"v{i}"))
            if leaf.kind in ("mean", "var", "std"):
                exprs.append(leaf.row.is_not_null().cast(pl.Float64).alias(f"p{i}"))
            if leaf.kind in ("var", "std"):
                exprs.append(value.pow(2).fill_null(0.0).alias(f"q{i}"))
        return exprs

    @property
    def width(self) -> int:
        """C: the columns of :meth:`sample_matrix`."""
        return self._spans[-1].stop if self._spans else 0

    def spans(self) -> list[slice]:
        """Per leaf, its columns in :meth:`sample_matrix`."""
        return self._spans

    def leaf_values(self, sums: np.ndarray, leaves: Sequence[int] | None = None,
                    starts: Sequence[int] | None = None, rounding: Rounding | None = None) -> np.ndarray:
        """``(R, len(leaves))`` values (NaN: undefined) of ``leaves`` (default all) from column sums: a
        plain sum as it is, a mean as values / presence, a spread from its three sums. Leaf i's columns
        start at ``starts[j]`` of ``sums`` (default: its place in :meth:`sample_matrix`); ``rounding``
        describes those columns (default: plain float64 sums, :class:`Rounding`)."""
        chosen = list(range(len(self.leaves))) if leaves is None else list(leaves)
        offsets = [self._spans[i].start for i in chosen] if starts is None else list(starts)
        out = np.empty((sums.shape[0], len(chosen)))
        plain = [(j, c) for j, (i, c) in enumerate(zip(chosen, offsets)) if self.leaves[i].width == 1]
        if plain:
            out[:, [j for j, _ in plain]] = sums[:, [c for _, c in plain]]
        means = [(j, c) for j, (i, c) in enumerate(zip(chosen, offsets)) if self.leaves[i].kind == "mean"]
        if means:
            values, present = sums[:, [c for _, c in means]], sums[:, [c + 1 for _, c in means]]
            with np.errstate(invalid="ignore", divide="ignore"):
                out[:, [j for j, _ in means]] = np.where(present > 0, values / present, np.nan)
        for j, (i, c) in enumerate(zip(chosen, offsets)):
            if self.leaves[i].kind in ("var", "std"):
                part = slice(c, c + self.leaves[i].width)
                out[:, j] = leaf_spread(self.leaves[i], sums[:, part], None if rounding is None else rounding[part])
        return out

    def leaf_frame(self, columns: dict[int, np.ndarray], height: int) -> pl.LazyFrame:
        """Leaf columns (by leaf index) as Polars columns of the aggregations' own types (NaN as null)."""
        frame = pl.DataFrame({self.leaves[i].key: values for i, values in columns.items()}, height=height).lazy()
        return frame.with_columns(
            pl.col(self.leaves[i].key).round().cast(self.leaf_dtypes[i]) if self.leaf_dtypes[i].is_integer()
            else pl.col(self.leaves[i].key).fill_nan(None)
            for i in columns
        )

    def _scalars(self, group: Sequence[int], columns: dict[int, np.ndarray], height: int) -> np.ndarray:
        frame = self.leaf_frame(columns, height).select(
            self.scalars[k].cast(pl.Float64).alias(self.names[k]) for k in group).collect()
        return frame.to_numpy().astype(np.float64).reshape(height, len(group))

    def evaluate(self, sums: ColumnSums | np.ndarray) -> np.ndarray:
        """``(R, M)`` float64 metric values (NaN = undefined) from the column sums of R resamples (a bare
        array: plain float64 sums, see :class:`Rounding`)."""
        return self.replicates(sums)[0]

    def replicates(self, sums: ColumnSums | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`evaluate`, and which metrics are the same in every resample (their leaves are).

        Such a metric is evaluated once and repeated; its values are kept for the next call with the
        same leaves (other runs of a comparison).
        """
        sums = sums if isinstance(sums, ColumnSums) else ColumnSums.of(sums)
        rows = sums.rows
        out = np.empty((rows, len(self.names)))
        fixed_mask = np.zeros(len(self.names), dtype=bool)
        if not self.names or rows == 0:
            return out, fixed_mask
        varies = np.zeros(len(sums.first), dtype=bool)
        varies[sums.varying] = True
        spans = self.spans()
        same = [not varies[span].any() for span in spans]
        first = self.leaf_values(sums.first[None, :], rounding=sums.rounding)
        fixed = [k for k, used in enumerate(self.uses) if all(same[i] for i in used)]
        moving = [k for k in range(len(self.names)) if not all(same[i] for i in self.uses[k])]
        fixed_mask[fixed] = True
        if fixed:
            used = sorted({i for k in fixed for i in self.uses[k]})
            key = (tuple(fixed), first[0, used].tobytes())
            if key not in self._fixed:
                if len(self._fixed) >= FIXED_CACHE:
                    del self._fixed[next(iter(self._fixed))]
                self._fixed[key] = self._scalars(fixed, {i: first[:, i] for i in used}, 1)
            out[:, fixed] = self._fixed[key]
        if moving:
            used = sorted({i for k in moving for i in self.uses[k]})
            varying = [i for i in used if not same[i]]
            wanted = [c for i in varying for c in range(spans[i].start, spans[i].stop)]
            starts = list(np.cumsum([0] + [self.leaves[i].width for i in varying])[:-1])
            full = self.leaf_values(sums.columns(wanted), varying, starts,
                                    None if sums.rounding is None else sums.rounding[wanted])
            columns = {i: full[:, j] for j, i in enumerate(varying)}
            columns.update({i: np.full(rows, first[0, i]) for i in used if same[i]})
            out[:, moving] = self._scalars(moving, columns, rows)
        return out, fixed_mask
