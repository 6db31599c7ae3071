"""95% bootstrap intervals of a run's headline metrics: Ref and Surface F1 S1, F1 S2, ΔF1, fix and break rate.

Percentile bootstrap over samples (Efron & Tibshirani 1993, ch. 13): :data:`RESAMPLES` resamples
of the run's n samples with replacement (seed :data:`SEED`), each metric recomputed by the registry's
own expression on the resample (:mod:`aggregator.stats.weighted`, summed in float64); the interval is the 2.5% and
97.5% quantiles of the resampled values where the metric is defined. A single run carries no seed
variation: these intervals cover sample variation only. Written into
``structural_metrics_table.md``, ``report.html`` and ``aggregate RUN --json``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

import numpy as np

from aggregator.outputs.cells import NOT_AVAILABLE, markdown_cell
from aggregator.outputs.markdown import MARK

if TYPE_CHECKING:
    from aggregator.run.pipeline import RunEvaluation

RESAMPLES = 2000
SEED = 0
METRICS = tuple(f"{name}{suffix}" for suffix in ("", "_otepol")
                for name in ("tuple_f1_s1", "tuple_f1_s2", "delta_f1", "fix_rate", "break_rate"))
METHOD = (f"95% percentile bootstrap over samples ({RESAMPLES} resamples, seed {SEED}); "
          "covers sample variation only (one run, no seeds)")
BLOCK_CELLS = 500_000
"""Draw counts multiplied at a time (4 MB in float64; 100 resamples of 5,000 samples): a run's process
touches this memory for the first time, and fresh memory is what costs here (2,000 resamples of 5,000
samples: 0.14–0.15 CPU-s in blocks of 100, 0.15–0.27 in blocks of 1,000, 40 MB; see benchmarks/RESULTS.md).
Up to 500 samples a block is :data:`~aggregator.stats.bootstrap.BLOCK` resamples, as in comparisons."""
Intervals = dict[str, tuple[float | None, float | None]]
_last: list[tuple[RunEvaluation, Intervals]] = []


def headline_intervals(evaluation: RunEvaluation) -> Intervals:
    """``{metric: (low, high)}`` for :data:`METRICS` (None where undefined); the last run's are kept."""
    if _last and _last[0][0] is evaluation:
        return _last[0][1]
    from aggregator.stats.blas import single_thread
    from aggregator.stats.bootstrap import SampleColumns, iter_draws, percentile_interval, replicate_values
    from aggregator.stats.compile import compile_metrics

    table = evaluation.table
    wanted = [m for m in METRICS if m in evaluation.registry]
    with single_thread():
        weighted = compile_metrics(evaluation.registry, table, wanted)
        draws = iter_draws(table.height, RESAMPLES, SEED, np.float64, reuse=True, cells=BLOCK_CELLS)  # float64: no copy
        columns = SampleColumns.of_columns(weighted.sample_columns(table), weighted.width, table.height)
        replicates = replicate_values(weighted, draws, columns, precise=True)
    low, high = percentile_interval(replicates)
    found: Intervals = {m: (None, None) for m in wanted}
    for k, name in enumerate(weighted.names):
        if evaluation.metrics[name] is not None and np.isfinite(low[k]):
            found[name] = (float(low[k]), float(high[k]))
    _last[:] = [(evaluation, found)]
    return found


def interval_text(bounds: tuple[float | None, float | None]) -> str:
    """``[low, high]`` with four decimals (a bound that rounds to 0 is shown as 0.0000, never -0.0000)."""
    low, high = bounds
    if low is None or high is None:
        return NOT_AVAILABLE
    low, high = (0.0 if round(v, 4) == 0 else v for v in (low, high))
    return f"[{markdown_cell(low)}, {markdown_cell(high)}]"


def _mark(codes: Sequence[str]) -> str:
    return f" {MARK}" if codes else ""


def intervals_markdown(evaluation: RunEvaluation) -> str:
    """The Markdown section: metric, value and its interval; both followed by ⚠ when a warning marks the metric."""
    marks = evaluation.run_warnings.marks()
    lines = ["## Headline intervals", "", METHOD + ".", "", "| Metric | Value | 95% CI |", "|---|---:|---:|"]
    for name, bounds in headline_intervals(evaluation).items():
        label, mark = evaluation.registry[name].label, _mark(marks.get(name, ()))
        lines.append(f"| {label} (`{name}`) | {markdown_cell(evaluation.metrics[name])}{mark} | "
                     f"{interval_text(bounds)}{mark} |")
    return "\n".join(lines) + "\n\n"


def intervals_payload(evaluation: RunEvaluation) -> dict[str, object]:
    """For ``--json``: the method and ``{metric: [low, high]}``."""
    return {"method": METHOD, "bounds": {m: list(b) for m, b in headline_intervals(evaluation).items()}}


def intervals_html(evaluation: RunEvaluation, marks: Mapping[str, Sequence[str]]) -> str:
    """A small table for ``report.html``; a value and interval a warning marks are greyed with ⚠."""
    from aggregator.report.html import esc
    from aggregator.report.warnings_html import marked

    def cell(text: str, codes: Sequence[str]) -> str:
        return f'<td class="num{" warned" if codes else ""}">{marked(text, codes)}</td>'

    rows = "".join(
        f'<tr><th scope="row">{esc(evaluation.registry[name].label)}</th>'
        + cell(markdown_cell(evaluation.metrics[name]), marks.get(name, ()))
        + cell(interval_text(bounds), marks.get(name, ())) + "</tr>"
        for name, bounds in headline_intervals(evaluation).items()
    )
    return (f'<table class="data"><thead><tr><th>Metric</th><th class="num">Value</th><th class="num">95% CI</th>'
            f'</tr></thead><tbody>{rows}</tbody></table><p class="note">{esc(METHOD)}.</p>')
