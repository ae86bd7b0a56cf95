"""One bounded, thread-safe least-recently-used cache, sized by what it holds.

A server lives for hours and meets new notes, texts and answers all the time, so every
cache it keeps (a snapshot's per-note texts, encoded ``/focus`` answers) is bounded by
the characters or bytes it holds, not by a count of entries: a few long entries must not
hold what a count allows many short ones (token counts, all of one size and alive as long
as the server, are a fixed table instead: ``count_cache.py``; docs/architecture.md,
"Serving"). It lives in ``indexer`` because both the indexer and ``graphrag`` use it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class SizedLRU(Generic[V]):
    """Values by key, the least recently used dropped while more than ``limit`` is held.

    Each value is put with its size (characters or bytes, the caller's unit); a value
    larger than the whole limit is not kept at all.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0
        self._items: OrderedDict[Hashable, tuple[V, int]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: Hashable) -> V | None:
        with self._lock:
            hit = self._items.get(key)
            if hit is None:
                return None
            self._items.move_to_end(key)
            return hit[0]

    def put(self, key: Hashable, value: V, size: int) -> None:
        if size > self.limit:
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self.used -= old[1]
            self._items[key] = (value, size)
            self.used += size
            while self.used > self.limit:
                _, (_, dropped) = self._items.popitem(last=False)
                self.used -= dropped
