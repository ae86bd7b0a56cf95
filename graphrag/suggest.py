"""Close matches for a note name that matched nothing (the 404's ``suggestions``).

``difflib.get_close_matches`` over every title and uri costs 0.1-0.4 s at 10k
notes, paid by each request for a missing note, which is exactly what a plugin
sends for a note created a moment ago, before the index has it. So difflib only
ranks a shortlist: the names most like the query by character trigrams (Dice
coefficient), counted with numpy over a trigram index built once per graph. On a vault with
fewer names than the shortlist, every name is ranked, as before.
"""

from __future__ import annotations

import difflib
import threading
import weakref

import numpy as np

from .graph import VaultGraph

SHORTLIST = 400


def _grams(text: str) -> set[str]:
    padded = f"  {text} "
    return {padded[i : i + 3] for i in range(len(padded) - 2)}


class NameIndex:
    """Every note's folded title and uri (-> uri), with a trigram index over them."""

    def __init__(self, graph: VaultGraph) -> None:
        names: dict[str, str] = {}
        for note in graph.notes():
            names.setdefault(note.title.casefold(), note.uri)
            names.setdefault(note.uri.casefold(), note.uri)
        self.names = names
        self.keys = list(names)
        postings: dict[str, list[int]] = {}
        if len(self.keys) > SHORTLIST:
            for i, key in enumerate(self.keys):
                for gram in _grams(key):
                    postings.setdefault(gram, []).append(i)
        self.postings = {g: np.asarray(ids, dtype=np.int32) for g, ids in postings.items()}
        self.sizes = np.array([len(_grams(k)) for k in self.keys] if postings else [], dtype=np.float32)

    def shortlist(self, query: str) -> list[str]:
        """The names most like ``query`` by trigrams (Dice: shared over both sizes, so long
        names are not favoured), all of those tied with the last one included."""
        if len(self.keys) <= SHORTLIST:
            return self.keys
        grams = _grams(query)
        hits = [self.postings[g] for g in grams if g in self.postings]
        if not hits:
            return []
        shared = np.bincount(np.concatenate(hits), minlength=len(self.keys))
        dice = 2 * shared / (len(grams) + self.sizes)
        cut = np.partition(dice, len(dice) - SHORTLIST)[len(dice) - SHORTLIST]
        return [self.keys[i] for i in np.flatnonzero((dice >= cut) & (shared > 0))]

    def close(self, query: str, n: int = 5, cutoff: float = 0.5) -> list[str]:
        """Up to ``n`` uris whose title or uri is closest to ``query``."""
        folded = query.casefold()
        out: list[str] = []
        for key in difflib.get_close_matches(folded, self.shortlist(folded), n=n * 2, cutoff=cutoff):
            if self.names[key] not in out:
                out.append(self.names[key])
        return out[:n]


# By id: VaultGraph is a dataclass, so not hashable; an entry goes with its graph.
_INDEXES: dict[int, NameIndex] = {}
_LOCK = threading.Lock()


def name_index(graph: VaultGraph) -> NameIndex:
    """The graph's ``NameIndex``, built on first use and dropped with the graph."""
    key = id(graph)
    with _LOCK:
        index = _INDEXES.get(key)
        if index is None:
            index = _INDEXES[key] = NameIndex(graph)
            weakref.finalize(graph, _INDEXES.pop, key, None)
        return index
