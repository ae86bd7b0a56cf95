"""Query mode's ``Selector``: children and backlinks ranked by similarity to the question.

Same contract as ``selectors.RankedSelector`` (the ``k`` best eligible notes,
ties to the earlier index), but scored with numpy over index arrays cached per
corpus, because a hub's thousands of backlinks are ranked on every query. A
virtual folder has no text of its own, so it ranks as its best direct child:
a folder of relevant notes is a relevant step.
"""

from __future__ import annotations

from collections.abc import Sequence, Set

import numpy as np

from graphrag.focus.selectors import Eligible
from graphrag.snapshot.corpus import Corpus
from graphrag.snapshot.graph import VaultGraph


class SimilaritySelector:
    def __init__(self, corpus: Corpus, graph: VaultGraph, sims: np.ndarray) -> None:
        self.corpus = corpus
        self.graph = graph
        self.sims = sims
        self._folder: dict[str, float] = {}

    def score(self, uri: str) -> float:
        i = self.corpus.index_of.get(uri)
        if i is not None:
            return float(self.sims[i])
        if uri not in self._folder:
            kids = self._indices("c", uri, self.graph.children(uri))
            kids = kids[kids >= 0]
            self._folder[uri] = float(self.sims[kids].max()) if len(kids) else -1.0
        return self._folder[uri]

    def _indices(self, kind: str, owner: str, notes: Sequence[str]) -> np.ndarray:
        """Corpus index of each of ``notes`` (-1 for folders), cached per corpus for the
        graph's own adjacency tuple: a view of the graph with other links
        (``VaultGraph.without_links``) gets its own, uncached."""

        def build() -> np.ndarray:
            index_of = self.corpus.index_of
            return np.fromiter((index_of.get(u, -1) for u in notes), np.int64, len(notes))

        key = f"adj:{kind}:{owner}"
        hit = self.corpus.cached(key)
        if hit is None:
            hit = self.corpus.derived(key, lambda: (notes, build()))
        return hit[1] if hit[0] is notes else build()

    def _top(
        self, kind: str, owner: str, notes: Sequence[str], k: int, eligible: Eligible
    ) -> list[int]:
        if k <= 0 or not notes:
            return []
        idx = self._indices(kind, owner, notes)
        scores = np.where(idx >= 0, self.sims[np.maximum(idx, 0)], -1.0)
        for j in np.flatnonzero(idx < 0):
            scores[j] = self.score(notes[int(j)])
        order = np.lexsort((np.arange(len(notes)), -scores))
        chosen: list[int] = []
        for j in order:
            if eligible(int(j)):
                chosen.append(int(j))
                if len(chosen) == k:
                    break
        return sorted(chosen)

    def pick_children(
        self, parent: str, children: Sequence[str], picked: Set[int], k: int, eligible: Eligible
    ) -> list[int]:
        return self._top("c", parent, children, k, eligible)

    def pick_inbound(
        self, target: str, refs: Sequence[str], k: int, eligible: Eligible
    ) -> list[int]:
        return self._top("i", target, refs, k, eligible)

    def pick_objects(
        self, source: str, objects: Sequence[str], k: int, eligible: Eligible
    ) -> list[int]:
        return self._top("o", source, objects, k, eligible)
