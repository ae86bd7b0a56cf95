"""A bounded cache for what a snapshot derives per note and keeps for every request.

Parts of a generation that depend on one note only (its text as shown, its links
and the chunks holding them) are built on first use and kept in a ``Memo`` owned by
the snapshot's ``Corpus`` or ``NoteText``: a reload starts afresh, nothing lives in
module globals, and a long-running server on a large vault keeps the most recently
used up to a size, not a copy of every note (docs/architecture.md, "Serving").
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

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
        self.used = 0
        self._items: OrderedDict[Hashable, tuple[Any, int]] = OrderedDict()
        self._lock = threading.Lock()

    def get(
        self, key: Hashable, build: Callable[[], T], size: Callable[[T], int] | None = None
    ) -> T:
        """``build()`` under ``key``, kept; ``size`` says what it holds in characters'
        worth (default: the strings in it)."""
        with self._lock:
            hit = self._items.get(key)
            if hit is not None:
                self._items.move_to_end(key)
                return hit[0]
        value = build()  # outside the lock: it may read other keys
        held = size(value) if size is not None else _size(value)
        with self._lock:
            if key not in self._items:
                self._items[key] = (value, held)
                self.used += held
            while self.used > self.chars and len(self._items) > 1:
                _, (_, dropped) = self._items.popitem(last=False)
                self.used -= dropped
        return value
