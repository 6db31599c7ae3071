"""Writing to the terminal: results on stdout, warnings and errors on stderr, nothing that acts.

Run ids, condition names, sample keys and paths reach the terminal in summaries, notes,
warnings and error lines; an escape sequence among them must not clear the screen, set the
window title or rewrite earlier lines, and a newline among them must not forge a line of its
own. So every line printed goes whole through :func:`~aggregator.text.printable` (a newline in it
becomes ``\\n``); text of several lines (a rendered table) is composed by the caller from parts
escaped first and printed line by line (:func:`out_lines`). JSON keeps its layout with every
character a terminal could act on as its ``\\uXXXX`` escape (the same JSON value).

A reader that closes stdout early (``aggregate results/*/ | head -1``) must not stop the
work: once stdout is a broken pipe, further output to it is dropped and every run is still
aggregated and written. Python ignores SIGPIPE, so the closed pipe shows as
:class:`BrokenPipeError` on the first write after it; stdout is then pointed at the null
device, so that no later write or the final flush fails either.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable

import click

from aggregator.text import printable

WARNING_PREFIX = "aggregate: warning: "


def out(text: str) -> None:
    """One line on stdout, every non-printable character escaped (a newline too: a name cannot add a
    line); nothing once the reader of stdout has gone."""
    try:
        click.echo(printable(text))
    except BrokenPipeError:
        _drop_stdout()


def out_lines(lines: Iterable[str]) -> None:
    """Lines composed by the caller from escaped parts (e.g. a rendered table), each as by :func:`out`."""
    for line in lines:
        out(line)


def _drop_stdout() -> None:
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, sys.stdout.fileno())
    finally:
        os.close(devnull)


def say(text: str, *, err: bool = False) -> None:
    """A line on stdout (:func:`out`) or, with ``err``, on stderr; non-printable characters (a newline too) escaped."""
    if err:
        click.echo(printable(text), err=True)
    else:
        out(text)


def warn(text: str) -> None:
    """A warning line on stderr, yellow on a terminal (plain text otherwise), non-printable characters escaped."""
    click.secho(printable(f"{WARNING_PREFIX}{text}"), fg="yellow", err=True)


def _json_escape(ch: str) -> str:
    return json.dumps(ch)[1:-1] if ch != "\n" else ch


def json_text(value: object) -> str:
    """``value`` as indented JSON (UTF-8 as is) in which every non-printable character is escaped."""
    text = json.dumps(value, ensure_ascii=False, indent=2)
    if not text.replace("\n", "").isprintable():
        text = "".join(ch if ch.isprintable() else _json_escape(ch) for ch in text)
    return text


def say_json(value: object) -> None:
    """:func:`json_text` of ``value`` on stdout (:func:`out`)."""
    try:
        click.echo(json_text(value))
    except BrokenPipeError:
        _drop_stdout()
