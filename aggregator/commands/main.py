"""Command line: ``aggregate RUN...`` and ``aggregate compare RUN...``.

User errors (bad input, unwritable output) print one line to stderr and exit 2.
Heavy imports happen inside the commands so ``aggregate --help`` starts fast.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable
from types import FrameType

import click

from aggregator.commands import allocator
from aggregator.commands.run import run_command
from aggregator.commands.samples import samples_command
from aggregator.commands.stack_room import with_room
from aggregator.commands.terminal import say
from aggregator.compare.command import compare_command
from aggregator.deferred_import import defer
from aggregator.formats.command import convert_command, score_command
from aggregator.legacy.command import legacy_command
from aggregator.stats import blas

NO_ARGS_IS_HELP: type[click.UsageError] | tuple[()] = getattr(click.exceptions, "NoArgsIsHelpError", ())
"""Click 8.2 raises it for a bare ``aggregate``; the help it carries is shown as it is."""

EXIT_INTERRUPTED = 130
"""Exit status of a run stopped with Ctrl-C (128 + SIGINT, as shells report it)."""


IMPLICIT_RUN = "aggregate.implicit_run"
"""``ctx.meta`` key: the user typed ``aggregate RUN...``, not ``aggregate run RUN...``."""


class DefaultRunGroup(click.Group):
    """A group whose default command is ``run``: ``aggregate RUN...`` means ``aggregate run RUN...``.

    Its help ends with the options of ``aggregate RUN...``, so that a usage error of that
    command can point to ``aggregate --help``, the command the user typed."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in ("--help", "-h", "--version"):
            args = ["run", *args]
            ctx.meta[IMPLICIT_RUN] = True
        return super().parse_args(ctx, args)

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_help(ctx, formatter)
        run = self.commands["run"]
        records = [r for r in (p.get_help_record(ctx) for p in run.params)
                   if r is not None]
        with formatter.section("Options of aggregate RUN..."):
            formatter.write_dl(records)


def help_command(ctx: click.Context) -> str:
    """The help to point to after a usage error: that of the command as the user typed it."""
    if ctx.meta.get(IMPLICIT_RUN) and ctx.command.name == "run":
        return "aggregate --help"
    return f"{ctx.command_path} --help"


def main() -> None:
    """Entry point: run the command, flush, and exit without tearing down the interpreter.

    Every output is written and fsynced before this point; skipping interpreter
    finalization (freeing the per-sample table, unloading Polars) saves ~0.15 s. The
    cyclic garbage collector is off for the command: it is one pass whose objects hold
    no cycles and live until exit, and its passes over the imported modules cost ~0.03 s.
    Polars is imported on first use (:mod:`aggregator.deferred_import`), after the decoders fork.
    The command runs with room on the frame stack (:mod:`~aggregator.commands.stack_room`), and with one
    BLAS thread (:mod:`~aggregator.stats.blas`).
    A usage error (unknown option, bad value) is one line in the style of every other error.
    """
    gc.disable()
    allocator.default()
    blas.one_thread()
    defer("polars")
    signal.signal(signal.SIGINT, _interrupt_in(os.getpid()))
    _forked_processes_die_with_their_parent()
    try:
        code = with_room(_run)
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if isinstance(exc.code, str):
            click.echo(exc.code, err=True)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)


def _interrupt_in(pid: int) -> Callable[[int, FrameType | None], None]:
    """A SIGINT handler that interrupts process ``pid`` only: the decoding processes it forks
    inherit it and go on (Ctrl-C reaches the whole process group), to be ended by it."""

    def handler(signum: int, frame: FrameType | None) -> None:
        if os.getpid() == pid:
            raise KeyboardInterrupt

    return handler


_FORKED_BY: list[int] = [0]
PR_SET_PDEATHSIG = 1


def _forked_processes_die_with_their_parent() -> None:
    """Every process the command forks (decoders, the pool of runs) is killed when its parent
    dies (Linux ``PR_SET_PDEATHSIG``): a command killed with SIGKILL leaves no process behind
    waiting forever for work. Elsewhere, or where ``prctl`` is missing, nothing changes."""
    if not sys.platform.startswith("linux"):
        return
    import ctypes

    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return

    def before() -> None:
        _FORKED_BY[0] = os.getpid()

    def in_child() -> None:
        if prctl(PR_SET_PDEATHSIG, signal.SIGKILL) == 0 and os.getppid() != _FORKED_BY[0]:
            os._exit(1)  # the parent died before the signal was set

    os.register_at_fork(before=before, after_in_child=in_child)


def _run() -> int:
    """The command's exit status. A usage error (unknown option, bad value) is one line in the
    style of every other error; Ctrl-C is one line and :data:`EXIT_INTERRUPTED` (no traceback,
    no click "Aborted!"): the processes it started are ended, and outputs being written are left
    as they were (:mod:`aggregator.outputs.atomic`)."""
    try:
        returned = cli.main(prog_name="aggregate", standalone_mode=False)
    except NO_ARGS_IS_HELP as exc:
        click.echo(exc.format_message(), err=True)
        return exc.exit_code
    except click.UsageError as exc:
        where = f" (see '{help_command(exc.ctx)}')" if exc.ctx is not None else ""
        message = " ".join(exc.format_message().split()).rstrip(".")  # click lays some out over lines, with tabs
        say(f"aggregate: error: {message}{where}", err=True)
        return exc.exit_code
    except click.ClickException as exc:
        say(f"aggregate: error: {exc.format_message()}", err=True)
        return exc.exit_code
    except (click.exceptions.Abort, KeyboardInterrupt):
        for child in multiprocessing.active_children():
            child.terminate()
        click.echo("aggregate: interrupted", err=True)
        return EXIT_INTERRUPTED
    return returned if isinstance(returned, int) else 0


@click.group(cls=DefaultRunGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="absa-aggregator")
def cli() -> None:
    """Structural metrics for ABSA scorecards.

    \b
    aggregate RUN...              metrics of each run (directory or scorecards .jsonl)
    aggregate compare RUN...      conditions, seeds, paired statistics
    aggregate samples RUN         the samples behind the numbers (--only misses|fixes|breaks|changed)
    aggregate score GOLD PRED     any ABSA format, sound and as its official scorer
    aggregate convert GOLD PRED   any ABSA format as scorecards, for aggregate RUN
    aggregate legacy --input F    the research script's command line and files (docs/migration.md)
    """


cli.add_command(run_command)
cli.add_command(compare_command)
cli.add_command(samples_command)
cli.add_command(score_command)
cli.add_command(convert_command)
cli.add_command(legacy_command)
