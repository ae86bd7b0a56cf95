"""The simpler searches: semantic, lexical, hybrid (RRF) and graph (docs/architecture.md, "Searches").

Every search ranks notes (a note scores its best chunk) and honours the same
``Filters``. ``hierarchical_search`` lives in ``hubs.py``.

Hybrid search fuses three rankings by reciprocal rank fusion,
``sum over rankings of 1 / (rrf_k + rank)`` (rank from 1; a note absent from a
ranking gets nothing from it): vector similarity, BM25, and a graph ranking in
which each of the best ``hybrid_graph_seeds`` vector and lexical hits votes for
itself and its neighbours with the weight ``1 / its rank``, so a note linked to
several strong hits rises even when its own text matches weakly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from graphrag.config.query import QuerySettings
from graphrag.details.passages import section_text
from graphrag.results.notes import UriAndTitle
from graphrag.results.search import GraphSearchResult, SearchHit, SearchResult
from graphrag.snapshot.corpus import Corpus
from graphrag.snapshot.graph import VaultGraph
from graphrag.snapshot.lexical import LexicalIndex, lexical_index
from indexer.load import IndexSnapshot

SNIPPET_CHARS = 240


@dataclass(frozen=True)
class Scope:
    """What every search needs: one snapshot's data, settings and the filter mask."""

    index: IndexSnapshot
    graph: VaultGraph
    corpus: Corpus
    settings: QuerySettings
    allowed: np.ndarray | None = None

    def lexical(self) -> LexicalIndex:
        return lexical_index(self.corpus, self.settings.stemmer_language)


def top_notes(scores: np.ndarray, k: int, allowed: np.ndarray | None, floor: float) -> list[int]:
    """Indices of the ``k`` best notes scoring above ``floor``, ties to the lower index."""
    ok = scores > floor
    if allowed is not None:
        ok &= allowed
    candidates = np.flatnonzero(ok)
    if len(candidates) > k > 0:
        # Partition first (cheap at 100k), keeping every note tied with the k-th best.
        kth = np.partition(scores[candidates], len(candidates) - k)[len(candidates) - k]
        candidates = candidates[scores[candidates] >= kth]
    order = np.lexsort((candidates, -scores[candidates]))
    return [int(i) for i in candidates[order][: max(k, 0)]]


def _snippet(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= SNIPPET_CHARS else flat[:SNIPPET_CHARS].rstrip() + "…"


def _body_of(chunk_text: str) -> str:
    first, _, rest = chunk_text.strip().partition("\n")
    return rest if first.lstrip().startswith("#") else chunk_text


def vector_hit(scope: Scope, i: int, score: float, chunk_scores: np.ndarray) -> SearchHit:
    uri = scope.corpus.uris[i]
    title = scope.graph.info(uri).title
    lo, hi = scope.corpus.chunk_rows(i)
    chunks = scope.index.chunks_of(uri)
    if hi > lo and len(chunks) == hi - lo:
        best = chunks[int(np.argmax(chunk_scores[lo:hi]))]
        return SearchHit(uri, title, score, best.heading_path, _snippet(_body_of(best.text)))
    return SearchHit(uri, title, score)


def lexical_hits(
    scope: Scope, lexical: LexicalIndex, order: list[int], scores: np.ndarray, terms: set[str]
) -> list[SearchHit]:
    """Hits for notes ``order``, each with the chunk holding most of the query's terms
    (the first of equals); the terms of every chunk are counted in one call."""
    chunks = [scope.index.chunks_of(scope.corpus.uris[i]) for i in order]
    counts = iter(lexical.count_terms([section_text(c) for cs in chunks for c in cs], terms))
    hits = []
    for i, cs in zip(order, chunks, strict=True):
        uri = scope.corpus.uris[i]
        title = scope.graph.info(uri).title
        if not cs:
            hits.append(SearchHit(uri, title, float(scores[i])))
            continue
        shared = [next(counts) for _ in cs]
        best = cs[max(range(len(cs)), key=lambda j: (shared[j], -cs[j].seq))]
        snippet = _snippet(_body_of(best.text))
        hits.append(SearchHit(uri, title, float(scores[i]), best.heading_path, snippet))
    return hits


# -- the searches -----------------------------------------------------------------------------
def semantic_search(scope: Scope, query: str, query_vec: np.ndarray, top_k: int) -> SearchResult:
    chunk_scores = scope.corpus.chunk_scores(query_vec)
    sims = scope.corpus.note_sims(chunk_scores)
    hits = [
        vector_hit(scope, i, float(sims[i]), chunk_scores)
        for i in top_notes(sims, top_k, scope.allowed, -1.0)
    ]
    return SearchResult(query, "semantic", tuple(hits), message=None if hits else "no note matches")


def lexical_search(scope: Scope, query: str, top_k: int) -> SearchResult:
    lexical = scope.lexical()
    scored = lexical.score(query, len(scope.corpus))
    terms = set(lexical.tokens(query))
    order = top_notes(scored.scores, top_k, scope.allowed, 0.0)
    hits = lexical_hits(scope, lexical, order, scored.scores, terms)
    message = None if hits else "no note contains the query's words"
    return SearchResult(query, "lexical", tuple(hits), message=message)


def hybrid_search(scope: Scope, query: str, query_vec: np.ndarray, top_k: int) -> SearchResult:
    chunk_scores = scope.corpus.chunk_scores(query_vec)
    sims = scope.corpus.note_sims(chunk_scores)
    lex = scope.lexical().score(query, len(scope.corpus)).scores
    fused = fused_ranking(scope, sims, lex)
    hits = []
    for i, total, ranks in fused[:top_k]:
        hit = vector_hit(scope, i, total, chunk_scores)
        hits.append(SearchHit(hit.uri, hit.title, total, hit.heading, hit.snippet, ranks))
    return SearchResult(query, "hybrid", tuple(hits), message=None if hits else "no note matches")


def fused_ranking(
    scope: Scope, sims: np.ndarray, lex: np.ndarray | None
) -> list[tuple[int, float, dict[str, int]]]:
    """The hybrid ranking: RRF of the vector ranking, the BM25 ranking (``lex``, None
    when lexical search is off) and the graph votes of their best hits."""
    rankings = _text_rankings(scope, sims, lex)
    rankings["graph"] = graph_ranking(scope, rankings["vector"], rankings.get("lexical", []), sims)
    return rrf(rankings, scope.settings.rrf_k)


def text_ranking(
    scope: Scope, sims: np.ndarray, lex: np.ndarray | None
) -> list[tuple[int, float, dict[str, int]]]:
    """The hybrid ranking without its graph votes: RRF of the vector and BM25 rankings.
    Query mode fuses its own graph ranking with this one; with the votes in, the
    entries' neighbours would count twice (docs/architecture.md, "Query mode")."""
    return rrf(_text_rankings(scope, sims, lex), scope.settings.rrf_k)


def _text_rankings(scope: Scope, sims: np.ndarray, lex: np.ndarray | None) -> dict[str, list[int]]:
    s = scope.settings
    rankings = {"vector": top_notes(sims, s.rrf_depth, scope.allowed, -1.0)}
    if lex is not None:
        rankings["lexical"] = top_notes(lex, s.rrf_depth, scope.allowed, 0.0)
    return rankings


def rrf(rankings: dict[str, list[int]], k: int) -> list[tuple[int, float, dict[str, int]]]:
    """Reciprocal rank fusion: ``(note, fused score, {ranking: rank})``, best first,
    ties by note index."""
    scores: dict[int, float] = {}
    ranks: dict[int, dict[str, int]] = {}
    for name, ranking in rankings.items():
        for rank, i in enumerate(ranking, start=1):
            scores[i] = scores.get(i, 0.0) + 1.0 / (k + rank)
            ranks.setdefault(i, {})[name] = rank
    order = sorted(scores, key=lambda i: (-scores[i], i))
    return [(i, scores[i], ranks[i]) for i in order]


def graph_ranking(
    scope: Scope, vector: list[int], lexical: list[int], sims: np.ndarray
) -> list[int]:
    s = scope.settings
    corpus, graph = scope.corpus, scope.graph
    votes: dict[int, float] = {}
    for ranking in (vector, lexical):
        for rank, i in enumerate(ranking[: s.hybrid_graph_seeds], start=1):
            weight = 1.0 / rank
            votes[i] = votes.get(i, 0.0) + weight
            near = _closest_neighbours(graph, corpus, corpus.uris[i], sims, s.graph_max_neighbors)
            for j in near:
                votes[j] = votes.get(j, 0.0) + weight
    allowed = scope.allowed
    kept = [i for i in votes if allowed is None or allowed[i]]
    kept.sort(key=lambda i: (-votes[i], -float(sims[i]), i))
    return kept[: s.rrf_depth]


def _closest_neighbours(
    graph: VaultGraph, corpus: Corpus, uri: str, sims: np.ndarray, limit: int
) -> list[int]:
    """The ``limit`` neighbours of ``uri`` most similar to the query (a hub's are many),
    best first, ties to the lower index. Their corpus indices are kept per graph: a
    hub's thousands of neighbours were gathered into a set and sorted in Python for
    every question."""
    table: dict[str, tuple[Corpus, np.ndarray]] = graph.derived("neighbour-indices", dict)
    hit = table.get(uri)
    if hit is None or hit[0] is not corpus:
        index_of = corpus.index_of
        near = sorted(index_of[u] for u in graph.neighbours(uri) if u in index_of)
        hit = table[uri] = (corpus, np.array(near, dtype=np.int64))
    idx = hit[1]
    if len(idx) <= 1:
        return [int(i) for i in idx]
    order = np.lexsort((idx, -sims[idx]))
    return [int(i) for i in idx[order[:limit]]]


def graph_search(
    scope: Scope, query: str, query_vec: np.ndarray, top_k: int, hops: int
) -> GraphSearchResult:
    """``graph_search``: ``top_k`` vector anchors, then ``hops`` steps up/out
    (parent, link targets -> ``parents``) and down/in (children, backlinks -> ``children``).
    Each note is listed once, where first found; at most ``graph_max_neighbors`` per note
    and direction, the most similar to the query first."""
    s = scope.settings
    corpus, graph = scope.corpus, scope.graph
    chunk_scores = corpus.chunk_scores(query_vec)
    sims = corpus.note_sims(chunk_scores)
    anchors = top_notes(sims, top_k, scope.allowed, -1.0)
    focus = [vector_hit(scope, i, float(sims[i]), chunk_scores) for i in anchors]
    visited = {corpus.uris[i] for i in anchors}
    parents: list[str] = []
    children: list[str] = []

    def rank(uris: list[str]) -> list[str]:
        def key(u: str) -> tuple[float, str]:
            i = corpus.index_of.get(u)
            return (-float(sims[i]) if i is not None else 1.0, u)

        return sorted(dict.fromkeys(uris), key=key)[: s.graph_max_neighbors]

    def shown(uri: str) -> bool:
        i = corpus.index_of.get(uri)
        if i is None:
            return scope.allowed is None and graph.is_traversable(uri)
        return scope.allowed is None or bool(scope.allowed[i])

    current = [corpus.uris[i] for i in anchors]
    for _ in range(max(hops, 0)):
        step: list[str] = []
        for uri in current:
            parent = graph.parent(uri)
            up = ([parent] if parent else []) + [link.target for link in graph.outlinks(uri)]
            down = list(graph.children(uri)) + list(graph.backlinks(uri))
            for found, out in ((rank(up), parents), (rank(down), children)):
                for n in found:
                    if n not in visited and graph.is_traversable(n):
                        visited.add(n)
                        step.append(n)
                        if shown(n):
                            out.append(n)
        current = step

    def ut(uri: str) -> UriAndTitle:
        return UriAndTitle(uri, graph.info(uri).title)

    return GraphSearchResult(
        query, tuple(focus), tuple(ut(u) for u in parents), tuple(ut(u) for u in children)
    )
