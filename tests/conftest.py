"""Shared fixtures: paths to vendored conformance cases and real runs, and a CLI runner."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, print_blob=True, deadline=None)
"""CI's profile (``HYPOTHESIS_PROFILE=ci``, or any run with ``CI`` set): the same examples on every run, no
example database and no deadline (speed is for the benchmarks), so a property test cannot pass or fail by
chance. Local runs keep Hypothesis' random search and its database of failing examples."""
settings.register_profile("random", print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "random"))

FIXTURES = Path(__file__).parent / "fixtures"
CONFORMANCE = FIXTURES / "conformance"
RUNS = FIXTURES / "runs"
CASES = sorted(p.name for p in CONFORMANCE.iterdir() if p.is_dir())


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--run-slow", action="store_true", help="run larger fuzz budgets and long inputs")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.getoption("--run-slow"):
        return
    skip = pytest.mark.skip(reason="slow: use --run-slow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


def run_cli(*args: str | Path, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``aggregate`` as a user would, in a fresh process."""
    return subprocess.run(
        [sys.executable, "-m", "aggregator", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=300,
    )


def write_lines(path: Path, lines: list[str] | list[bytes]) -> Path:
    """Write a scorecards file from lines (str or bytes), newline-terminated."""
    data = b"".join((line.encode() if isinstance(line, str) else line) + b"\n" for line in lines)
    path.write_bytes(data)
    return path
