"""Run a case's ``expected_legacy/COMMANDS.txt`` with ``aggregate legacy`` (LEGACY.md section 11).

As the shared procedure says: from a folder named like the case, holding its scorecards (and side
file), each line with ``$SCRIPT`` = ``aggregate legacy`` and ``$OUT`` = a fresh folder; after each
line its exit status goes to ``$OUT/<run>/exit_status.txt`` and, when it wrote no file, its
stdout to ``$OUT/<run>/stdout.txt``. Lines run in this process (the command's own entry point
minus the interpreter start); ``tests/test_legacy_repo.py`` runs the real command.
"""

from __future__ import annotations

import contextlib
import io
import shlex
import shutil
from pathlib import Path

from aggregator.legacy.options import parse
from aggregator.legacy.run import run

INPUT_FILES = ("scorecards.jsonl", "override_gate_debug_summary.json")


def command_lines(expected: Path) -> list[tuple[str, list[str]]]:
    """``(run name, arguments)`` of each line of ``COMMANDS.txt``, ``$OUT`` as ``out``."""
    found = []
    for line in (expected / "COMMANDS.txt").read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name, command = line.split("\t", 1)
        words = shlex.split(command.replace("$OUT", "out"))
        assert words[0] == "$SCRIPT", line
        found.append((name, words[1:]))
    return found


def run_in_process(args: list[str], cwd: Path) -> tuple[int, str]:
    """Exit status and stdout of ``aggregate legacy ARGS`` run from ``cwd``."""
    printed = io.StringIO()
    with contextlib.chdir(cwd), contextlib.redirect_stdout(printed):
        try:
            status = run(parse(args))
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else 1
    return status, printed.getvalue()


def run_case(case: Path, workdir: Path) -> Path:
    """Run every line of ``case``'s command set into ``workdir/<case name>/out``; return that folder."""
    home = workdir / case.name
    home.mkdir(parents=True)
    for name in INPUT_FILES:
        if (case / name).exists():
            shutil.copy(case / name, home / name)
    out = home / "out"
    for name, args in command_lines(case / "expected_legacy"):
        folder = out / name
        folder.mkdir(parents=True, exist_ok=True)
        status, printed = run_in_process(args, home)
        wrote = any(p.is_file() for p in folder.rglob("*"))
        (folder / "exit_status.txt").write_text(f"{status}\n")
        if not wrote:
            (folder / "stdout.txt").write_text(printed, encoding="utf-8")
    return out
