"""One index generation in memory and everything derived from it, swapped as one.

The derived parts (the query arrays of ``Corpus``, the ``NameIndex``, the BM25 index
kept in the corpus) are built on first use and kept on the snapshot, so they go with
it: a reload (a new generation, or the same one reopened) starts afresh, and nothing
is cached in module globals. ``warm`` builds them ahead of the requests that need them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import TYPE_CHECKING, TypeVar, cast

# The parts are imported when first built: opening a snapshot for focus mode must not
# import FAISS or numpy (docs/architecture.md, start-up).
if TYPE_CHECKING:
    from graphrag.snapshot.corpus import Corpus
    from graphrag.snapshot.graph import VaultGraph
    from graphrag.snapshot.names import NameIndex
    from graphrag.snapshot.similar import NoteVectors
    from indexer import IndexSnapshot

T = TypeVar("T")


class Snapshot:
    """An index generation and the graph view built from it."""

    def __init__(self, index: IndexSnapshot, graph: VaultGraph) -> None:
        self.index = index
        self.graph = graph
        self._corpus: Corpus | None = None
        self._names: NameIndex | None = None
        self._similar: NoteVectors | None = None
        self._derived: dict[Hashable, object] = {}
        # Two threads asking at once wait for one build (each part has its own lock:
        # resolving a name must not wait for the query arrays).
        self._corpus_lock = threading.Lock()
        self._names_lock = threading.Lock()
        self._similar_lock = threading.Lock()

    @property
    def corpus(self) -> Corpus:
        """Notes, chunks and their vectors in uri order, for query mode and the searches."""
        if self._corpus is None:
            with self._corpus_lock:
                if self._corpus is None:
                    from graphrag.snapshot.corpus import build_corpus

                    self._corpus = build_corpus(self.index, self.graph)
        return self._corpus

    def built_corpus(self) -> Corpus | None:
        """The corpus if something already built it (never builds)."""
        return self._corpus

    @property
    def names(self) -> NameIndex:
        """Every note by uri, title, alias and file name, for finding a note by name."""
        if self._names is None:
            with self._names_lock:
                if self._names is None:
                    from graphrag.snapshot.names import NameIndex

                    self._names = NameIndex(self.graph)
        return self._names

    def derived(self, key: Hashable, build: Callable[[], T]) -> T:
        """``build()`` once per snapshot, for later parts that keep what they make for
        every request on this generation (the notes' text as shown, ``details.text``).
        Threads racing on a first call may both build it; one result is kept."""
        hit = self._derived.get(key)
        if hit is None:
            hit = self._derived.setdefault(key, build())
        return cast(T, hit)

    @property
    def similar(self) -> NoteVectors:
        """One vector per note, for the notes most similar to one (no FAISS)."""
        if self._similar is None:
            with self._similar_lock:
                if self._similar is None:
                    from graphrag.snapshot.similar import load_note_vectors

                    self._similar = load_note_vectors(self.index)
        return self._similar

    def lexical_built(self, language: str) -> bool:
        """Whether the BM25 index for ``language`` is in memory (never builds)."""
        from graphrag.snapshot.lexical import lexical_built

        corpus = self._corpus
        return corpus is not None and lexical_built(corpus, language)

    def warm(self, search: bool = False, language: str | None = None) -> None:
        """Build now what a request would otherwise build: the vectors and the name index;
        with ``search`` the query arrays, and with ``language`` the BM25 index too.
        (Query mode's title tables are its own: the server's warm-up builds them,
        ``serve.live``.)"""
        self.index.vectors  # noqa: B018 - a lazy property; reading it loads
        self.names  # noqa: B018 - built on first use
        if search:
            corpus = self.corpus
            if language is not None:
                from graphrag.snapshot.lexical import lexical_index

                lexical_index(corpus, language)
