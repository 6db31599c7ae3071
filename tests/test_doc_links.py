"""The README and docs link only files that exist in the repository."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_names_a_file_of_the_repository(page: Path) -> None:
    targets = [t for t in LINK.findall(page.read_text(encoding="utf-8")) if not t.startswith(("http://", "https://", "#", "mailto:"))]
    missing = [t for t in targets if not (page.parent / t.split("#")[0]).exists()]
    assert missing == [], f"{page.name} links files that do not exist: {missing}"
