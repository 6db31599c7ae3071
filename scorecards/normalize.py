"""Normalization of aspect terms, aspect refs and polarities (evaluation only).

The rules are those of the scorecard contract; the input is never rewritten.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final, Literal

from scorecards.errors import quoted

Polarity = Literal["positive", "negative", "neutral", "mixed"]

TERM_EDGE_PUNCTUATION: Final = ".,;:!?\"'`()[]{}"
_POLARITY_ALIASES: Final[dict[str, Polarity]] = {
    "positive": "positive",
    "negative": "negative",
    "neutral": "neutral",
    "mixed": "mixed",
    "pos": "positive",
    "neg": "negative",
    "neu": "neutral",
}


class UnknownPolarity(ValueError):
    """A polarity value outside the known set (after strip and lower-case)."""


@lru_cache(maxsize=1 << 16)
def norm_term(text: str) -> str:
    """Normalize an aspect term (cached: terms repeat across the stages of a sample and across samples).

    strip -> lower-case -> collapse whitespace runs to one space -> strip the ASCII
    characters ``.,;:!?"'`()[]{}`` from both ends (no whitespace strip afterwards).
    Whitespace is Unicode whitespace (``str.split``, the same set as ``re``'s ``\\s``).

    >>> norm_term("  ( Battery  Life ) ")
    ' battery life '
    """
    return " ".join(text.lower().split()).strip(TERM_EDGE_PUNCTUATION)


@lru_cache(maxsize=1 << 16)
def norm_ref(text: str) -> str:
    """Normalize an aspect ref (taxonomy key ``entity#attribute``).

    ``패키지/구성품`` -> ``패키지·구성품``, strip, collapse whitespace runs, then remove the
    spaces around the first ``#`` (the ``#`` itself is kept).

    >>> norm_ref(" 본품 #  품질 ")
    '본품#품질'
    """
    text = " ".join(text.replace("패키지/구성품", "패키지·구성품").split())
    entity, sep, attribute = text.partition("#")
    if not sep:
        return text
    return entity.rstrip(" ") + "#" + attribute.lstrip(" ")


def norm_polarity(text: str | None) -> tuple[Polarity, bool]:
    """Normalize a polarity; return it and whether it was defaulted.

    Missing, null or empty (after strip) -> ``("neutral", True)``. Short forms
    ``pos``/``neg``/``neu`` expand. Any other value raises :class:`UnknownPolarity`.
    """
    if text in _POLARITY_ALIASES:
        return _POLARITY_ALIASES[text], False
    key = (text or "").strip().lower()
    if not key:
        return "neutral", True
    try:
        return _POLARITY_ALIASES[key], False
    except KeyError:
        raise UnknownPolarity(f"unknown polarity {quoted(text or '')}") from None
