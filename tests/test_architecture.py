"""The layout holds: wings, no import cycle, small files, a shallow chain of imports at load time.

Imports are read with :mod:`ast` from the source files of the project's packages (``aggregator``,
``scorecards``): ``import a.b`` and ``from a import b`` (b a module, else the package ``a``),
relative ones resolved. An import under ``if TYPE_CHECKING:`` never runs, so it counts nowhere.
*Every* import counts for cycles (one inside a function runs when the function does); only those
run while the module loads (its top level, class bodies included, not function bodies) count for
the load-time chain. Imports by string (``importlib.import_module``) are not seen.

The deepest load-time chain was 15 modules before the wings, 10 after, 9 since ``TRANSITIONS`` moved
from ``run.per_sample`` to ``units.projection`` (the report no longer loads the per-sample table code).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("aggregator", "scorecards")
MAX_LINES = 300
MAX_CHAIN = 9
TOP_LEVEL = {"__init__", "__main__", "version"}
MAX_TOP_HELPERS = 3
SMALL_HELPER_LINES = 150


@dataclass
class Module:
    """One source file: its dotted name, line count and the project modules it imports."""

    name: str
    path: Path
    """The file, relative to the directory holding the packages."""
    lines: int
    imports: set[str] = field(default_factory=set)
    """Every import (top level or in a function), TYPE_CHECKING blocks left out."""
    load_imports: set[str] = field(default_factory=set)
    """The imports run while the module loads."""


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _targets(node: ast.Import | ast.ImportFrom, module: str, is_package: bool, known: set[str]) -> set[str]:
    """The project modules an import statement loads."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names if alias.name in known}
    base = node.module or ""
    if node.level:
        parts = module.split(".") if is_package else module.split(".")[:-1]
        parts = parts[:len(parts) - node.level + 1]
        base = ".".join(parts + ([base] if base else []))
    found = set()
    for alias in node.names:
        if f"{base}.{alias.name}" in known:
            found.add(f"{base}.{alias.name}")
        elif base in known:
            found.add(base)
    return found


def _walk(node: ast.AST, at_load: bool, visit: Callable[[ast.Import | ast.ImportFrom, bool], None]) -> None:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        visit(node, at_load)
        return
    if isinstance(node, ast.If) and _is_type_checking(node.test):
        children: list[ast.AST] = list(node.orelse)
    else:
        children = list(ast.iter_child_nodes(node))
    at_load = at_load and not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
    for child in children:
        _walk(child, at_load, visit)


def read_modules(root: Path, packages: tuple[str, ...]) -> dict[str, Module]:
    """Every module of ``packages`` (directories under ``root``) with the project modules it imports."""
    paths = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            paths[".".join(parts)] = path
    known = set(paths)
    modules = {}
    for name, path in paths.items():
        text = path.read_text(encoding="utf-8")
        module = Module(name, path.relative_to(root), len(text.splitlines()))

        def visit(node: ast.Import | ast.ImportFrom, at_load: bool, module: Module = module, path: Path = path) -> None:
            found = _targets(node, module.name, path.name == "__init__.py", known) - {module.name}
            module.imports |= found
            if at_load:
                module.load_imports |= found

        _walk(ast.parse(text, filename=str(path)), True, visit)
        modules[name] = module
    return modules


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as a list of modules (first == last), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start)) is not None:
            return found
    return None


def deepest_chain(graph: dict[str, set[str]]) -> list[str]:
    """The longest chain of imports (as modules, the importer first) in an acyclic ``graph``."""
    best: dict[str, list[str]] = {}

    def longest(node: str, seen: frozenset[str]) -> list[str]:
        if node in best:
            return best[node]
        if node in seen:
            raise ValueError(f"import cycle through {node}")
        tails = [longest(nxt, seen | {node}) for nxt in sorted(graph.get(node, ()))]
        best[node] = [node] + max(tails, key=len, default=[])
        return best[node]

    return max((longest(node, frozenset()) for node in sorted(graph)), key=len, default=[])


def loose_modules(modules: dict[str, Module], package: str) -> list[Module]:
    """The modules directly in ``package`` other than ``__init__``, ``__main__`` and ``version``."""
    return [m for m in modules.values() if m.path.parent == Path(package) and m.path.stem not in TOP_LEVEL]


def long_files(modules: dict[str, Module], limit: int = MAX_LINES) -> list[str]:
    """``path: N lines`` of every file over ``limit`` lines."""
    return [f"{m.path.as_posix()}: {m.lines} lines" for m in modules.values() if m.lines > limit]


@pytest.fixture(scope="module")
def project() -> dict[str, Module]:
    return read_modules(ROOT, PACKAGES)


def test_only_a_few_small_helpers_sit_directly_in_aggregator(project: dict[str, Module]) -> None:
    loose = loose_modules(project, "aggregator")
    assert len(loose) <= MAX_TOP_HELPERS, f"modules directly in aggregator/ (put them in a wing): {sorted(m.name for m in loose)}"
    big = [f"{m.name} ({m.lines} lines)" for m in loose if m.lines > SMALL_HELPER_LINES]
    assert not big, f"a shared helper directly in aggregator/ is not small (over {SMALL_HELPER_LINES} lines): {big}"


def test_no_import_cycle(project: dict[str, Module]) -> None:
    cycle = find_cycle({m.name: m.imports for m in project.values()})
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_no_file_over_the_line_limit(project: dict[str, Module]) -> None:
    assert not long_files(project), f"files over {MAX_LINES} lines: {long_files(project)}"


def test_the_load_time_import_chain_stays_shallow(project: dict[str, Module]) -> None:
    chain = deepest_chain({m.name: m.load_imports for m in project.values()})
    assert len(chain) <= MAX_CHAIN, f"load-time import chain of {len(chain)} modules (at most {MAX_CHAIN}): " + " -> ".join(chain)


def _fake(tmp_path: Path, files: dict[str, str]) -> dict[str, Module]:
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return read_modules(tmp_path, ("pkg",))


def test_the_checker_finds_a_cycle_through_a_function_but_not_through_type_checking(tmp_path: Path) -> None:
    modules = _fake(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/a.py": "from pkg import b\n",
        "pkg/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import x\n",
        "pkg/c.py": "import pkg.d\n",
        "pkg/d.py": "def f():\n    from . import c\n    return c\n",
    })
    assert modules["pkg.b"].imports == set()
    assert modules["pkg.d"].imports == {"pkg.c"} and modules["pkg.d"].load_imports == set()
    assert find_cycle({m.name: m.imports for m in modules.values()}) == ["pkg.c", "pkg.d", "pkg.c"]
    assert find_cycle({m.name: m.load_imports for m in modules.values()}) is None


def test_the_checker_measures_chains_files_and_loose_modules(tmp_path: Path) -> None:
    modules = _fake(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/version.py": "",
        "pkg/loose.py": "x = 1\n" * 5,
        "pkg/wing/__init__.py": "",
        "pkg/wing/a.py": "from pkg.wing.b import y\nclass K:\n    from pkg import loose\n",
        "pkg/wing/b.py": "try:\n    from .c import z\nexcept ImportError:\n    pass\n",
        "pkg/wing/c.py": "def g():\n    import pkg.version\n",
    })
    chain = deepest_chain({m.name: m.load_imports for m in modules.values()})
    assert chain == ["pkg.wing.a", "pkg.wing.b", "pkg.wing.c"]
    assert [m.name for m in loose_modules(modules, "pkg")] == ["pkg.loose"]
    assert long_files(modules, limit=4) == ["pkg/loose.py: 5 lines"]
    with pytest.raises(ValueError, match="import cycle"):
        deepest_chain({"x": {"y"}, "y": {"x"}})
