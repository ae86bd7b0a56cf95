"""The systems ``eval`` scores: query mode (``graphrag``) and the graph-free
baselines of ``baselines.py`` (``vector``, ``bm25``) and ``hybrid`` (the fused
ranking of ``hybrid_search``), all packed the same way. A ``System`` object can
stand in for any of them (tests use fixed answers)."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

import numpy as np

from graphrag.eval.baselines import NoteBuilder, pack, rank_by_bm25, rank_by_hybrid, rank_by_vector
from graphrag.eval.context import Retrieved, query_context
from graphrag.eval.questions import Question

if TYPE_CHECKING:
    from graphrag.api import VaultRAG
    from graphrag.snapshot.corpus import Corpus
    from indexer.embed import Embedder

SYSTEMS = ("graphrag", "vector", "bm25", "hybrid")


class System(Protocol):
    name: str

    def run(
        self, questions: Sequence[Question], budgets: Sequence[int]
    ) -> dict[int, list[Retrieved]]:
        """Per budget, one ``Retrieved`` per question, in order."""
        ...


class QueryVectors:
    """The questions' embeddings, computed in one batch and shared by the baselines.

    Each question is embedded as query mode embeds it (its search text: ``#tags``
    turned into words), with the index's embedder.
    """

    def __init__(self, embedder: Embedder, questions: Sequence[Question]) -> None:
        from graphrag.query.entry import parse_query

        self.embedder = embedder
        self.texts = [parse_query(q.question).search_text or q.question for q in questions]
        self._matrix: np.ndarray | None = None

    @property
    def matrix(self) -> np.ndarray:
        if self._matrix is None:
            self._matrix = np.asarray(self.embedder.embed(self.texts), dtype=np.float32)
        return self._matrix


class GraphRAGSystem:
    """Query mode: the uris of the entry notes and the related notes.

    Question by question, every budget in turn: query mode caches the last
    questions' vectors, so each question is embedded once.
    """

    name = "graphrag"

    def __init__(self, rag: VaultRAG, seed: int | None = 0) -> None:
        self.rag = rag
        self.seed = seed

    def run(
        self, questions: Sequence[Question], budgets: Sequence[int]
    ) -> dict[int, list[Retrieved]]:
        out: dict[int, list[Retrieved]] = {b: [] for b in budgets}
        for q in questions:
            for budget in budgets:
                data = self.rag.query(q.question, budget=budget, seed=self.seed).to_json()
                out[budget].append(query_context(data, self.rag.tokenizer))
        return out


class _PackedBaseline:
    """Rank once per question, then pack that ranking under every budget."""

    name = ""

    def __init__(
        self,
        rag: VaultRAG,
        vectors: QueryVectors | None = None,
        max_documents: int | None = None,
    ) -> None:
        self.rag = rag
        self.vectors = vectors
        # Query mode's own rule by default, so both sides pack by the same rules: its
        # cap when the settings set one, else none (query mode's fill from the hybrid
        # ranking goes on while tokens remain; a baseline is all fill).
        cap = rag.settings.query.max_documents if max_documents is None else max_documents
        self.max_documents = cap if cap is not None and cap > 0 else sys.maxsize

    def rankings(self, corpus: Corpus, questions: Sequence[Question]) -> list[list[str]]:
        raise NotImplementedError

    def run(
        self, questions: Sequence[Question], budgets: Sequence[int]
    ) -> dict[int, list[Retrieved]]:

        snapshot = self.rag.snapshot  # one generation for the whole run
        corpus = snapshot.corpus
        vectors = self.vectors = self.vectors or QueryVectors(self.rag.embedder, questions)
        ranked = self.rankings(corpus, questions)
        # Query-aware details need each question's chunk scores, as query mode has.
        chunk_scores = vectors.matrix @ corpus.matrix.T if len(corpus.matrix) else None
        settings, tokenizer = self.rag.settings, self.rag.tokenizer
        out: dict[int, list[Retrieved]] = {b: [] for b in budgets}
        for i, order in enumerate(ranked):
            scores = chunk_scores[i] if chunk_scores is not None else np.zeros(0, np.float32)
            build = NoteBuilder(snapshot.index, snapshot.graph, corpus, scores, settings)
            for budget in budgets:
                packed = pack(
                    order,
                    budget,
                    build.at(budget),
                    tokenizer,
                    self.max_documents,
                    build.smaller_at(budget, tokenizer),
                )
                out[budget].append(
                    Retrieved(
                        packed.uris,
                        packed.tokens,
                        text_tokens=packed.text_tokens,
                        relation_tokens=packed.relation_tokens,
                        shown=packed.shown,
                    )
                )
        return out


class VectorSystem(_PackedBaseline):
    """Notes ranked by their best chunk's cosine similarity to the question."""

    name = "vector"

    def rankings(self, corpus: Corpus, questions: Sequence[Question]) -> list[list[str]]:
        vectors = self.vectors = self.vectors or QueryVectors(self.rag.embedder, questions)
        return rank_by_vector(corpus, vectors.matrix)


class BM25System(_PackedBaseline):
    """Notes ranked by BM25 over their stemmed title, aliases and body."""

    name = "bm25"

    def rankings(self, corpus: Corpus, questions: Sequence[Question]) -> list[list[str]]:
        language = self.rag.settings.query.stemmer_language
        return rank_by_bm25(corpus, [q.question for q in questions], language)


class HybridSystem(_PackedBaseline):
    """Notes in the order of ``hybrid_search``: vector, BM25 and graph votes fused.

    ``hidden``: per question id, links its graph votes must not follow (``eval
    --from-links`` asks each question on the graph without its own link, as query
    mode answers it there; with the link, the source note would vote for the answer).
    """

    name = "hybrid"

    def __init__(
        self,
        rag: VaultRAG,
        vectors: QueryVectors | None = None,
        max_documents: int | None = None,
        hidden: Mapping[str, Sequence[tuple[str, str]]] | None = None,
    ) -> None:
        super().__init__(rag, vectors, max_documents)
        self.hidden = hidden or {}

    def rankings(self, corpus: Corpus, questions: Sequence[Question]) -> list[list[str]]:
        vectors = self.vectors = self.vectors or QueryVectors(self.rag.embedder, questions)
        snapshot = self.rag.snapshot
        graph = snapshot.graph
        views = [
            graph.without_links(self.hidden[q.id]) if self.hidden.get(q.id) else graph
            for q in questions
        ]
        return rank_by_hybrid(
            snapshot.index,
            graph,
            corpus,
            self.rag.settings.query,
            vectors.matrix,
            [q.question for q in questions],
            views,
        )


def make_system(
    spec: str | System,
    rag: VaultRAG,
    vectors: QueryVectors,
    seed: int | None,
    max_documents: int | None,
) -> System:
    if not isinstance(spec, str):
        return spec
    if spec == "graphrag":
        return GraphRAGSystem(rag, seed)
    if spec == "vector":
        return VectorSystem(rag, vectors, max_documents)
    if spec == "hybrid":
        return HybridSystem(rag, vectors, max_documents)
    return BM25System(rag, vectors, max_documents)
