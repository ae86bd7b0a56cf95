"""Counts by a 64-bit key, in arrays allocated once: a cache whose memory never grows.

The token counter's cache lives as long as a server and meets new texts all the time
(each edit renders the edited note and its neighbours anew). Held in a dict, its entries
(~200 bytes each, and the dict's table doubling as it fills) grew for the first hours of
a served soak until the bound was reached: most of what still grew between the 10th and
the 60th minute (benchmarks/RESULTS.md, "Server memory over an hour, session 6"). Here
every slot is allocated (and touched) when the cache is made, 24 bytes each, so its
resident size is the same from the first count on.

Each key has four candidate slots (two pairs, placed by the two halves of its hash); a new
key takes an empty one, else the one used least recently: close to LRU over a fixed
table, with no per-entry objects. A key is the caller's 64-bit hash of the text; the full key is stored and
compared, so a wrong count needs two texts with the same 64-bit hash.
"""

from __future__ import annotations

import threading
from array import array


class CountCache:
    """Up to ``slots`` (rounded up to a power of two) int values by int key, thread-safe."""

    def __init__(self, slots: int) -> None:
        size = 1 << max(1, (max(2, slots) - 1).bit_length())
        self.slots = size
        self._mask = size - 1
        self._keys = array("q", bytes(8 * size))
        self._values = array("q", bytes(8 * size))
        self._stamps = array("Q", bytes(8 * size))  # 0: empty; else the last use
        self._clock = 0
        self._held = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return self._held

    @property
    def nbytes(self) -> int:
        """Bytes of the three arrays: the cache's whole size, from the start."""
        return sum(a.itemsize * len(a) for a in (self._keys, self._values, self._stamps))

    def _candidates(self, key: int) -> tuple[int, int, int, int]:
        first = key & self._mask
        second = (key >> 32) & self._mask
        return first, first ^ 1, second, second ^ 1

    def _find(self, key: int, slots: tuple[int, ...]) -> int:
        stamps, keys = self._stamps, self._keys
        for slot in slots:
            if stamps[slot] and keys[slot] == key:
                return slot
        return -1

    def get(self, key: int) -> int | None:
        with self._lock:
            slot = self._find(key, self._candidates(key))
            if slot < 0:
                return None
            self._clock += 1
            self._stamps[slot] = self._clock
            return self._values[slot]

    def put(self, key: int, value: int) -> None:
        with self._lock:
            slots = self._candidates(key)
            slot = self._find(key, slots)
            if slot < 0:  # the empty or least recently used candidate
                slot = min(slots, key=self._stamps.__getitem__)
                if not self._stamps[slot]:
                    self._held += 1
                self._keys[slot] = key
            self._clock += 1
            self._stamps[slot] = self._clock
            self._values[slot] = value
