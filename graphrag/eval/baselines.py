"""Graph-free retrieval baselines, for measuring what the graph adds.

Both rank whole notes, then pack them in rank order under the token budget
the way query mode packs its search hits: each note is rendered exactly as
query mode renders a note found by its own match with the question (a search
hit, ``Packer.search_note``: relation ``MatchesQuestion``, its scalar
properties first as ``[query] show_properties`` shows them, then its best
chunks for the question, in the room ``Packer.related_limit`` gives a related
note at that budget), counted by the same token counter, under the same
``max_documents`` cap. So a difference in recall comes from which notes are
ranked first, not from how they are rendered (a test compares the two forms).
A note that does not fit what is left is tried in a smaller form before the next
one, as query mode's fill tries its hits (``FillForms.rooms``): its best passage
whole, then 200 characters.
A search hit is the cheapest form query mode has (its entry notes also carry
link lists and longer passages), which if anything favours the baselines.

* vector: a note scores its best chunk's cosine similarity to the question:
  the same vectors and the same best-chunk rule as query mode's vector entries
  (``Corpus.note_sims``), for all questions in one matrix product.
* bm25: query mode's lexical index (``lexical.py``: BM25 over title, aliases
  and body, stop words removed, Snowball stemming). Notes sharing no term
  with the question score 0 and are not returned: a keyword search does not
  find them.
* hybrid: ``hybrid_search``'s fused ranking (vector, BM25 and the graph votes
  of their best hits), the project's own search without query mode's packing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from graphrag.budget import MIN_NOTE_TOKENS, TokenCounter
from graphrag.config import Settings
from graphrag.config.query import QuerySettings
from graphrag.eval.answers import Shown, shown_text
from graphrag.eval.context import RELATION_KEYS, key_tokens, text_tokens
from graphrag.query.notes import DetailSource
from graphrag.query.pack import Packer
from graphrag.query.render import doc_json
from graphrag.results.query import QueryNote
from graphrag.search.searches import Scope, fused_ranking
from graphrag.snapshot.corpus import Corpus
from graphrag.snapshot.graph import VaultGraph
from graphrag.snapshot.lexical import lexical_index
from indexer.load import IndexSnapshot


@dataclass(frozen=True, slots=True)
class Packed:
    """What a baseline hands the model for one question: notes in rank order."""

    uris: tuple[str, ...]
    tokens: int
    text_tokens: int = 0  # of ``tokens``, the notes' details
    relation_tokens: int = 0  # of ``tokens``, the keys saying how a note relates
    shown: tuple[Shown, ...] = ()  # each note's text, for the answer words


# -- rankings -----------------------------------------------------------------------------
def note_scores(corpus: Corpus, queries: np.ndarray) -> np.ndarray:
    """(n_queries, n_notes): each note's best chunk cosine; -1 for notes without chunks.

    One matrix product for every question (numpy's BLAS path, so faiss's slow
    batched path under ``distance_compute_blas_threshold`` never comes up), then
    a per-note maximum over its contiguous block of chunk rows.
    """
    queries = np.atleast_2d(np.asarray(queries, dtype=np.float32))
    out = np.full((len(queries), len(corpus)), -1.0, dtype=np.float32)
    has_chunks = np.flatnonzero(corpus.chunk_start[1:] > corpus.chunk_start[:-1])
    if len(has_chunks) and len(corpus.matrix):
        chunk_scores = queries @ corpus.matrix.T
        starts = corpus.chunk_start[has_chunks]
        out[:, has_chunks] = np.maximum.reduceat(chunk_scores, starts, axis=1)
    return out


def rank_by_vector(corpus: Corpus, queries: np.ndarray) -> list[list[str]]:
    """Per query, every note that has a chunk, best chunk first (ties by uri)."""
    out = []
    for row in note_scores(corpus, queries):
        keep = np.flatnonzero(row > -1.0)
        # lexsort's last key is the primary one; corpus order is uri order.
        order = keep[np.lexsort((keep, -row[keep]))]
        out.append([corpus.uris[i] for i in order])
    return out


def rank_by_bm25(corpus: Corpus, questions: Sequence[str], language: str) -> list[list[str]]:
    """Per question, the notes sharing a term with it, best BM25 first (ties by uri)."""
    index = lexical_index(corpus, language)
    out = []
    for text in questions:
        scores = index.score(text, len(corpus)).scores
        keep = np.flatnonzero(scores > 0)
        order = keep[np.lexsort((keep, -scores[keep]))]
        out.append([corpus.uris[i] for i in order])
    return out


def rank_by_hybrid(
    index: IndexSnapshot,
    graph: VaultGraph,
    corpus: Corpus,
    settings: QuerySettings,
    queries: np.ndarray,
    questions: Sequence[str],
    graphs: Sequence[VaultGraph] | None = None,
) -> list[list[str]]:
    """Per question, ``hybrid_search``'s order: RRF of the vector ranking, BM25 and
    the graph votes of their best hits (``search.searches.fused_ranking``).
    ``graphs``: one graph per question to vote with instead of ``graph`` (``eval
    --from-links`` hides each question's link from the graph that answers it)."""
    scope = Scope(index, graph, corpus, settings)
    lexical = lexical_index(corpus, settings.stemmer_language)
    sims = note_scores(corpus, queries)
    views = graphs if graphs is not None else [graph] * len(questions)
    out = []
    for row, text, view in zip(sims, questions, views, strict=True):
        lex = lexical.score(text, len(corpus)).scores
        asked = scope if view is graph else replace(scope, graph=view)
        out.append([corpus.uris[i] for i, _, _ in fused_ranking(asked, row, lex)])
    return out


# -- packing ------------------------------------------------------------------------------
def pack(
    ranked: Iterable[str],
    budget: int,
    build: Callable[[str], QueryNote],
    tokenizer: TokenCounter,
    max_documents: int,
    smaller: Callable[[str, int], QueryNote | None] | None = None,
) -> Packed:
    """Take notes in rank order while each one's rendered form fits what is left.

    Like query mode's fill: a note too big for what is left is tried in a smaller
    form (``smaller(uri, tokens left)``: one that fits, or None), else skipped and
    the next one tried; packing stops when less than the smallest possible note is
    left or ``max_documents`` notes are in.
    """
    used = text = relations = 0
    chosen: list[str] = []
    shown: list[Shown] = []
    for uri in ranked:
        if len(chosen) >= max_documents or budget - used < MIN_NOTE_TOKENS:
            break
        note = build(uri)
        tokens = tokenizer.count(doc_json(note))
        if tokens > budget - used and smaller is not None:
            small = smaller(uri, budget - used)
            if small is not None:
                note, tokens = small, tokenizer.count(doc_json(small))
        if tokens <= budget - used:
            chosen.append(uri)
            shown.append((uri, shown_text(uri, note.title, note.note.details)))
            used += tokens
            text += text_tokens(note.note.details, tokenizer)
            relations += key_tokens(note.to_json(with_explain=False), RELATION_KEYS, tokenizer)
    return Packed(tuple(chosen), used, text, relations, tuple(shown))


class NoteBuilder:
    """One question's notes as query mode renders its search hits, at each budget
    (``at``): the same ``DetailSource`` and ``Packer`` query mode builds them with,
    so the two forms cannot drift apart. Built notes are kept: the budgets share
    the ones whose room is the same."""

    def __init__(
        self,
        index: IndexSnapshot,
        graph: VaultGraph,
        corpus: Corpus,
        chunk_scores: np.ndarray,
        settings: Settings,
    ) -> None:
        qs = settings.query
        details = DetailSource(index, corpus, chunk_scores, qs.show_properties, settings.details)
        sims = corpus.note_sims(chunk_scores) if len(chunk_scores) else np.zeros(0, np.float32)
        self.packer = Packer(graph, corpus, details, qs, settings.focus, sims)
        self._cache: dict[tuple[str, int], QueryNote] = {}

    def __call__(self, uri: str, budget: int) -> QueryNote:
        """``uri`` as a search hit of a query mode result with token budget ``budget``."""
        limit = self.packer.related_limit(uri, budget)
        note = self._cache.get((uri, limit))
        if note is None:
            note = self._cache[(uri, limit)] = self.packer.search_note(uri, limit)
        return note

    def at(self, budget: int) -> Callable[[str], QueryNote]:
        """The notes as packed under ``budget``, for ``pack``."""
        return lambda uri: self(uri, budget)

    def smaller(
        self, uri: str, budget: int, left: int, tokenizer: TokenCounter
    ) -> QueryNote | None:
        """``uri`` in the first of the smaller rooms query mode's fill tries
        (``FillForms.rooms``) that fits ``left`` tokens, or None; a room whose floor
        (the index's per-chunk token counts) is more than ``left`` is not built."""
        details = self.packer.details
        for room in self.packer.forms.rooms(uri, self.packer.related_limit(uri, budget))[1:]:
            floor = details.floor(uri, details.passage(uri, room), tokenizer, enough=left)
            if floor is not None and floor > left:
                continue
            note = self._cache.get((uri, room))
            if note is None:
                note = self._cache[(uri, room)] = self.packer.search_note(uri, room)
            if tokenizer.count(doc_json(note)) <= left:
                return note
        return None

    def smaller_at(
        self, budget: int, tokenizer: TokenCounter
    ) -> Callable[[str, int], QueryNote | None]:
        """``smaller`` under ``budget``, for ``pack``."""
        return lambda uri, left: self.smaller(uri, budget, left, tokenizer)
