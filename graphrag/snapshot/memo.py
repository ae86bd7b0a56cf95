"""A bounded cache for what a snapshot derives per note and keeps for every request.

Parts of a generation that depend on one note only (its text as shown, its links
and the chunks holding them) are built on first use and kept in a ``Memo`` owned by
the snapshot's ``Corpus`` or ``NoteText``: a reload starts afresh, nothing lives in
module globals, and a long-running server on a large vault keeps the most recently
used up to a size, not a copy of every note (docs/architecture.md, "Serving").
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from indexer.lru import SizedLRU

T = TypeVar("T")


def _size(value: object) -> int:
    """Characters held by a cached value (a string, or strings in a tuple or list)."""
    if isinstance(value, str):
        return len(value) + 50
    if isinstance(value, tuple | list):
        return sum(_size(v) for v in value) + 50
    if isinstance(value, dict):
        return sum(_size(k) + _size(v) for k, v in value.items()) + 50
    return 100


class Memo:
    """Values by key, the most recently used kept up to ``chars`` characters in all:
    the texts of the notes requests keep meeting stay, a long-running server on a
    large vault does not keep a copy of every note."""

    def __init__(self, chars: int) -> None:
        self.chars = chars
        self._items: SizedLRU[Any] = SizedLRU(chars)

    @property
    def used(self) -> int:
        return self._items.used

    def get(
        self, key: Hashable, build: Callable[[], T], size: Callable[[T], int] | None = None
    ) -> T:
        """``build()`` under ``key``, kept; ``size`` says what it holds in characters'
        worth (default: the strings in it)."""
        hit: T | None = self._items.get(key)
        if hit is not None:
            return hit
        value = build()  # outside the cache's lock: it may read other keys
        self._items.put(key, value, size(value) if size is not None else _size(value))
        return value
