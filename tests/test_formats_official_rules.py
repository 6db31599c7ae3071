"""The official scorers' rules (../shared/peer/*/RULES.md) on hand-worked sentences: what each quirk counts,
how each scorer pairs sentences, and the one line that says why the unchanged scorer would crash."""

from __future__ import annotations

from pathlib import Path

from aggregator.formats.model import Sentence
from aggregator.formats.official.base import by_position, length_crash, never
from aggregator.formats.registry import FORMATS
from aggregator.formats.tally import Tally


def _sentence(key: str) -> Sentence[object]:
    return Sentence(key, int(key), key, (), ())


def _read(fmt: str, lines: list[str], path: Path) -> list[Sentence[object]]:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return FORMATS[fmt].read(path)


def test_sentences_pair_by_position_up_to_the_longer_file() -> None:
    one, two, three = _sentence("1"), _sentence("2"), _sentence("3")
    assert by_position([one, two], [three]) == [(one, three), (two, None)]
    assert by_position([one], [two, three]) == [(one, two), (None, three)]
    assert by_position([], []) == []


def test_a_scorer_that_asserts_equal_lengths_says_both() -> None:
    one, two = _sentence("1"), _sentence("2")
    assert length_crash([one], [one]) is None
    assert length_crash([one, two], [one]) == \
        "AssertionError: the files have 2 and 1 sentences (the scorer pairs them by line)"
    assert length_crash([one], [one, two], "ValueError") == \
        "ValueError: the files have 1 and 2 sentences (the scorer pairs them by line)"
    assert never([one], [], {}) is None


ASTE_GOLD = ["a b c d e f####[([1, 2, 3], [5], 'POS')]", "a b c d e f####[([0], [2], 'NEG')]"]
ASTE_PRED = ["a b c d e f####[([1, 9, 3], [5], 'POS'), ([1, 3], [5], 'POS')]",
             "a b c d e f####[([0], [2], 'NEG'), ([0], [2], 'NEG')]"]


def test_span_aste_and_gts_count_endpoints_and_pairs(tmp_path: Path) -> None:
    """Sentence 1: gold [1,2,3] (tokens 1–3); predictions [1,9,3] (a gapped list) and [1,3] (two endpoints, tokens
    1–3). Sentence 2: one gold triplet predicted twice. Span-ASTE keeps first and last index only (both
    predictions are the gold's span) and counts every equal (prediction, gold) pair: 2 + 2 hits of 4 predictions
    and 2 gold; GTS takes the same keys as sets: 1 + 1 of 2 and 2; as read (the gapped list is its own
    span), sets: 1 + 1 of 3 and 2, with pairs: 1 + 2 of 4 and 2."""
    gold, pred = _read("aste", ASTE_GOLD, tmp_path / "gold"), _read("aste", ASTE_PRED, tmp_path / "pred")
    span_aste, gts = FORMATS["aste"].scorers[:2]
    counted = {name: span_aste.run(gold, pred, frozenset(quirks))[("sentiment aspect opinion", "all")]
               for name, quirks in (("official", span_aste.all_quirks), ("gts", gts.all_quirks), ("none", ()),
                                    ("pairs", {"pair_multiplication"}))}
    assert counted == {"official": Tally(4, 0, -2), "gts": Tally(2, 0, 0), "none": Tally(2, 1, 0), "pairs": Tally(3, 1, -1)}
    assert span_aste.events(gold, pred) == {"endpoint_spans": 1, "pair_multiplication": 2}
