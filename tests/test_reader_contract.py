"""One reader contract for every format (issue #25): any input gives a result or ``FILE:LINE: reason``.

Each reader is fed random bytes and random mutations of its valid cases (:mod:`tests.reader_contract`):
the six formats of ``aggregate score`` / ``convert`` (read, paired, scored by every scorer of the format, with
the error anatomy of ``--errors``, written as the files of ``score --outdir`` and as converted scorecards),
taxonomy files, and compressed
and plain scorecards. Anything but :class:`~scorecards.errors.InputError` fails. ``--run-slow`` runs
ten times as many examples.
"""

from __future__ import annotations

import gzip
import json
import tempfile
from pathlib import Path

import pytest
import zstandard
from hypothesis import strategies as st

from aggregator.formats import FORMAT_NAMES
from aggregator.formats.convert import scorecard_rows
from aggregator.formats.errors import anatomy, anatomy_lines
from aggregator.formats.evaluate import evaluate, read_pairs
from aggregator.formats.files import score_files
from aggregator.formats.payload import payload, summary_lines
from aggregator.formats.registry import FORMATS
from aggregator.units.taxonomy import load_taxonomy
from scorecards.reader import read_scorecards
from tests.conftest import FIXTURES, RUNS
from tests.reader_contract import honours_contract, inputs
from tests.strategies import fuzz_budgets

PEER = {"aste": "aste/case_1/gold.txt", "asqp": "asqp/case_1/pred.txt", "acos": "acos/case_1/gold.tsv",
        "nikluge": "nikluge_sa_2022/case_1/pred.jsonl"}
SEMEVAL14 = b"""<?xml version="1.0" encoding="UTF-8"?>
<sentences><sentence id="1"><text>Great food but slow staff</text>
<aspectTerms><aspectTerm term="food" polarity="positive" from="6" to="10"/></aspectTerms>
<aspectCategories><aspectCategory category="food" polarity="positive"/></aspectCategories></sentence>
<sentence id="2"><text>ok</text></sentence></sentences>
"""
SEMEVAL16 = b"""<?xml version="1.0"?>
<Reviews><Review rid="1"><sentences>
<sentence id="1:0"><text>Great food, slow staff.</text><Opinions>
<Opinion target="food" category="FOOD#QUALITY" polarity="positive" from="6" to="10"/>
<Opinion target="NULL" category="SERVICE#GENERAL" polarity="negative" from="0" to="0"/>
</Opinions></sentence></sentences></Review></Reviews>
"""


def _valid(fmt: str) -> list[bytes]:
    if fmt in PEER:
        lines = (FIXTURES / "peer" / PEER[fmt]).read_bytes().splitlines(keepends=True)
        return [b"".join(lines[:6]), b"".join(lines[6:9])]
    return [SEMEVAL14] if fmt == "semeval14" else [SEMEVAL16]


VALID = {fmt: _valid(fmt) for fmt in FORMAT_NAMES}


def _score_and_convert(fmt: str, gold: Path, pred: Path) -> None:
    for compat in [s.name for s in FORMATS[fmt].scorers] or ["official"]:
        evaluation = evaluate(gold, pred, fmt, compat)
        body = payload(evaluation)
        body["errors"] = anatomy(evaluation)
        json.dumps(body, ensure_ascii=False).encode()
        summary_lines(evaluation)
        anatomy_lines(body["errors"])
        score_files(evaluation, body, "sound", spreadsheet_safe=True)
    spec, pairs = read_pairs(gold, pred, fmt)
    b"".join(json.dumps(row, ensure_ascii=False).encode() for row in scorecard_rows(spec, pairs, "run"))


def check_format(fmt: str, data: st.DataObject) -> None:
    hostile = data.draw(inputs(VALID[fmt]), label="hostile")
    other = data.draw(st.sampled_from(VALID[fmt]), label="valid")
    hostile_is_gold = data.draw(st.booleans(), label="hostile is gold")
    with tempfile.TemporaryDirectory() as tmp:
        gold, pred = Path(tmp, "gold"), Path(tmp, "pred")
        gold.write_bytes(hostile if hostile_is_gold else other)
        pred.write_bytes(other if hostile_is_gold else hostile)
        honours_contract(lambda: _score_and_convert(fmt, gold, pred), gold, pred)


test_every_format_reader_honours_the_contract, test_every_format_reader_honours_the_contract_slow = [
    pytest.mark.parametrize("fmt", FORMAT_NAMES)(test) for test in fuzz_budgets(100, 1000, data=st.data())(check_format)
]

TAXONOMY = [b'{"name": "t", "refs": ["FOOD#QUALITY", "service#general"]}',
            '{"refs": ["본품#품질",\n "제품 전체#일반"]}'.encode()]


def check_taxonomy(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "taxonomy.json")
        path.write_bytes(data)
        honours_contract(lambda: load_taxonomy(path), path)


test_taxonomy_files_honour_the_contract, test_taxonomy_files_honour_the_contract_slow = fuzz_budgets(
    100, 1000, data=inputs(TAXONOMY))(check_taxonomy)

ROWS = (RUNS / "cr_n50_m1_v2__seed42" / "scorecards.jsonl").read_bytes().splitlines(keepends=True)[:2]
PLAIN = b"".join(ROWS)
SCORECARDS = [PLAIN, gzip.compress(PLAIN, mtime=0), zstandard.ZstdCompressor().compress(PLAIN),
              zstandard.ZstdCompressor(write_content_size=False).compress(PLAIN) * 2]


def check_scorecards(data: bytes, skip: bool) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp, "scorecards.jsonl")
        path.write_bytes(data)
        honours_contract(lambda: read_scorecards(path, skip_bad_lines=skip, workers=1), path)


test_scorecards_plain_and_compressed_honour_the_contract, test_scorecards_plain_and_compressed_honour_the_contract_slow = (
    fuzz_budgets(60, 600, data=inputs(SCORECARDS), skip=st.booleans())(check_scorecards))
