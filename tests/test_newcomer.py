"""What a newcomer meets first: ``make demo`` and the README's next command, and what the README
promises about the test suite and the columns that differ from the research tool."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.test_conformance import FILLED_HERE, PROVENANCE

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def demo_commands() -> list[str]:
    """The ``aggregate`` lines of the Makefile's ``demo`` recipe, its variables filled in."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    variables = dict(re.findall(r"^(\w+) := (.*)$", makefile, re.M))
    recipe = makefile.split("\ndemo:", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    commands = []
    for line in recipe:
        line = line.strip().replace("$(BIN)/aggregate", "aggregate")
        commands.append(re.sub(r"\$\((\w+)\)", lambda m: variables[m.group(1)], line))
    return commands


def test_make_demo_leaves_results_holding_runs_only(tmp_path: Path) -> None:
    """The demo's commands, run in a copy of the project's data, then the README's ``aggregate results/*/``."""
    shutil.copytree(ROOT / "results", tmp_path / "results", ignore=shutil.ignore_patterns("derived"))
    shutil.copytree(ROOT / "tests" / "fixtures" / "runs", tmp_path / "tests" / "fixtures" / "runs")
    commands = demo_commands()
    assert [c.split()[:2] for c in commands] == [["aggregate", "results/cr_n50_m1_v2__seed42"],
                                                 ["aggregate", "compare"]]
    for command in commands:
        argv = command.split()[1:]
        if "compare" in argv:
            argv += ["--resamples", "50"]
        runs = [str(p.relative_to(tmp_path)) for p in sorted((tmp_path / "tests/fixtures/runs").iterdir())]
        argv = [a for arg in argv for a in (runs if arg.endswith("/*") else [arg])]
        done = subprocess.run([sys.executable, "-m", "aggregator", *argv, "-q"], cwd=tmp_path, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    assert [p.name for p in (tmp_path / "results").iterdir()] == ["cr_n50_m1_v2__seed42"]
    assert (tmp_path / "comparison" / "comparison.md").is_file()
    assert "/comparison/" in (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    after = subprocess.run([sys.executable, "-m", "aggregator", "results/cr_n50_m1_v2__seed42/", "-q"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=300)
    assert after.returncode == 0, after.stderr  # what `aggregate results/*/` expands to


def test_the_readme_names_the_columns_that_differ_from_the_research_tool() -> None:
    section = README.split("differ from the research tool's by design")[1].split("## One run")[0]
    for column in sorted(PROVENANCE | FILLED_HERE):
        assert f"`{column}`" in section, column
    assert "Six of the 230 columns" in README and len(PROVENANCE | FILLED_HERE) == 6


def test_the_readme_says_what_the_browser_tests_need() -> None:
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "chromium fonts-nanum" in ci and "HYPOTHESIS_PROFILE=ci" in ci
    assert "`chromium`" in README and "`fonts-nanum`" in README and "tests/test_report_browser.py" in README
