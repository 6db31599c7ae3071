"""Writing to the terminal: results on stdout, warnings on stderr (yellow on a terminal).

A reader that closes stdout early (``aggregate results/*/ | head -1``) must not stop the
work: once stdout is a broken pipe, further output to it is dropped and every run is still
aggregated and written. Python ignores SIGPIPE, so the closed pipe shows as
:class:`BrokenPipeError` on the first write after it; stdout is then pointed at the null
device, so that no later write or the final flush fails either.
"""

from __future__ import annotations

import os
import sys

import click

WARNING_PREFIX = "aggregate: warning: "


def out(text: str) -> None:
    """A line on stdout; nothing once the reader of stdout has gone."""
    try:
        click.echo(text)
    except BrokenPipeError:
        _drop_stdout()


def _drop_stdout() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    finally:
        os.close(devnull)


def warn(text: str) -> None:
    """A warning line on stderr, yellow on a terminal (plain text otherwise)."""
    click.secho(f"{WARNING_PREFIX}{text}", fg="yellow", err=True)
