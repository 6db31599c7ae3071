"""Every output file of the 22 vendored folders and of the 13 runs' comparison is the same bytes as
``main`` wrote before the speed work (``tests/output_digests.py`` says how the digests were taken)."""

from __future__ import annotations

import json

from tests.output_digests import DIGESTS, compute


def test_every_output_file_is_byte_identical_to_the_recorded_one() -> None:
    expected = json.loads(DIGESTS.read_text(encoding="utf-8"))
    found = compute()
    assert sorted(found) == sorted(expected), "the set of output files changed"
    changed = [name for name in expected if found[name] != expected[name]]
    assert not changed, f"{len(changed)} output file(s) differ: {changed}"
