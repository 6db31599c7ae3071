"""Look-alike terms: the reference's matching rule is kept, and the user is told (issue #17, item 9).

A predicted term that differs from a gold term only by its Unicode normalization form (NFC
against NFD, precomposed Hangul against jamo) or by invisible format characters (zero-width
space, soft hyphen, BOM) still counts as a miss, exactly as in the research tool; the number
of such near matches is in ``run_metadata.json`` ``counts`` and raises the coded warning
``unicode_near_matches`` (stderr, ``warnings``, the reports).
"""

from __future__ import annotations

import json
import sys
import unicodedata
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from aggregator.run.lookalikes import NEAR_MATCHES, SAFE, fold, near_matches
from aggregator.run.pipeline import evaluate_run
from tests.conftest import RUNS, run_cli
from tests.scorecard_rows import item, row, write_rows

PAIRS = [
    ("café", "cafe\u0301"),  # NFC gold, NFD prediction
    ("배터리", "배\u200b터리"),  # a zero-width space
    ("한국", "\u1112\u1161\u11ab국"),  # Hangul from conjoining jamo
    ("화면\u00ad", "화면"),  # a soft hyphen in gold
    ("screen", "screen"),  # a true match
    ("sound", "noise"),  # a plain miss
]


def lookalike_run(directory: Path) -> Path:
    rows = [row(f"k{i}", gold=[item("본품#일반", g)], stage1=[item("본품#일반", p)], final=[item("본품#일반", p)])
            for i, (g, p) in enumerate(PAIRS)]
    return write_rows(directory / "scorecards.jsonl", rows)


def test_near_matches_are_misses_and_are_counted(tmp_path: Path) -> None:
    path = lookalike_run(tmp_path / "run")
    done = run_cli(path, "--outdir", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    metadata = json.loads((tmp_path / "out" / "run_metadata.json").read_text())
    assert metadata["counts"][NEAR_MATCHES] == 4 * 2  # four samples, stage 1 and final
    raised = {w["code"]: w for w in metadata["warnings"]}
    assert raised[NEAR_MATCHES]["count"] == 8
    assert [line for line in done.stderr.splitlines() if NEAR_MATCHES in line] == [
        f"aggregate: warning: run: {NEAR_MATCHES}: 8 predicted aspect term(s) equal a gold term only after "
        "Unicode NFC normalization or removing invisible characters, and count as misses"
    ]
    table = evaluate_run(path, workers=1).table
    matched = table.get_column("otepol_s2_tp").to_list()
    assert matched == [0, 0, 0, 0, 1, 0]  # the rule is the reference's: only "screen" matches


def test_a_clean_run_has_no_warning_line(tmp_path: Path) -> None:
    done = run_cli(RUNS / "cr_n50_m1_v2__seed42", "--outdir", tmp_path, "--quiet")
    assert done.returncode == 0 and NEAR_MATCHES not in done.stderr
    assert json.loads((tmp_path / "run_metadata.json").read_text())["counts"][NEAR_MATCHES] == 0
    assert near_matches(evaluate_run(RUNS / "cr_n50_m1_v2__seed42", workers=1).table) == 0


def composition_seconds() -> set[int]:
    """Code points that are the second of a canonical pair decomposition (they may compose with the one before)."""
    seconds = set()
    for code in range(sys.maxunicode + 1):
        parts = unicodedata.decomposition(chr(code)).split()
        if len(parts) == 2 and not parts[0].startswith("<"):
            seconds.add(int(parts[1], 16))
    return seconds


def test_a_text_of_safe_characters_is_nfc_and_holds_no_format_character() -> None:
    """Why only rows with a character outside SAFE are decoded: nothing else can be a near match."""
    seconds = composition_seconds()
    for low, high in SAFE:
        for code in range(low, high + 1):
            ch = chr(code)
            assert unicodedata.is_normalized("NFC", ch) and unicodedata.combining(ch) == 0, hex(code)
            assert code not in seconds and unicodedata.category(ch) != "Cf", hex(code)
            assert not 0x1100 <= code <= 0x11FF and not 0xA960 <= code <= 0xA97F and not 0xD7B0 <= code <= 0xD7FF


LOOKALIKE_PARTS = st.sampled_from(["a", "e", "\u0301", "\u0308", "가", "\u1100", "\u1161", "\u11a8", "\u200b",
                                   "\u00ad", "\ufeff", "Å", "\u212b", "é", "x", " "])
TERMS = st.lists(st.text(LOOKALIKE_PARTS, min_size=1, max_size=4), min_size=1, max_size=3)


@settings(max_examples=40, deadline=None)
@given(samples=st.lists(st.tuples(TERMS, TERMS, TERMS), min_size=1, max_size=4))
def test_the_count_equals_its_definition(tmp_path_factory: object, samples: list[tuple[list[str], ...]]) -> None:
    """The filtered count equals the definition applied to every row (fold, then compare)."""
    directory = tmp_path_factory.mktemp("fuzz")  # type: ignore[attr-defined]
    rows = [row(f"k{i}", gold=[item("", t) for t in gold], stage1=[item("", t) for t in s1],
                final=[item("", t) for t in s2]) for i, (gold, s1, s2) in enumerate(samples)]
    table = evaluate_run(write_rows(directory / "scorecards.jsonl", rows), workers=1).table
    expected = 0
    for texts in table.select("gold_tuples", "stage1_tuples", "final_tuples").iter_rows():
        gold, *predicted = ({term for _, term, _ in json.loads(text)} for text in texts)
        expected += sum(1 for terms in predicted for term in terms - gold if fold(term) in {fold(g) for g in gold})
    assert near_matches(table) == expected
