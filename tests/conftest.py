"""Shared fixtures: paths to vendored conformance cases and real runs, and a CLI runner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from tests.fork_client import ForkServer

settings.register_profile("ci", derandomize=True, database=None, print_blob=True, deadline=None)
"""CI's profile (``HYPOTHESIS_PROFILE=ci``, or any run with ``CI`` set): the same examples on every run, no
example database and no deadline (speed is for the benchmarks), so a property test cannot pass or fail by
chance. Local runs keep Hypothesis' random search and its database of failing examples."""
settings.register_profile("random", print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "random"))

FIXTURES = Path(__file__).parent / "fixtures"
CLI_TIMEOUT = 300
"""Seconds an ``aggregate`` process of a test may take before it is killed and the test fails."""
CONFORMANCE = FIXTURES / "conformance"
RUNS = FIXTURES / "runs"
CASES = sorted(p.name for p in CONFORMANCE.iterdir() if p.is_dir())


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", help="run larger fuzz budgets and long inputs")


LONGEST_FIRST = ("test_benchmarks", "test_report_browser", "test_compare_simulation", "test_compare_reuse",
                 "test_reliability_fuzz", "test_compare_cli", "test_run_command", "test_compare_properties",
                 "test_reliability_names", "test_compare_options", "test_reliability_outputs", "test_output_digests")
"""The test files whose tests take longest (``--durations``), started first: the two workers then end
on short tests and finish together (xdist hands out tests in collection order)."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.stem, len(rank)))
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="slow: use --run-slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def run_cli(*args: str | Path, cwd: Path | None = None, fresh: bool = False) -> subprocess.CompletedProcess[str]:
    """Run ``aggregate`` as a user would, in a process of its own: forked from the tests' fork server
    (:mod:`tests.fork_server`, the imports done once), or ``fresh`` from a new interpreter, for a test
    of what differs between processes (hash seeds, import-time state)."""
    argv = [str(arg) for arg in args]
    if fresh:
        return subprocess.run([sys.executable, "-m", "aggregator", *argv], capture_output=True, text=True, cwd=cwd,
                              timeout=CLI_TIMEOUT)
    return FORK_SERVER.run(argv, cwd=cwd)


FORK_SERVER = ForkServer(timeout=CLI_TIMEOUT)

FIFTY_CONDITIONS = pytest.mark.xdist_group(name="fifty_conditions")
"""Mark of the tests that read :func:`fifty_conditions`: one worker runs them all (``--dist loadgroup``),
so the comparison is made once."""


@pytest.fixture(scope="session")
def fifty_conditions(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path]:
    """The grid of 50 conditions × 2 seeds (:func:`tests.compare_grid.write_grid`) compared once, 10
    resamples: the result and the folder its files were written to."""
    from aggregator.compare import compare_runs
    from tests.compare_grid import write_grid

    root = tmp_path_factory.mktemp("fifty_conditions")
    source = write_grid(root / "grid" / "scorecards.jsonl", 50, 2)
    return compare_runs([source], resamples=10, outdir=root / "out"), root / "out"


def write_lines(path: Path, lines: list[str] | list[bytes]) -> Path:
    """Write a scorecards file from lines (str or bytes), newline-terminated."""
    data = b"".join((line.encode() if isinstance(line, str) else line) + b"\n" for line in lines)
    path.write_bytes(data)
    return path
