"""``aggregate legacy`` writes what the research script wrote, on every vendored case and real run,
for every command line of its ``COMMANDS.txt`` (LEGACY.md section 11), compared by the project's
own rules (:mod:`tests.legacy_compare`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import CONFORMANCE, RUNS
from tests.legacy_compare import compare_file, compare_folders
from tests.legacy_runner import command_lines, run_case

FOLDERS = {
    **{f"case/{p.name}": p for p in sorted(CONFORMANCE.iterdir()) if (p / "expected_legacy").is_dir()},
    **{f"run/{p.name}": p for p in sorted(RUNS.iterdir()) if (p / "expected_legacy").is_dir()},
}


def test_every_shared_folder_is_vendored() -> None:
    assert len(FOLDERS) == 23
    assert "case/synth_legacy_edge_pub" in FOLDERS
    for folder in FOLDERS.values():
        names = [name for name, _ in command_lines(folder / "expected_legacy")]
        assert names == ["full", "tsv_debug", "limits", "sanity_gold_gold", "sanity_pred_pred", "sanity_ref_split"]


@pytest.mark.parametrize("name", list(FOLDERS))
def test_every_command_line_matches_the_research_script(name: str, tmp_path: Path) -> None:
    folder = FOLDERS[name]
    out = run_case(folder, tmp_path)
    assert compare_folders(out, folder / "expected_legacy") == {}


def test_the_comparison_catches_differences(tmp_path: Path) -> None:
    expected = CONFORMANCE / "synth_legacy_edge_pub" / "expected_legacy" / "full"
    csv = (expected / "triptych.csv").read_bytes()
    changed = tmp_path / "triptych.csv"
    changed.write_bytes(csv.replace(b"\r\n", b"\n"))
    assert compare_file("triptych.csv", changed, expected / "triptych.csv")
    changed.write_bytes(csv.replace(b",not evaluated for explicit F1,", b",,", 1))
    assert compare_file("triptych.csv", changed, expected / "triptych.csv")
    summary_path = expected / "derived" / "stage_summary.csv"
    summary = summary_path.read_bytes()
    signature = b"563e73c0e9ef6cc399cf1e5e16154f3def4a278f"
    cases = [(b"0.0949367088607595", b"0.094936", True),  # off by 7e-7
             (b"0.0949367088607595", b"0.09493670886", False),  # off by 6e-13: within 1e-9
             (signature, b"another signature", False),  # provenance: any non-blank value
             (signature, b"", True)]
    shifted = tmp_path / "stage_summary.csv"
    for before, after, differs in cases:
        shifted.write_bytes(summary.replace(before, after))
        assert bool(compare_file("derived/stage_summary.csv", shifted, summary_path)) is differs, after
    snapshot = (expected / "snapshot.json").read_text(encoding="utf-8")
    compact = tmp_path / "snapshot.json"
    compact.write_text(snapshot.replace("\n  ", "\n "), encoding="utf-8")
    assert compare_file("snapshot.json", compact, expected / "snapshot.json")
