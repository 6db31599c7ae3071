"""Registry metrics as functions of weighted sums over samples, so that any of them can be resampled.

Every metric of the registry is a Polars aggregation over the per-sample table. Most are built from
``sum``, ``mean``, ``count`` and ``len`` of per-sample (row-wise) expressions, combined by scalar
arithmetic: macro means, micro F1 of summed counts, ratios of sums. Such a metric is a function
``F(s_1, …, s_L)`` of *leaf sums* ``s_j = Σ_i w_i · x_ij`` over samples i, with every weight
``w_i = 1`` in the run itself. A bootstrap replicate only changes the weights (how often each
sample is drawn), so the replicate values of every metric are ``F(W @ X)``: one matrix product
of the ``(resamples × n)`` draw counts with the ``(n × L)`` leaf matrix, then ``F`` evaluated by
Polars row-wise over a frame of leaf sums. Nothing is re-declared: the metric's own serialized
expression is rewritten, each aggregation node replaced by a column of leaf sums.

Leaves (``x`` a row-wise expression, nulls left out as Polars does):

- ``len()`` → Σ w;  ``x.sum()`` → Σ w·x;  ``x.count()`` → Σ w·[x not null];
- ``x.mean()`` → Σ w·x / Σ w·[x not null] (null when no value);
- ``x.var(ddof)`` → (Σ w·x² − (Σ w·x)² / N) / (N − ddof) with N = Σ w·[x not null] (null when
  N ≤ ddof; x centred on its mean first; a numerator within the rounding of the sums it cancels,
  :func:`spread_rounding`, is 0: what drawn values that are all equal give); ``x.std(ddof)`` its
  square root;
- ``x.filter(c)`` inside them → ``x`` where ``c`` holds, else null.

A metric is *not resampled* (with the reason kept) when it is not such a function: another
aggregation (max, n_unique, …), an aggregation nested in a row-wise part, a row-wise part that
does not commute with drawing rows (shift, rank, window), a run-level metric, or a rewritten form
that does not give the metric's own value on the run. :func:`compile_metrics` checks the last two
on a real table, so a metric is either resampled exactly or reported as not resampled. A text
column (``kind`` str, e.g. the provenance family's version) is never resampled.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

if TYPE_CHECKING:
    from aggregator.metrics.registry import Metric, Registry

Node = object
_ROW_LOCAL_CHECK_SEED = 20240601
ROW_LOCAL_CHECK_ROWS = 50_000
"""The rows on which row-wise parts are checked to commute with drawing rows (the first ones: a part
that reads other rows shows it on any 50,000; checking a million held 135 MB more)."""
_REL_TOL = 1e-9
_UNIT = float(np.finfo(np.float64).eps) / 2
_TINY = float(np.finfo(np.float64).smallest_subnormal)
FIXED_CACHE = 64


class NotResampled(ValueError):
    """The metric is not a function of weighted sums; the message says why."""


@dataclass(frozen=True)
class Leaf:
    """One aggregation node: ``kind`` sum/mean/count/len/var/std of the row-wise ``row`` (None for len)."""

    kind: str
    row: pl.Expr | None
    key: str
    ddof: int = 0

    @property
    def width(self) -> int:
        """How many per-sample vectors the leaf sums: values, presence for a mean, squares for a spread."""
        return {"mean": 2, "var": 3, "std": 3}.get(self.kind, 1)


def _expr(node: Node) -> pl.Expr:
    return pl.Expr.deserialize(io.StringIO(json.dumps(node)), format="json")


def _row_expr(node: Node) -> pl.Expr:
    """A row-wise expression; ``filter`` becomes null where its condition does not hold."""
    if isinstance(node, dict) and "Filter" in node:
        inner = node["Filter"]
        return pl.when(_row_expr(inner["by"])).then(_row_expr(inner["input"]))
    _refuse_aggregations(node)
    return _expr(node)


def _refuse_aggregations(node: Node) -> None:
    if node == "Len":
        raise NotResampled("len() inside a per-sample expression")
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("Agg", "Filter", "Window", "Slice", "Gather", "Sort", "SortBy"):
                raise NotResampled(f"{key.lower()} inside a per-sample expression")
            _refuse_aggregations(value)
    elif isinstance(node, list):
        for value in node:
            _refuse_aggregations(value)


@dataclass
class _Rewriter:
    leaves: dict[str, Leaf] = field(default_factory=dict)

    def leaf(self, kind: str, inner: Node | None, ddof: int = 0) -> dict[str, str]:
        key = json.dumps([kind, inner, ddof], sort_keys=True)
        if key not in self.leaves:
            row = None if inner is None else _row_expr(inner)
            self.leaves[key] = Leaf(kind, row, f"__leaf{len(self.leaves)}", ddof)
        return {"Column": self.leaves[key].key}

    def rewrite(self, node: Node) -> Node:
        """The scalar part of an expression, each aggregation replaced by a leaf column."""
        if node == "Len":
            return self.leaf("len", None)
        if isinstance(node, list):
            return [self.rewrite(v) for v in node]
        if not isinstance(node, dict):
            return node
        if "Agg" in node:
            ((agg, inner),) = node["Agg"].items()
            if agg in ("Sum", "Mean"):
                return self.leaf(agg.lower(), inner)
            if agg in ("Std", "Var"):
                inner, ddof = node["Agg"][agg]
                return self.leaf(agg.lower(), inner, int(ddof))
            if agg == "Count":
                return self.leaf("len" if inner["include_nulls"] else "count",
                                 None if inner["include_nulls"] else inner["input"])
            raise NotResampled(f"aggregation {agg.lower()} has no weighted form")
        if "Column" in node or "Window" in node:
            raise NotResampled("a per-sample column outside an aggregation")
        return {k: self.rewrite(v) for k, v in node.items()}


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
                out[:, j] = _spread(self.leaves[i], sums[:, part], None if rounding is None else rounding[part])
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


def _spread(leaf: Leaf, sums: np.ndarray, rounding: Rounding | None = None) -> np.ndarray:
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
        return error_q + (2 * np.abs(values) + error_v) * error_v / present + 4 * (_UNIT * (squares + squared) + _TINY)


def _serialized(registry: Registry, metric: Metric) -> Node:
    return json.loads(registry.expression(metric).meta.serialize(format="json"))


def _row_local(leaves: Sequence[Leaf], table: pl.DataFrame, picks: np.ndarray) -> dict[str, bool]:
    """Per leaf: does its row-wise part commute with drawing rows (as it must for resampling)?"""
    rows = [leaf for leaf in leaves if leaf.row is not None]
    found = {leaf.key: True for leaf in leaves}
    if not rows:
        return found
    exprs = [leaf.row.alias(leaf.key) for leaf in rows if leaf.row is not None]
    try:
        whole = table.select(exprs)
    except pl.exceptions.ShapeError:
        whole = None
    drawn = _columns_read(table, exprs)[picks].select(exprs) if whole is not None else None
    for leaf in rows:
        if whole is None or drawn is None or whole.height != table.height:
            found[leaf.key] = _row_local(  # one by one: some part is not row-wise at all
                [leaf], table, picks)[leaf.key] if len(rows) > 1 else False
        else:
            found[leaf.key] = drawn.get_column(leaf.key).equals(whole.get_column(leaf.key)[picks])
    return found


def _columns_read(table: pl.DataFrame, exprs: Sequence[pl.Expr]) -> pl.DataFrame:
    """The columns of ``table`` that ``exprs`` read (all of them when some name is not known beforehand),
    so that drawing rows does not copy the whole per-sample table."""
    names = sorted({name for expr in exprs for name in expr.meta.root_names()})
    if not names or any(expr.meta.has_multiple_outputs() for expr in exprs):
        return table
    return table.select(names)


def compile_metrics(registry: Registry, table: pl.DataFrame, names: Iterable[str] | None = None) -> WeightedMetrics:
    """Rewrite the metrics ``names`` (default: every metric) of ``registry`` for resampling.

    ``table`` is a real per-sample table: the leaves' types come from it, every row-wise part is
    checked to commute with drawing rows (on its first :data:`ROW_LOCAL_CHECK_ROWS` rows), and every rewritten metric must give, with all weights
    1, the value ``registry.compute(table)`` gives (else it is not resampled).
    """
    rewriter = _Rewriter()
    scalars: dict[str, pl.Expr] = {}
    not_resampled: dict[str, str] = {}
    wanted = list(registry.names if names is None else names)
    for name in wanted:
        metric = registry[name]
        if metric.run_level is not None:
            not_resampled[name] = "run-level metric (not an expression over samples)"
            continue
        if metric.kind == "str":
            not_resampled[name] = "text column (no number to resample)"
            continue
        try:
            scalars[name] = _expr(rewriter.rewrite(_serialized(registry, metric)))
        except NotResampled as exc:
            not_resampled[name] = str(exc)
    leaves = list(rewriter.leaves.values())
    checked = table.slice(0, ROW_LOCAL_CHECK_ROWS)
    picks = np.random.default_rng(_ROW_LOCAL_CHECK_SEED).integers(0, max(checked.height, 1), checked.height)
    local = _row_local(leaves, checked, picks)
    dtypes = [_leaf_dtype(leaf, table) for leaf in leaves]
    compiled = WeightedMetrics(list(scalars), list(scalars.values()), leaves, dtypes, {})
    row = table.select(registry.expression(registry[n]).alias(n) for n in compiled.names).row(0, named=True) \
        if compiled.names else {}
    expected = {n: row[n] for n in compiled.names}
    got = compiled.evaluate(np.array([[column.sum() for column in compiled.sample_columns(table)]]))[0]
    kept = []
    for k, name in enumerate(compiled.names):
        uses = set(compiled.scalars[k].meta.root_names())
        if not all(local[key] for key in uses if key in local):
            not_resampled[name] = "a per-sample part depends on other samples"
        elif not _same(expected[name], got[k]):
            not_resampled[name] = "the weighted form does not reproduce the metric"
        else:
            kept.append(k)
    return WeightedMetrics(
        names=[compiled.names[k] for k in kept],
        scalars=[compiled.scalars[k] for k in kept],
        leaves=leaves,
        leaf_dtypes=dtypes,
        not_resampled={n: not_resampled[n] for n in wanted if n in not_resampled},
    )


def _leaf_dtype(leaf: Leaf, table: pl.DataFrame) -> pl.DataType:
    """The type Polars gives the aggregation itself (e.g. UInt32 for the sum of a flag)."""
    if leaf.kind == "len":
        return table.select(pl.len()).dtypes[0]
    assert leaf.row is not None
    if leaf.kind in ("mean", "var", "std"):
        return pl.Float64()
    agg = {"sum": leaf.row.sum(), "count": leaf.row.count()}[leaf.kind]
    return table.select(agg).dtypes[0]


def _same(expected: object, got: float) -> bool:
    if expected is None:
        return bool(np.isnan(got))
    value = float(expected)  # type: ignore[arg-type]
    return not np.isnan(got) and abs(value - got) <= _REL_TOL * max(1.0, abs(value))
