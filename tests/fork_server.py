"""A process that has imported the command's pure-Python modules once and forks one child per
``aggregate`` call of the tests.

Every test that runs ``aggregate`` as a user would paid for a new interpreter and its imports of
click, rich, pydantic, msgspec and the command's own modules: ~0.1 CPU-s a process before any work,
in ~400 processes a suite. This server does that once and serves each request with ``os.fork()``:
the child takes the request's working directory, environment, standard streams and arguments and
runs :func:`aggregator.commands.main.main`, which ends the process with the command's exit status,
as ``python -m aggregator`` does.

The server stays single-threaded, as a fresh interpreter is when the command forks its decoders:
Polars stays deferred (:mod:`aggregator.deferred_import`, loaded by the child on first use, as in
the command) and NumPy is not imported (its BLAS starts a thread). Preloading Polars was tried and
dropped: a child forked after Polars had started its allocator's and cleaner threads hung once in a
suite (a lock held by a thread that does not exist in the child). The server checks at start that
it has one thread and refuses to serve otherwise.

What still differs from a fresh interpreter: the children share this server's hash seed and the
pure-Python modules' import-time state. A test that compares two processes' outputs for determinism
asks :func:`tests.conftest.run_cli` for ``fresh=True``.

Protocol, one JSON object per line on stdin: ``{"argv", "cwd", "env", "stdout", "stderr"}`` (the last
two: files the child writes its streams to); the server answers ``{"pid"}`` when the child is forked
and ``{"status"}`` (``os.waitstatus_to_exitcode``) when it ends. End of stdin ends the server.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import sys
import traceback
from typing import Any

from aggregator.deferred_import import Deferred, defer

PRELOADED = ("aggregator.commands.main", "aggregator.commands.run_outcomes", "aggregator.compare.command",
             "aggregator.formats.command", "aggregator.run.pipeline", "scorecards.reader", "pydantic", "rich.table")

COMMAND_PATH = getattr(importlib.util.find_spec("aggregator.__main__"), "origin", None) or "aggregate"
"""``sys.argv[0]`` of ``python -m aggregator``."""


def child(request: dict[str, Any]) -> None:
    """Become the command of ``request``; never returns."""
    try:
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        for fd, path, flags in ((0, os.devnull, os.O_RDONLY), (1, request["stdout"], os.O_WRONLY),
                                (2, request["stderr"], os.O_WRONLY)):
            opened = os.open(path, flags)
            os.dup2(opened, fd)
            os.close(opened)
        sys.argv = [COMMAND_PATH, *request["argv"]]
        from aggregator.commands.main import main

        main()
    except BaseException:  # a crash is the test's failure: print it as Python would
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(1)
    os._exit(0)


def serve() -> None:
    answers = sys.stdout.buffer
    for line in sys.stdin.buffer:
        request = json.loads(line)
        answers.flush()
        pid = os.fork()
        if pid == 0:
            child(request)
        answers.write(json.dumps({"pid": pid}).encode() + b"\n")
        answers.flush()
        _, status = os.waitpid(pid, 0)
        answers.write(json.dumps({"status": os.waitstatus_to_exitcode(status)}).encode() + b"\n")
        answers.flush()


def threads() -> int:
    """The threads of this process (Linux)."""
    return len(os.listdir("/proc/self/task"))


if __name__ == "__main__":
    defer("polars")
    for name in PRELOADED:
        importlib.import_module(name)
    polars = sys.modules["polars"]
    if threads() != 1 or not isinstance(polars, Deferred) or vars(polars).get("_real") is not None:
        sys.exit(f"fork server: {threads()} threads and Polars {polars!r} after the imports: refusing to fork")
    serve()
