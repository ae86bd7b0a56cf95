"""Which children and inbound references fill a per-depth cap.

A ``Selector`` returns indices into the parent's ``children`` (sibling order),
the target's ``backlinks`` (sorted by uri) or a note's ``objects`` (link order); it must return at most ``k`` distinct
indices for which ``eligible(i)`` holds, in any order. Focus mode uses
``RandomSelector`` (docs/architecture.md, "Focus mode: selection within a cap"); query mode can pass a
``RankedSelector`` that ranks by similarity to the query.

Both avoid touching every child of a 5,000-note folder or every backlink of a
hub: the work is proportional to ``k`` (plus the known notes skipped on the way).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence, Set
from typing import Protocol

Eligible = Callable[[int], bool]

# Below this many backlinks per requested pick, scanning them all is cheaper than
# sampling with rejection.
_SCAN_FACTOR = 4


class Selector(Protocol):
    def pick_children(
        self, parent: str, children: Sequence[str], picked: Set[int], k: int, eligible: Eligible
    ) -> list[int]: ...

    def pick_inbound(
        self, target: str, refs: Sequence[str], k: int, eligible: Eligible
    ) -> list[int]: ...

    def pick_objects(
        self, source: str, objects: Sequence[str], k: int, eligible: Eligible
    ) -> list[int]: ...


class RandomSelector:
    """Focus mode's selection: a random contiguous block of children the first time, then
    the unpicked children nearest those already picked (ties broken at random);
    inbound references uniformly at random."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def pick_children(
        self, parent: str, children: Sequence[str], picked: Set[int], k: int, eligible: Eligible
    ) -> list[int]:
        n = len(children)
        if k <= 0 or n == 0:
            return []
        if not picked:
            return self._block(n, k, eligible)
        return self._nearest(n, picked, k, eligible)

    def _block(self, n: int, k: int, eligible: Eligible) -> list[int]:
        # Start in 0..n-k as the design says, then take the next eligible children,
        # walking backwards from the start if the end comes first.
        start = self.rng.randrange(max(n - k, 0) + 1)
        chosen: list[int] = []
        i = start
        while i < n and len(chosen) < k:
            if eligible(i):
                chosen.append(i)
            i += 1
        i = start - 1
        while i >= 0 and len(chosen) < k:
            if eligible(i):
                chosen.append(i)
            i -= 1
        return sorted(chosen)

    def _nearest(self, n: int, picked: Set[int], k: int, eligible: Eligible) -> list[int]:
        # Rings of equal distance around the picked indices. "Shuffle, then stable
        # sort by distance, take k" is the same as: take whole rings while they fit,
        # then a random sample of the ring that does not.
        anchors = sorted(picked)
        seen = set(anchors)
        chosen: list[int] = []
        distance = 0
        while len(chosen) < k and distance < n:
            distance += 1
            ring = sorted({j + step for j in anchors for step in (-distance, distance)} - seen)
            ring = [i for i in ring if 0 <= i < n]
            seen.update(ring)
            ring = [i for i in ring if eligible(i)]
            need = k - len(chosen)
            chosen.extend(ring if len(ring) <= need else self.rng.sample(ring, need))
        return sorted(chosen)

    def pick_inbound(
        self, target: str, refs: Sequence[str], k: int, eligible: Eligible
    ) -> list[int]:
        n = len(refs)
        if k <= 0 or n == 0:
            return []
        if n <= _SCAN_FACTOR * k + 16:
            pool = [i for i in range(n) if eligible(i)]
            return sorted(pool if len(pool) <= k else self.rng.sample(pool, k))
        # A hub: draw indices until k eligible ones turn up, instead of copying and
        # shuffling thousands of backlinks; fall back to a scan if most are known.
        chosen: list[int] = []
        tried: set[int] = set()
        for _ in range(_SCAN_FACTOR * k + 16):
            i = self.rng.randrange(n)
            if i in tried:
                continue
            tried.add(i)
            if eligible(i):
                chosen.append(i)
                if len(chosen) == k:
                    return sorted(chosen)
        rest = [i for i in range(n) if i not in tried and eligible(i)]
        need = k - len(chosen)
        chosen.extend(rest if len(rest) <= need else self.rng.sample(rest, need))
        return sorted(chosen)

    def pick_objects(
        self, source: str, objects: Sequence[str], k: int, eligible: Eligible
    ) -> list[int]:
        """A non-source note's links, like backlinks: uniformly at random."""
        return self.pick_inbound(source, objects, k, eligible)


class RankedSelector:
    """Take the ``k`` eligible notes that ``score(uri)`` ranks highest (ties: the
    earlier index). For query mode, where a query makes some notes better than others."""

    def __init__(self, score: Callable[[str], float]) -> None:
        self.score = score

    def _top(self, notes: Sequence[str], k: int, eligible: Eligible) -> list[int]:
        ranked = sorted(
            (i for i in range(len(notes)) if eligible(i)),
            key=lambda i: (-self.score(notes[i]), i),
        )
        return sorted(ranked[:k])

    def pick_children(
        self, parent: str, children: Sequence[str], picked: Set[int], k: int, eligible: Eligible
    ) -> list[int]:
        return self._top(children, k, eligible)

    def pick_inbound(
        self, target: str, refs: Sequence[str], k: int, eligible: Eligible
    ) -> list[int]:
        return self._top(refs, k, eligible)

    def pick_objects(
        self, source: str, objects: Sequence[str], k: int, eligible: Eligible
    ) -> list[int]:
        return self._top(objects, k, eligible)
