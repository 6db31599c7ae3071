"""One ``aggregate legacy`` run: read once, then write the research script's files (LEGACY.md section 2).

The input is read by the project's one pipeline (:func:`~aggregator.run.pipeline.evaluate_run`,
every family and the opt-in ``legacy`` columns); every file is a writer over its per-sample table
in legacy row order (LRO: sample key, then file order) and its metrics. All files of a run are
written at the end as one atomic set (:func:`~aggregator.outputs.atomic.write_output_sets`):
bad input, a B1 failure or an unwritable path leaves no file and no folder behind. Two outputs
given one path: the later one in the script's order of work wins.
"""

from __future__ import annotations

import argparse
import os
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

import click

from aggregator.legacy.diagnostics import B1_FAILURE, B1_PASSED, b1_failure, diagnostics_files
from aggregator.legacy.metrics_files import integral_hints, metrics_csv, metrics_table
from aggregator.legacy.sanity import sanity_checks
from aggregator.legacy.snapshot import snapshot, tuple_sources
from aggregator.legacy.stage_summary import folder, stage_summary_files
from aggregator.legacy.triptych import first, risk_details, triptych, triptych_file
from aggregator.metrics.families import FAMILY_MODULES
from aggregator.metrics.override import SIDE_NAME

if TYPE_CHECKING:
    import polars as pl

    from aggregator.run.pipeline import RunEvaluation

FAMILIES = (*FAMILY_MODULES, "legacy")
EXIT_OK, EXIT_FAILED = 0, 1


def resolved(given: str) -> str:
    """The input path with its links resolved when it has any: the side file is read from the folder
    the resolved path names (IFN), as the script read it; otherwise the path as given (for messages)."""
    real = os.path.realpath(given)
    return real if real != os.path.abspath(given) else given


def legacy_rows(evaluation: RunEvaluation) -> pl.DataFrame:
    """Every row read (no ``--profile`` filter), in legacy row order: sample key, then file order."""
    rows = evaluation.all_rows if evaluation.all_rows is not None else evaluation.table
    return rows.sort("sample_key", "line")


def input_folder_name(evaluation: RunEvaluation) -> str:
    """IFN: the name of the folder holding the input (links resolved), ``run`` when it has none."""
    return Path(os.path.realpath(evaluation.input_path)).parent.name or "run"


def _place(outputs: dict[Path, bytes], path: str | os.PathLike[str], data: bytes) -> None:
    """Add an output; a path given twice keeps the later content."""
    target = Path(os.path.abspath(path))
    outputs.pop(target, None)
    outputs[target] = data


def write(outputs: dict[Path, bytes], evaluation: RunEvaluation) -> None:
    """Write every output as one atomic set, refusing to write over the input or its side file."""
    from aggregator.outputs.atomic import write_output_sets

    sets: dict[Path, dict[str, bytes]] = defaultdict(dict)
    for path, data in outputs.items():
        sets[path.parent][path.name] = data
    source = Path(evaluation.input_path)
    write_output_sets(sets, inputs=(source, source.parent / SIDE_NAME),
                      option="--outdir (or the option that names this file)")
    for path in outputs:
        click.echo(f"Wrote {path}")


def sanity_mode(options: argparse.Namespace, rows: pl.DataFrame, evaluation: RunEvaluation) -> int:
    """``--sanity-mode``: ``sanity_checks.md`` only; exit 0 on PASS, 1 on FAIL."""
    text, passed = sanity_checks(rows, options.sanity_mode, options.sanity_sample_n)
    path = Path(options.outdir) / "sanity_checks.md"
    write({Path(os.path.abspath(path)): text}, evaluation)
    if passed:
        click.echo(f"Sanity mode {options.sanity_mode} PASS.")
        return EXIT_OK
    click.echo(f"Sanity mode {options.sanity_mode} FAIL. See {path}")
    return EXIT_FAILED


def outputs_of(options: argparse.Namespace, rows: pl.DataFrame, evaluation: RunEvaluation) -> dict[Path, bytes]:
    """Every file of a run, in the script's order of work (steps 5 to 9)."""
    metrics = evaluation.metrics
    trip = triptych(rows)
    outputs: dict[Path, bytes] = {}
    if options.log_tuple_sources:
        _place(outputs, options.log_tuple_sources, tuple_sources(rows, options.log_sample_n))
    if options.diagnostics_dir:
        for name, data in diagnostics_files(trip, rows, input_folder_name(evaluation)).items():
            _place(outputs, Path(options.diagnostics_dir) / name, data)
    if options.snapshot_eval_inputs:
        _place(outputs, options.snapshot_eval_inputs, snapshot(rows, options.snapshot_sample_n, metrics))
    if options.export_triptych_table:
        as_csv = Path(options.export_triptych_table).suffix.lower() == ".csv"
        table = triptych_file(first(trip, options.triptych_sample_n), as_csv=as_csv,
                              include_text=options.triptych_include_text == 1,
                              include_debug=options.triptych_include_debug == 1)
        _place(outputs, options.export_triptych_table, table)
    if options.export_triptych_risk_details:
        _place(outputs, options.export_triptych_risk_details, risk_details(first(rows, options.triptych_sample_n)))
    summary_csv, summary_md = stage_summary_files(rows, str(metrics["aggregation_order_signature"]))
    summary_dir = folder(options.outdir)
    _place(outputs, summary_dir / "stage_summary.csv", summary_csv)
    _place(outputs, summary_dir / "stage_summary.md", summary_md)
    _place(outputs, Path(options.outdir) / "structural_metrics.csv", metrics_csv(metrics))
    side = Path(evaluation.input_path).parent / SIDE_NAME if evaluation.side_files.get(SIDE_NAME) else None
    _place(outputs, Path(options.outdir) / "structural_metrics_table.md", metrics_table(metrics, integral_hints(side)))
    return outputs


def run(options: argparse.Namespace) -> int:
    """The exit status of one run: 0 done (or sanity PASS), 1 B1 failure or sanity FAIL; bad input raises."""
    from aggregator.run.pipeline import evaluate_run

    evaluation = evaluate_run(resolved(options.input), profile=options.profile, families=FAMILIES, keep_all_rows=True)
    rows = legacy_rows(evaluation)
    if options.sanity_mode:
        return sanity_mode(options, rows, evaluation)
    if options.sanity_check or options.diagnostics_dir:
        failed = b1_failure(rows)
        if failed is not None:
            click.echo(B1_FAILURE[0].format(row=failed))
            click.echo(B1_FAILURE[1])
            return EXIT_FAILED
        click.echo(B1_PASSED)
    if options.verbose and evaluation.metrics.get("final_pred_source_aspects_path_unused_flag"):
        click.echo("aggregate legacy: no row's final tuples came from final_aspects "
                   "(final_pred_source_aspects_path_unused_flag=True)", err=True)
    write(outputs_of(options, rows, evaluation), evaluation)
    return EXIT_OK
