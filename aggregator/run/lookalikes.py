"""Aspect terms that look like a gold term but do not match it: Unicode forms and invisible characters.

The matching rule is the reference's and is kept: terms are compared after
:func:`~scorecards.normalize.norm_term`, code point by code point. So a predicted term in
another Unicode normalization form than the gold term (NFD ``e`` + ``◌́`` against NFC ``é``;
Hangul from decomposed jamo) or carrying an invisible format character (zero-width space or
joiner, soft hyphen, byte-order mark, bidirectional marks: category Cf) is a miss, while a
report shows the same text. :func:`near_matches` counts such terms so the user is told (the
coded warning ``unicode_near_matches``, docs/warnings.md):

    fold(t) = NFC(t with every Cf character removed)

A *near match* is a distinct predicted term of a sample, at stage 1 or at the final stage,
that equals no gold term of the sample but whose fold equals the fold of one. Computed after
aggregation from the per-sample table's tuple columns (sorted JSON ``[ref, term, polarity]``
triples). Only rows holding a character outside :data:`SAFE` are decoded: a text of safe
characters alone is in NFC and has no format character (each is NFC on its own, of combining
class 0, never the second character of a composition, and not Cf), so it holds no near match.
"""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    import polars as pl

NEAR_MATCHES = "unicode_near_matches"
"""The key of the count in ``run_metadata.json`` ``counts``, and the code of its warning
(:mod:`aggregator.run_warnings.core`)."""
GOLD = "gold_tuples"
PREDICTED = ("stage1_tuples", "final_tuples")
SAFE = ((0x0000, 0x00AC), (0x00AE, 0x02FF), (0x3040, 0x3098), (0x309B, 0x30FF), (0x4E00, 0x9FFF), (0xAC00, 0xD7A3))
"""Code point ranges (inclusive) of characters that cannot take part in a near match: below the
combining marks but the soft hyphen, kana but the two combining sound marks, the CJK unified
ideographs and the precomposed Hangul syllables (tested in ``tests/test_reliability_unicode.py``)."""
_TUPLES = msgspec.json.Decoder(list[tuple[str, str, str]])


def fold(term: str) -> str:
    """``term`` without format (Cf) characters, in NFC."""
    return unicodedata.normalize("NFC", "".join(ch for ch in term if unicodedata.category(ch) != "Cf"))


def _terms(text: str) -> set[str]:
    return {term for _, term, _ in _TUPLES.decode(text)}


def _outside_safe() -> str:
    """A regex class of every character not in :data:`SAFE` (a class of what is in it, negated, is slower)."""
    bounds = [-1, *(b for low, high in SAFE for b in (low, high)), 0x110000]
    gaps = [(bounds[i] + 1, bounds[i + 1] - 1) for i in range(0, len(bounds), 2) if bounds[i] + 1 < bounds[i + 1]]
    return "[" + "".join(f"\\x{{{low:X}}}-\\x{{{high:X}}}" for low, high in gaps) + "]"


def _suspects(table: pl.DataFrame) -> pl.DataFrame:
    """The rows whose tuple text holds a character outside :data:`SAFE`: only they can hold a near match."""
    import polars as pl

    columns = (GOLD, *PREDICTED)
    outside = _outside_safe()
    return table.select(columns).filter(pl.any_horizontal(pl.col(c).str.contains(outside) for c in columns))


def near_matches(table: pl.DataFrame) -> int:
    """How many distinct predicted terms (per sample and stage) are near matches of a gold term (module doc)."""
    count = 0
    for row in _suspects(table).iter_rows(named=True):
        gold = _terms(row[GOLD])
        folded = {fold(term) for term in gold}
        for column in PREDICTED:
            count += sum(1 for term in _terms(row[column]) - gold if fold(term) in folded)
    return count
