"""What the commands print: every line with its non-printable characters escaped.

Run ids, condition names, sample keys and paths reach the terminal in summaries, notes and
error lines; an escape sequence among them must not clear the screen, set the window title or
rewrite earlier lines. Text lines go through :func:`~aggregator.text.printable`; JSON keeps its
layout, and a character a terminal could act on becomes its ``\\uXXXX`` escape (the same JSON value).
"""

from __future__ import annotations

import json

import click

from aggregator.text import printable


def say(text: str, *, err: bool = False) -> None:
    """Print ``text`` as one line (stderr with ``err``), non-printable characters escaped."""
    click.echo(printable(text), err=err)


def _json_escape(ch: str) -> str:
    return json.dumps(ch)[1:-1] if ch != "\n" else ch


def say_json(value: object) -> None:
    """Print ``value`` as indented JSON (UTF-8 as is) in which every non-printable character is escaped."""
    text = json.dumps(value, ensure_ascii=False, indent=2)
    if not text.replace("\n", "").isprintable():
        text = "".join(ch if ch.isprintable() else _json_escape(ch) for ch in text)
    click.echo(text)
