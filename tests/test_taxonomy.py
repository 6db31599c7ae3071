"""The taxonomy of valid refs: shipped as package data, replaced with --taxonomy FILE."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from aggregator import aggregate_run
from aggregator.units.taxonomy import default_taxonomy, is_valid_ref, load_taxonomy, taxonomy_in_force, use_taxonomy
from scorecards.errors import InputError
from tests.conftest import RUNS, run_cli

RUN = RUNS / "cr_n50_m1_v2__seed42"
OTHER = RUNS / "cr_n50_m2_v2__seed42"


@pytest.fixture
def copies(tmp_path: Path) -> Path:
    """A taxonomy whose keys are surface terms the real runs copy into their refs."""
    path = tmp_path / "taxonomy.json"
    path.write_text(json.dumps({"name": "terms", "refs": ["뒷백", " 각진  인생 ", "패키지/구성품 # 일반"]}), encoding="utf-8")
    return path


def test_the_default_is_the_shipped_nikluge_taxonomy() -> None:
    taxonomy = default_taxonomy()
    assert taxonomy.source == "default" and len(taxonomy.refs) == 25
    assert {"제품 전체#일반", "패키지·구성품#다양성", "브랜드#인지도"} <= taxonomy.refs
    assert "브랜드#편의성" not in taxonomy.refs


def test_a_taxonomy_file_is_normalized_like_input_refs(copies: Path) -> None:
    taxonomy = load_taxonomy(copies)
    assert taxonomy.refs == {"뒷백", "각진 인생", "패키지·구성품#일반"} and taxonomy.name == "terms"


@pytest.mark.parametrize(("content", "reason"), [
    (b"[]", "not a taxonomy file"),
    (b'{"refs": []}', "at least one ref"),
    (b'{"refs": [""]}', "no empty one"),
    (b'{"refs": ["a"], "extra": 1}', "not a taxonomy file"),
    (b"\xff", ":1: not UTF-8"),
    ('{"name": "한국",\n "refs": ["본품#품질"]}'.encode("cp949"), ":1: not UTF-8 (byte 0xc7)"),
    ('{"refs":\n ["café#x"]}'.encode("latin-1"), ":2: not UTF-8 (byte 0xe9)"),
    (b'{"refs":\n ["a#b"', ":2: not a taxonomy file"),
    (b"[" * 100_000, ": not a taxonomy file"),
])
def test_a_malformed_taxonomy_is_a_one_line_error(tmp_path: Path, content: bytes, reason: str) -> None:
    path = tmp_path / "t.json"
    path.write_bytes(content)
    """A taxonomy in CP949 or Latin-1 raised UnicodeDecodeError, also from the API (issue #25): now
    ``FILE:LINE: reason`` where the line is known, an :class:`InputError` from the API."""
    with pytest.raises(InputError, match=re.escape(reason)):
        load_taxonomy(path)
    with pytest.raises(InputError, match=re.escape(reason)):
        aggregate_run(RUN, taxonomy=path)
    done = run_cli(RUN, "--outdir", tmp_path / "out", "--taxonomy", path)
    assert done.returncode == 2 and not (tmp_path / "out").exists()
    [line] = done.stderr.splitlines()
    assert line.startswith(f"aggregate: error: {path}") and reason in line


def test_the_taxonomy_decides_validity_in_every_run_and_is_recorded(copies: Path, tmp_path: Path) -> None:
    done = run_cli(RUN, OTHER, "--outdir", tmp_path / "out", "--taxonomy", copies, "--workers", "2", "--json")
    assert done.returncode == 0, done.stderr
    for entry, run in zip(json.loads(done.stdout)["runs"], (RUN, OTHER)):
        assert entry["metrics"]["ref_valid_rate_s2"] > 0
        metadata = json.loads((tmp_path / "out" / run.name / "run_metadata.json").read_text(encoding="utf-8"))
        assert metadata["taxonomy"]["source"] == str(copies) and metadata["taxonomy"]["refs"] == 3
    default = json.loads(run_cli(RUN, "--outdir", tmp_path / "default", "--json").stdout)["runs"][0]
    assert default["metrics"]["ref_valid_rate_s2"] == 0.0


def test_the_api_takes_a_taxonomy_and_goes_back_to_the_default(copies: Path) -> None:
    assert aggregate_run(RUN, taxonomy=copies).metrics["ref_valid_rate_s2"] > 0
    assert aggregate_run(RUN).metrics["ref_valid_rate_s2"] == 0.0
    assert taxonomy_in_force().source == "default" and is_valid_ref("본품#품질")
    use_taxonomy(None)
