"""``benchmarks/RESULTS.md``: each benchmark script rewrites only its own marked section.

The analysis around the sections is written by hand from the numbers; a section is the
text between ``<!-- begin NAME -->`` and ``<!-- end NAME -->`` (appended when missing).
"""

from __future__ import annotations

import os
import platform
import time
from importlib import metadata
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def write_section(name: str, text: str, path: Path = RESULTS) -> None:
    """Replace section ``name`` of ``path`` with ``text`` (atomically)."""
    begin, end = f"<!-- begin {name} -->", f"<!-- end {name} -->"
    block = f"{begin}\n{text.rstrip()}\n{end}"
    current = path.read_text(encoding="utf-8") if path.exists() else "# Benchmark results\n"
    if begin in current and end in current:
        head, rest = current.split(begin, 1)
        updated = head + block + rest.split(end, 1)[1]
    else:
        updated = current.rstrip() + "\n\n" + block + "\n"
    tmp = path.with_suffix(".md.tmp")
    tmp.write_text(updated, encoding="utf-8")
    tmp.replace(path)


def machine() -> str:
    """Cores, CPU model, memory, Python and OS of this machine, for the header of a section."""
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30
    return f"{os.cpu_count()} cores ({cpu}), {mem:.0f} GiB RAM, Python {platform.python_version()}, {platform.system()}"


LIBRARIES = ("polars", "msgspec", "pydantic", "numpy")
"""The libraries whose speed the numbers depend on: a new release can move them (see RESULTS.md)."""


def libraries() -> str:
    """Installed versions of :data:`LIBRARIES`, e.g. ``polars 2.1.0, msgspec 0.22.0``."""
    versions = []
    for name in LIBRARIES:
        try:
            versions.append(f"{name} {metadata.version(name)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{name} not installed")
    return ", ".join(versions)


def measured_by(command: str) -> str:
    """The first line of a section: the machine, the libraries, today's date and the command that measured it."""
    return f"Machine: {machine()}; {libraries()}. Measured {time.strftime('%Y-%m-%d')} by `{command}`."
