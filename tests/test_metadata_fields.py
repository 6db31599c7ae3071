"""run_metadata.json written without pydantic (aggregator/outputs/metadata_fields.py) is what the
models that declare it (aggregator/outputs/metadata.py) would write, key for key and byte for byte."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from aggregator import aggregate_run
from aggregator.outputs.metadata import Reuse, RunMetadata, RunWarning, SideFileUse, SkippedLine, TaxonomyUsed
from aggregator.outputs.metadata_fields import metadata_json
from aggregator.outputs.names import METADATA_JSON
from aggregator.outputs.run_files import run_files
from aggregator.run.pipeline import evaluate_run
from aggregator.text import shown_path
from tests.conftest import CASES, CONFORMANCE, RUNS, run_cli, write_lines
from tests.scorecard_rows import item, row


def as_the_model_writes(written: bytes) -> bytes:
    return RunMetadata.model_validate_json(written).model_dump_json(indent=2).encode("utf-8") + b"\n"


@pytest.mark.parametrize("case", CASES)
def test_each_conformance_run_s_file_is_the_model_s(case: str) -> None:
    evaluation = evaluate_run(CONFORMANCE / case, skip_bad_lines=True, workers=1)
    written = run_files(evaluation)[METADATA_JSON]
    assert isinstance(written, bytes)
    assert as_the_model_writes(written) == written
    assert list(json.loads(written)) == list(RunMetadata.model_fields)


def test_skipped_lines_profile_counts_and_warnings_are_the_model_s(tmp_path: Path) -> None:
    rows = [json.dumps(row(f"s{i}", gold=[item("본품#품질", "맛")], final=[item("본품#품질", "맛", "neutral")],
                           profile="p" if i % 2 else "q"), ensure_ascii=False) for i in range(6)]
    path = write_lines(tmp_path / "scorecards.jsonl", [*rows[:3], "{not json", "[]", *rows[3:]])
    evaluation = evaluate_run(path, skip_bad_lines=True, profile="p", workers=1)
    written = run_files(evaluation)[METADATA_JSON]
    assert isinstance(written, bytes)
    found = json.loads(written)
    assert found["rows_skipped"] == 2 and found["profile"] == "p" and found["warnings"] and found["skipped_lines"]
    assert as_the_model_writes(written) == written


TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=30)


@given(TEXT, TEXT, st.dictionaries(TEXT, st.integers(0, 2**62), max_size=3),
       st.floats(0, 1e9).map(lambda seconds: round(seconds, 4)), st.none() | TEXT)
def test_the_encoding_is_pydantic_s_for_any_text_and_time(path: str, message: str, counts: dict[str, int],
                                                          seconds: float, blake3: str | None) -> None:
    model = RunMetadata(
        input_path=path, input_sha256=message, run_ids=(message, path), rows_read=1, rows_aggregated=1,
        rows_skipped=1, skipped_lines=(SkippedLine(line=3, reason=message),),
        warnings=(RunWarning(code=path, message=message, metrics=(path,), count=None),), counts=counts,
        taxonomy=TaxonomyUsed(name=message, source=path, sha256="0" * 64, refs=2),
        side_files=(SideFileUse(name=path, used=True),), workers=2, seconds=seconds,
        reuse=Reuse(input_blake3=blake3, code_sha256=path, policy_hash=message, side_files_sha256={path: blake3},
                    per_sample_parquet_sha256=message),
    )
    assert metadata_json(model.model_dump(mode="json")) == model.model_dump_json(indent=2).encode("utf-8") + b"\n"


def test_a_name_that_is_not_utf8_is_written_with_its_bytes_escaped(tmp_path: Path) -> None:
    """A traceback before: pydantic could not encode the lone surrogate Python reads such a name into."""
    path = tmp_path / os.fsdecode(b"run\xff.jsonl")
    shutil.copyfile(RUNS / "cr_n50_m0_v2__seed42" / "scorecards.jsonl", path)
    done = run_cli(path, "--outdir", tmp_path / "out", "--quiet")
    assert done.returncode in (0, 1), done.stderr
    metadata = json.loads((tmp_path / "out" / METADATA_JSON).read_bytes())
    assert metadata["input_path"] == str(tmp_path / "run\\xff.jsonl") == shown_path(path)
    assert "`run\\xff.jsonl`" in (tmp_path / "out" / "structural_metrics_table.md").read_text(encoding="utf-8")
    assert aggregate_run(path).input_path == metadata["input_path"]


SPY = """
import os, sys
exit = os._exit
def spy(code):
    print("pydantic loaded:", sorted(m for m in sys.modules if m.split(".")[0] == "pydantic"), flush=True)
    exit(code)
os._exit = spy
sys.argv = ["aggregate", *sys.argv[1:]]
from aggregator.commands.main import main
main()
"""


def test_a_run_of_the_command_never_imports_pydantic(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", SPY, str(RUNS / "cr_n50_m0_v2__seed42"), "--outdir", str(tmp_path),
                           "--quiet"], capture_output=True, text=True, check=False)
    assert done.returncode in (0, 1), done.stderr
    assert done.stdout.splitlines()[-1] == "pydantic loaded: []"
    assert (tmp_path / METADATA_JSON).exists()
