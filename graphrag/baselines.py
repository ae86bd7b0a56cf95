"""Graph-free retrieval baselines, for measuring what the graph adds.

Both rank whole notes and then pack them in rank order under the token budget
exactly as query mode packs its notes: the same rendered form, truncation and
token counter (``pack``), so a difference in recall comes from the ranking,
not from how much text fits.

* vector: a note scores its best chunk's cosine similarity to the question
  (the embedder and vectors of the index, as query mode's vector entries).
* bm25: BM25 over each note's title and body, English stop words removed and
  words stemmed (bm25s + PyStemmer). Notes sharing no term with the question
  score 0 and are not returned: a lexical search does not find them.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from indexer import IndexSnapshot

from .budget import TokenCounter, select, truncate
from .graph import VaultGraph
from .model import RelatedNote, Relation, UriAndTitle
from .render import note_json

# SQLite's historical limit on bound parameters is 999; stay under it.
_SQL_BATCH = 900


@dataclass(frozen=True, slots=True)
class Packed:
    """What a baseline hands the model for one question: notes in rank order."""

    uris: tuple[str, ...]
    tokens: int


# -- packing ------------------------------------------------------------------------------
def context_note(graph: VaultGraph, uri: str, truncate_length: int) -> RelatedNote:
    """A ranked note as query mode would emit it: details truncated, parent named."""
    info = graph.info(uri)
    details, cut = truncate(graph.details(uri), truncate_length)
    parent = graph.parent(uri)
    return RelatedNote(
        uri=uri,
        title=info.title,
        details=details,
        # A baseline has no graph path; every note it returns is a hit of its own search.
        relation=Relation.Self,
        created_at=info.created or None,
        parent=UriAndTitle(parent, graph.info(parent).title) if parent in graph else None,
        details_truncated=cut,
    )


def pack(
    ranked: Iterable[str],
    graph: VaultGraph,
    budget: int,
    tokenizer: TokenCounter,
    truncate_length: int,
) -> Packed:
    """Take notes in rank order while each one's rendered form fits what is left."""

    def notes() -> Iterator[RelatedNote]:
        for uri in ranked:
            yield context_note(graph, uri, truncate_length)

    chosen = select(notes(), budget, note_json, tokenizer, report_all=False)
    return Packed(tuple(n.uri for n in chosen.selected), chosen.tokens_used)


# -- vector ranking -----------------------------------------------------------------------
@dataclass(frozen=True)
class ChunkTable:
    """Every indexed chunk as (column of the vector matrix, owning note).

    Identical chunk texts share one vector, so one column may belong to several
    notes; each (column, note) pair is a row here.
    """

    vectors: np.ndarray  # (n_vectors, dim), normalised
    columns: np.ndarray  # (n_rows,) index into ``vectors``
    note_of_row: np.ndarray  # (n_rows,) index into ``uris``; rows sorted by it
    uris: tuple[str, ...]

    @classmethod
    def from_index(cls, index: IndexSnapshot, graph: VaultGraph) -> ChunkTable:
        ids, vectors = index.vectors.matrix()
        column_of = {int(v): i for i, v in enumerate(ids)}
        pairs: set[tuple[str, int]] = set()
        id_list = [int(v) for v in ids]
        for start in range(0, len(id_list), _SQL_BATCH):
            for row in index.chunks_for_vectors(id_list[start : start + _SQL_BATCH]):
                if row.uri in graph and graph.info(row.uri).kind == "note":
                    pairs.add((row.uri, column_of[row.vec_id]))
        uris = tuple(sorted({uri for uri, _ in pairs}))
        note_index = {uri: i for i, uri in enumerate(uris)}
        ordered = sorted((note_index[uri], col) for uri, col in pairs)
        return cls(
            vectors=vectors,
            columns=np.array([c for _, c in ordered], dtype=np.int64),
            note_of_row=np.array([n for n, _ in ordered], dtype=np.int64),
            uris=uris,
        )

    def note_scores(self, queries: np.ndarray) -> np.ndarray:
        """(n_queries, n_notes): each note's best chunk cosine for each query.

        One matrix product for all questions: numpy's BLAS path, which also
        avoids faiss's slow batched path below ``distance_compute_blas_threshold``.
        """
        queries = np.atleast_2d(np.asarray(queries, dtype=np.float32))
        if not self.uris:
            return np.zeros((len(queries), 0), dtype=np.float32)
        per_row = (queries @ self.vectors.T)[:, self.columns]
        starts = np.flatnonzero(np.r_[True, np.diff(self.note_of_row) != 0])
        return np.maximum.reduceat(per_row, starts, axis=1)

    def rank(self, queries: np.ndarray) -> list[list[tuple[str, float]]]:
        """Per query, every note with a chunk, best first (ties by uri)."""
        scores = self.note_scores(queries)
        out = []
        for row in scores:
            # lexsort's last key is primary: score descending, then uri order.
            order = np.lexsort((np.arange(len(row)), -row))
            out.append([(self.uris[i], float(row[i])) for i in order])
        return out


# -- BM25 ranking -------------------------------------------------------------------------
class BM25Ranker:
    """BM25 over note title + body, English stop words, Snowball stemming."""

    def __init__(self, docs: Sequence[tuple[str, str]]) -> None:
        import bm25s
        import Stemmer

        self._bm25s = bm25s
        self._stemmer = Stemmer.Stemmer("english")
        self.uris = tuple(uri for uri, _ in docs)
        self._retriever: Any = None
        if docs:
            tokens = bm25s.tokenize(
                [text for _, text in docs],
                stopwords="en",
                stemmer=self._stemmer,
                show_progress=False,
            )
            self._retriever = bm25s.BM25()
            self._retriever.index(tokens, show_progress=False)

    @classmethod
    def from_graph(cls, graph: VaultGraph) -> BM25Ranker:
        notes = sorted(graph.notes(), key=lambda n: n.uri)
        return cls([(n.uri, f"{n.title}\n{graph.details(n.uri)}") for n in notes])

    def scores(self, query: str) -> np.ndarray:
        if self._retriever is None:
            return np.zeros(0, dtype=np.float32)
        terms = self._bm25s.tokenize(
            [query],
            stopwords="en",
            stemmer=self._stemmer,
            return_ids=False,
            show_progress=False,
        )[0]
        if not terms:  # only stop words: nothing matches
            return np.zeros(len(self.uris), dtype=np.float32)
        return np.asarray(self._retriever.get_scores(terms), dtype=np.float32)

    def rank(self, query: str) -> list[tuple[str, float]]:
        """Notes sharing at least one term with ``query``, best first (ties by uri)."""
        row = self.scores(query)
        order = np.lexsort((np.arange(len(row)), -row))
        return [(self.uris[i], float(row[i])) for i in order if row[i] > 0]
