"""The NIKLuge aspect taxonomy: which ``entity#attribute`` refs are valid."""

from __future__ import annotations

from typing import Final

_COMMON: Final = ("일반", "가격", "디자인", "품질")
ATTRIBUTES: Final[dict[str, tuple[str, ...]]] = {
    "제품 전체": _COMMON + ("편의성", "다양성", "인지도"),
    "본품": _COMMON + ("편의성", "다양성", "인지도"),
    "패키지·구성품": _COMMON + ("편의성", "다양성"),
    "브랜드": _COMMON + ("인지도",),
}
VALID_REFS: Final[frozenset[str]] = frozenset(
    f"{entity}#{attribute}" for entity, attributes in ATTRIBUTES.items() for attribute in attributes
)


def is_valid_ref(ref: str) -> bool:
    """True when a normalized ref is one of the taxonomy's ``entity#attribute`` keys."""
    return ref in VALID_REFS
