"""Mutation testing (mutmut) of the modules whose bugs would change a published number; ``make mutation``.

Each target module is mutated on its own, in a copy of the project under ``mutation/scratch/<module>``
(kept, so a rerun only checks what changed), against the fast tests that oracle it (:data:`TARGETS`);
mutmut runs, per mutant, only the selected tests that execute the mutated function. The report,
``mutation/report.md``, gives per module the mutants killed, survived, timed out and without
tests, and the score: (killed + timed out) / (all − documented equivalents). A survivor is either
killed by a new test or listed, with the reason it cannot change a result, in docs/testing.md
("Equivalent mutants", one mutant name per row); the report marks those.

    python -m tests.mutation                      # every target (hours on 2 cores)
    python -m tests.mutation stats/intervals      # one or more targets, by path under aggregator/
    python -m tests.mutation --list               # the targets and their tests
    python -m tests.mutation --report             # the report again from mutation/results/ (e.g. after
                                                  # documenting equivalents)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORK = ROOT / "mutation" / "scratch"
REPORT = ROOT / "mutation" / "report.md"
RESULTS = ROOT / "mutation" / "results"
EQUIVALENTS = ROOT / "docs" / "testing.md"

STATS = ("tests/test_stats_intervals.py", "tests/test_compare_statistics.py", "tests/test_compare_hand_worked.py",
         "tests/test_compare_components_undefined.py")
WEIGHTED = ("tests/test_stats_weighted.py", "tests/test_compare_hand_worked.py")
UNITS = ("tests/test_units.py", "tests/test_units_properties.py", "tests/test_tuples.py")
SAMPLE_COUNTS = (*UNITS, "tests/test_count_columns.py", "tests/test_warnings.py")
"""Not tests/test_conformance.py: it runs ``aggregate`` in a subprocess, whose calls mutmut's stats phase does not
see, so mutmut selects none of its tests for any mutant (checked in mutants/mutmut-stats.json)."""
FORMATS = ("tests/test_formats_content.py", "tests/test_formats_reading.py", "tests/test_formats_properties.py",
           "tests/test_formats_official.py", "tests/test_formats_lines.py", "tests/test_formats_units.py",
           "tests/test_formats_official_rules.py")
TARGETS: dict[str, tuple[str, ...]] = {
    "stats/intervals": STATS,
    "stats/components": STATS,
    "stats/bootstrap": (*WEIGHTED, "tests/test_reliability_bootstrap_memory.py"),
    "stats/sums": WEIGHTED,
    "stats/leaves": WEIGHTED,
    "stats/compile": (*WEIGHTED, "tests/test_reliability_bootstrap_memory.py"),  # _columns_read tested there
    "stats/weighted": WEIGHTED,
    "stats/agreement": ("tests/test_compare_agreement.py",),
    "metrics/exprs": ("tests/test_metrics_exprs.py", "tests/test_registry.py"),  # transitions, transition_counts
    "units/projection": UNITS,
    "units/sample_counts": SAMPLE_COUNTS,
    "formats/aste": FORMATS,
    "formats/asqp": FORMATS,
    "formats/acos": FORMATS,
    "formats/nikluge": FORMATS,
    "formats/semeval": FORMATS,
    "formats/lines": FORMATS,
    "formats/units": FORMATS,
    "formats/tally": FORMATS,
    "formats/official/aste": FORMATS,
    "formats/official/asqp": FORMATS,
    "formats/official/acos": FORMATS,
    "formats/official/gas": FORMATS,
    "formats/official/nikluge": FORMATS,
    "formats/official/semeval14": FORMATS,
    "formats/official/base": FORMATS,
}
THREADS = ("POLARS_MAX_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
"""One thread each: a mutant runs in a forked process, and a fork of a process whose thread pools are
running can hang (two mutants hung for 9 minutes at 0.3% CPU with the default pools and fork isolation)."""
STATUSES = ("killed", "survived", "timeout", "no tests", "suspicious", "skipped", "segfault", "not checked")


@dataclass
class Outcome:
    """One target's last run: counts by status, the survivors with their diffs, the minutes it took."""

    target: str
    counts: dict[str, int]
    survivors: dict[str, str]
    seconds: float

    def equivalent(self) -> list[str]:
        known = equivalents()
        return [s for s in self.survivors if s in known]

    @property
    def score(self) -> float | None:
        caught = self.counts.get("killed", 0) + self.counts.get("timeout", 0)
        judged = sum(self.counts.values()) - len(self.equivalent()) - self.counts.get("not checked", 0)
        return caught / judged if judged > 0 else None


def equivalents() -> set[str]:
    """Mutant names documented as equivalent in docs/testing.md (a table row starting with the name in backticks)."""
    if not EQUIVALENTS.exists():
        return set()
    return set(re.findall(r"^\| `([\w.]+__mutmut_\d+)` \|", EQUIVALENTS.read_text(encoding="utf-8"), re.M))


def prepare(target: str) -> Path:
    """``mutation/scratch/<target>``: the sources, tests and docs as they are now, and a pyproject with the mutmut section."""
    place = WORK / target.replace("/", "__")
    place.mkdir(parents=True, exist_ok=True)
    for name in ("aggregator", "scorecards", "tests", "docs"):  # docs: tests check the generated pages (also_copy
        # puts them in mutmut's own copy, mutants/, where the tests run)
        shutil.rmtree(place / name, ignore_errors=True)
        shutil.copytree(ROOT / name, place / name, ignore=shutil.ignore_patterns("__pycache__"))
    tests = ", ".join(f'"{t}"' for t in TARGETS[target])
    (place / "pyproject.toml").write_text(
        (ROOT / "pyproject.toml").read_text(encoding="utf-8")
        + f'\n[tool.mutmut]\nsource_paths = ["aggregator", "scorecards"]\nonly_mutate = ["aggregator/{target}.py"]\n'
        f"pytest_add_cli_args_test_selection = [{tests}]\nalso_copy = [\"docs\"]\n"
        'pytest_add_cli_args = ["-p", "no:xdist", "-q", "-x"]\nprocess_isolation = "forkserver"\n', encoding="utf-8")
    return place


def run(target: str, children: int) -> Outcome:
    place = prepare(target)
    started = time.perf_counter()
    mutmut = [sys.executable, "-m", "mutmut"]
    quiet = {**os.environ, **dict.fromkeys(THREADS, "1")}
    subprocess.run([*mutmut, "run", "--max-children", str(children)], cwd=place, stdout=subprocess.DEVNULL, check=False,
                   env=quiet)
    listed = subprocess.run([*mutmut, "results", "--all", "true"], cwd=place, capture_output=True, text=True, check=True)
    counts = dict.fromkeys(STATUSES, 0)
    survivors = {}
    module = "aggregator." + target.replace("/", ".") + "."
    for name, status in re.findall(r"^\s*([\w.]+__mutmut_\d+): (.+)$", listed.stdout, re.M):
        if not name.startswith(module):
            continue
        counts[status] = counts.get(status, 0) + 1
        if status == "survived":
            shown = subprocess.run([*mutmut, "show", name], cwd=place, capture_output=True, text=True, check=False)
            survivors[name] = "\n".join(line for line in shown.stdout.splitlines()
                                        if line.startswith(("+", "-")) and not line.startswith(("+++", "---")))
    outcome = Outcome(target, counts, survivors, time.perf_counter() - started)
    RESULTS.mkdir(parents=True, exist_ok=True)
    (RESULTS / f"{target.replace('/', '__')}.json").write_text(json.dumps(asdict(outcome), indent=1) + "\n",
                                                              encoding="utf-8")
    return outcome


def stored() -> list[Outcome]:
    """Every target's last stored run, in :data:`TARGETS` order."""
    found = [RESULTS / f"{t.replace('/', '__')}.json" for t in TARGETS]
    return [Outcome(**json.loads(p.read_text(encoding="utf-8"))) for p in found if p.exists()]


def report(outcomes: list[Outcome]) -> str:
    lines = ["# Mutation testing report", "",
             "Written by `python -m tests.mutation` (`make mutation`; docs/testing.md). Score = (killed + timeout) / "
             "(mutants − documented equivalents − not checked); survivors listed below were found by the run in the "
             "table and may have been killed by tests written since (run the module again). Targets not listed have "
             "not been run yet.", "",
             "| module | mutants | not checked | killed | timeout | survived | equivalent | no tests | score | minutes |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for o in outcomes:
        score = "—" if o.score is None else f"{o.score:.1%}"
        partial = " (run stopped early)" if o.counts.get("not checked") else ""
        lines.append(f"| `aggregator/{o.target}.py` | {sum(o.counts.values())} | {o.counts.get('not checked', 0)} | "
                     f"{o.counts['killed']} | {o.counts['timeout']} | {len(o.survivors)} | {len(o.equivalent())} | "
                     f"{o.counts['no tests']} | {score}{partial} | {o.seconds / 60:.1f} |")
    for o in outcomes:
        open_survivors = [s for s in o.survivors if s not in o.equivalent()]
        if open_survivors:
            lines += ["", f"## Survivors not documented: `aggregator/{o.target}.py`", ""]
            for name in open_survivors:
                lines += [f"- `{name}`", "", "```diff", o.survivors[name], "```"]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description="Mutation testing of the modules behind published numbers")
    parser.add_argument("targets", nargs="*", help="paths under aggregator/ without .py (default: all)")
    parser.add_argument("--children", type=int, default=2, help="mutants checked at once (default 2)")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--report", action="store_true", help="only write the report from the stored results")
    args = parser.parse_args()
    if args.list:
        for target, tests in TARGETS.items():
            print(f"aggregator/{target}.py: {' '.join(tests)}")
        return
    if args.report:
        REPORT.write_text(report(stored()), encoding="utf-8")
        return
    unknown = [t for t in args.targets if t not in TARGETS]
    if unknown:
        parser.error(f"unknown target(s) {', '.join(unknown)}; --list shows them")
    for target in args.targets or list(TARGETS):
        o = run(target, args.children)
        print(f"aggregator/{target}.py: {o.counts} score {o.score} ({o.seconds / 60:.1f} min)", flush=True)
    REPORT.write_text(report(stored()), encoding="utf-8")
    print(f"wrote {REPORT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
