"""``aggregate legacy``: the research script's command line, parsed by its own rules (:mod:`aggregator.legacy.options`)."""

from __future__ import annotations

import sys

import click

from aggregator.commands.exits import user_errors


@click.command(
    "legacy",
    add_help_option=False,
    context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False},
)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
@user_errors
def legacy_command(args: tuple[str, ...]) -> None:
    """The research script structural_error_aggregator.py: its flags and every file it writes.

    Exit status 0 done, 1 B1 check or sanity mode failed, 2 bad arguments or bad input
    (see `aggregate legacy --help` and docs/migration.md).
    """
    from aggregator.legacy.options import parse
    from aggregator.legacy.run import run

    sys.exit(run(parse(args)))
