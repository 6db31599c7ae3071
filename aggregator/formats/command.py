"""``aggregate score GOLD PRED --format F`` and ``aggregate convert GOLD PRED --format F``.

Only click is imported here; readers and scorers load when a command runs, so
``aggregate --help`` stays fast.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from aggregator.commands.exits import user_errors
from aggregator.commands.terminal import out, say_json
from aggregator.formats import FORMAT_NAMES

VARIANTS = ("nikluge-prefix-2022-10 (pre_fix_2022_10), aste-gts (gts_score_uniontags), aste-gas "
            "(gas_compute_scores_extraction), aste-gas-fixed (fixed_editdistance), asqp-tuple-level "
            "(tuple_level_compute_f1_scores)")
_FILE = click.Path(path_type=Path, readable=False)
F = TypeVar("F", bound=Callable[..., Any])


def _inputs(command: F) -> F:
    """The GOLD and PRED arguments and ``--format``, shared by both commands."""
    for decorator in reversed((
        click.argument("gold", type=_FILE),
        click.argument("pred", type=_FILE),
        click.option("--format", "format_name", type=click.Choice(FORMAT_NAMES), required=True,
                     help="Format of both files."),
    )):
        command = decorator(command)
    return command


@click.command("score")
@_inputs
@click.option("--semantics", type=click.Choice(["sound", "official"]), default="sound", show_default=True,
              help="Which number the summary shows first; both are always computed and written.")
@click.option("--compat", default="official", show_default=True, metavar="SCORER",
              help=f"The official scorer to reproduce: official, or a named variant: {VARIANTS}.")
@click.option("--json", "as_json", is_flag=True,
              help="Print official, sound, the compat report and the tables as JSON.")
@click.option("--outdir", type=_FILE,
              help="Write score.json, units.csv, per_sentence.{parquet,csv} and compat_report.md here.")
@click.option("--quiet", "-q", is_flag=True, help="No summary on stdout.")
@click.option("--errors", is_flag=True,
              help="Also classify every gold and predicted tuple of the main units: exact, polarity, category, "
                   "aspect/opinion boundary, implicit, spurious, missed (docs/errors.md); in --json as \"errors\".")
@user_errors
def score_command(gold: Path, pred: Path, format_name: str, semantics: str, compat: str, as_json: bool,
                  outdir: Path | None, quiet: bool, errors: bool) -> None:
    """Score PRED against GOLD soundly and as the format's official scorer, with the compat report."""
    from aggregator.formats.evaluate import evaluate
    from aggregator.formats.payload import payload, summary_lines

    evaluation = evaluate(gold, pred, format_name, compat)
    body = payload(evaluation, semantics)
    found = None
    if errors:
        from aggregator.formats.errors import anatomy

        found = body["errors"] = anatomy(evaluation)
    written = []
    if outdir is not None:
        from aggregator.formats.files import score_files
        from aggregator.outputs.atomic import write_outputs

        written = write_outputs(outdir, score_files(evaluation, body, semantics))
    if as_json:
        say_json(body)
    elif not quiet:
        for line in summary_lines(evaluation, semantics):
            out(line)
        if found is not None:
            from aggregator.formats.errors import anatomy_lines

            for line in anatomy_lines(found):
                out(line)
        if written:
            out(f"wrote {len(written)} files to {outdir}")


@click.command("convert")
@_inputs
@click.option("--out", "out", type=_FILE, help="Scorecards .jsonl to write (atomically) [default: stdout].")
@click.option("--run-id", help="run_id of the rows [default: the prediction file's name without suffix].")
@user_errors
def convert_command(gold: Path, pred: Path, format_name: str, out: Path | None, run_id: str | None) -> None:
    """Write GOLD and PRED as scorecards JSONL, one row per sentence, for `aggregate RUN`."""
    from aggregator.formats.convert import scorecard_rows
    from aggregator.formats.evaluate import read_pairs

    spec, pairs = read_pairs(gold, pred, format_name)
    rows = scorecard_rows(spec, pairs, run_id or pred.stem)
    data = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode()
    if out is None:
        sys.stdout.buffer.write(data)
        return
    from aggregator.outputs.atomic import write_outputs

    write_outputs(out.parent if str(out.parent) else Path("."), {out.name: data})
