"""A process that has imported the command's modules once (all but Polars) and forks one child per
``aggregate`` call of the tests.

Every test that runs ``aggregate`` as a user would paid for a new interpreter and its imports of
click, rich, pydantic, msgspec, NumPy and the command's own modules, ~0.15 CPU-s a process before
any work (0.3 in a comparison, which also loads SciPy's special functions), in ~400 processes a
suite. This server does that once and serves each request with ``os.fork()``:
the child takes the request's working directory, environment, standard streams and arguments and
runs :func:`aggregator.commands.main.main`, which ends the process with the command's exit status,
as ``python -m aggregator`` does.

Polars stays deferred (:mod:`aggregator.deferred_import`), loaded by the child on first use as in
the command: a server that had loaded Polars, and with it the threads of its allocator and of its
out-of-core cleaner, hung a child once in a suite (the child has none of those threads, and Polars
does not start them again after a fork). The only threads the server may hold are OpenBLAS's (NumPy
and SciPy each load a copy), which OpenBLAS stops before every fork and starts again after it. The
server checks this at start and refuses to serve otherwise.

What still differs from a fresh interpreter: the children share this server's hash seed and the
modules' import-time state. A test that compares two processes' outputs for determinism
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
             "aggregator.formats.command", "aggregator.run.pipeline", "scorecards.reader", "pydantic", "rich.table",
             "numpy", "scipy.special", "aggregator.stats.intervals", "aggregator.run.intervals")

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


def blas_threads() -> int:
    """The threads OpenBLAS started (NumPy's and SciPy's copies): it stops them before a fork and starts
    them again on the next call, in the parent and in the child (``pthread_atfork``)."""
    from threadpoolctl import threadpool_info

    return sum(pool["num_threads"] - 1 for pool in threadpool_info() if pool["internal_api"] == "openblas")


if __name__ == "__main__":
    defer("polars")
    for name in PRELOADED:
        importlib.import_module(name)
    polars = sys.modules["polars"]
    if threads() != 1 + blas_threads() or not isinstance(polars, Deferred) or vars(polars).get("_real") is not None:
        sys.exit(f"fork server: {threads()} threads and Polars {polars!r} after the imports: refusing to fork")
    serve()
