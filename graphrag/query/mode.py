"""Query mode: a question and a token budget -> entry notes, related notes, connections.

Pipeline (docs/architecture.md, "Query mode"):

1. entries: blended vector / lexical / tag / title score (``entry.py``);
2. the focus-mode BFS from every entry at once (each at depth 0, same caps,
   ``max_hops`` deep), children and backlinks chosen by similarity to the
   question; then path and tag expansion (``expand.py``);
3. final score = graph_weight x relevance / its maximum + vector_weight x
   similarity (best-chunk cosine, or the cosine of the entry passage that links
   to the note, ``query_score.py``) + recency; notes under
   ``min_similarity`` are dropped unless structurally close (within
   ``close_depth`` hops of an entry, by default the traversal's own ``max_hops``,
   or on a path between entries);
4. packing (``pack.py``): entries with their best passages, the best vector
   hit and the best BM25 hit (if the vector view ranks it among its best
   ``max_documents`` too: ``vector_agrees``), the note their passages name
   without a link that the graph does not reach (``mentions.py``; the ones it
   reaches count as bridges, and so do the others they write as names), then the
   related notes fused with the hybrid ranking (each view's best notes first: the
   search's seeds, the graph's best, the bridges, the notes two entries link to;
   before them BM25's best hits that write a rare identifier the question quotes,
   ``identifiers.py``),
   while each rendered note fits the budget (entries included) and
   ``max_documents`` is not reached, then ``hybrid_search``'s ranking while tokens
   remain; copies take no slot; entries' lists get what is left.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from graphrag.budget import NOTE_OVERHEAD_TOKENS, TokenCounter
from graphrag.config.focus import FocusSettings
from graphrag.config.query import QuerySettings
from graphrag.focus.traverse import Candidate, traverse
from graphrag.query.copies import body_shingles
from graphrag.query.entry import Entry, ParsedQuery, select_entries, text_evidence
from graphrag.query.expand import path_expansion, tag_expansion
from graphrag.query.fusion import fill_hits, search_hits
from graphrag.query.identifiers import identifier_hits
from graphrag.query.mentions import unlinked_mentions
from graphrag.query.notes import DetailSource
from graphrag.query.pack import Packer, Packing
from graphrag.query.render import connection_lines, renderer
from graphrag.query.request import QueryRequest
from graphrag.query.score import LIST_LINKS, Found, Ranked, link_context, rank, weigh
from graphrag.query.selector import SimilaritySelector
from graphrag.results.notes import Relation
from graphrag.results.query import EntryNote, QueryNote, QueryResult
from graphrag.search.searches import Scope, fused_ranking, text_ranking, top_notes
from graphrag.snapshot.corpus import Corpus
from graphrag.snapshot.graph import VaultGraph
from graphrag.snapshot.lexical import lexical_index
from indexer.load import IndexSnapshot

TAG_DISTANCE = 2  # note -> #tag -> note: two edges in the vault's graph


def run_query(
    request: QueryRequest,
    *,
    index: IndexSnapshot,
    graph: VaultGraph,
    corpus: Corpus,
    vector: np.ndarray,
    tokenizer: TokenCounter,
) -> QueryResult:
    """Answer ``request`` on one snapshot's data: ``vector`` is the question's embedding
    (``request.search_text``), ``graph`` the view to traverse (eval hides links from it).

    The request is settled where it came in (``graphrag.query.request``); nothing here
    parses the question or the filters again.
    """
    question, budget, output = request.question, request.budget, request.output
    qs, fs, filters, explain = request.query, request.focus, request.filters, request.explain
    render = renderer(output)
    now = time.time() if request.now is None else request.now
    rng = random.Random(request.seed)
    chunk_scores = corpus.chunk_scores(vector)
    sims = corpus.note_sims(chunk_scores)
    lexicon = lexical_index(corpus, qs.stemmer_language) if qs.lexical_enabled else None
    lexical = lexicon.score(question.search_text, len(corpus)) if lexicon is not None else None
    allowed = filters.mask(corpus, graph)
    filters_json = filters.to_json() if filters.active else None
    entries = select_entries(question, sims, lexical, corpus, graph, qs, allowed)
    if not entries:
        return QueryResult(
            question.text,
            (),
            (),
            budget,
            0,
            message=nothing_found(question, filters_json, graph),
            filters=filters_json,
        )

    def similarity(uri: str) -> float:
        i = corpus.index_of.get(uri)
        return float(sims[i]) if i is not None else 0.0

    def emittable(uri: str) -> bool:
        i = corpus.index_of.get(uri)
        if i is None:  # a virtual folder: no text, and no metadata to filter on
            return fs.emit_virtual_notes and allowed is None and graph.info(uri).kind == "folder"
        return allowed is None or bool(allowed[i])

    found = _discover(
        graph, corpus, entries, sims, qs, fs, rng, budget, emittable, similarity, allowed
    )
    found = weigh(
        found, entries, link_context(corpus, [e.uri for e in entries], chunk_scores, graph)
    )
    ranked, dropped = rank(graph, corpus, found, qs, fs, rng, now, similarity)

    chunk_text = DetailSource(index, corpus, chunk_scores, qs.show_properties, request.details)
    # In the prompt, part of the budget is kept for the [Connection] lines, which are
    # counted too and would otherwise never fit after the notes have filled it.
    reserve = int(budget * qs.connection_budget_share) if output == "prompt" else 0
    scope = Scope(index, graph, corpus, qs, allowed)
    lex = lexical.scores if lexical is not None else None
    by_vector, by_lexical = text_evidence(sims, lexical, qs)
    # The graph's view is query mode's own ranking: the search's view it is fused with
    # is the text's (vector, BM25). The rest of hybrid_search's ranking fills last.
    text = [i for i, _, _ in text_ranking(scope, sims, lex)]
    hits = search_hits(graph, corpus, text, by_vector | by_lexical, qs.hybrid_graph_seeds)
    fused = [i for i, _, _ in fused_ranking(scope, sims, lex)]
    rest = fill_hits(corpus, fused)
    best_hits = top_notes(sims, 1, allowed, -1.0)
    if lex is not None:
        best_hits += [
            i
            for i in top_notes(lex, 1, allowed, 0.0)
            if vector_agrees(i, sims, allowed, qs.documents)
        ]
    # The notes writing a rare identifier the question quotes (a plugin's ID), among
    # BM25's best: tried first, though the vector ranks them low (``identifiers.py``).
    quoting = (
        identifier_hits(
            question.search_text,
            corpus,
            graph,
            lexicon,
            top_notes(lex, qs.documents, allowed, 0.0),
        )
        if lexicon is not None and lex is not None
        else []
    )
    entry_notes = [corpus.index_of[e.uri] for e in entries if e.uri in corpus.index_of]
    reached, unreached, named = _mentioned(
        index, corpus, graph, chunk_scores, best_hits, entry_notes, ranked, qs
    )

    def evidence(found: list[int]) -> list[int]:  # as a search hit's must be
        return [
            i
            for i in found
            if (by_vector[i] or by_lexical[i]) and (allowed is None or bool(allowed[i]))
        ]

    # The part of the question the best hits leave open: of the notes their passages
    # name and the graph does not reach, the one most similar to the question, pinned
    # after them, if its text is evidence; the others written as names, bridges.
    best_hits += sorted(evidence(unreached), key=lambda i: (-sims[i], i))[:1]
    named_hits = tuple(corpus.uris[i] for i in evidence(named))
    bodies = body_shingles(corpus, index)
    packing = Packing(budget - reserve, render, tokenizer, qs.documents, bodies, qs.hard_cap)
    packing.skipped.extend(dropped)
    packer = Packer(
        graph,
        corpus,
        chunk_text,
        qs,
        fs,
        sims,
        explain,
        reached,
        named_hits,
        tuple(corpus.uris[i] for i in quoting),
    )
    best = [corpus.uris[i] for i in best_hits]
    packer.pack(packing, entries, ranked, hits, best, budget, rest)
    docs, skipped, used = packing.docs, packing.not_shown(), packing.used

    connections: list[str] = []
    for line in connection_lines(graph, docs)[: qs.max_connections]:
        cost = tokenizer.count(line) if output == "prompt" else 0
        if cost > budget - used:
            break
        connections.append(line)
        used += cost
    return QueryResult(
        query=question.text,
        entries=tuple(d for d in docs if isinstance(d, EntryNote)),
        related=tuple(d for d in docs if isinstance(d, QueryNote)),
        budget=budget,
        tokens_used=used,
        connections=tuple(connections),
        filters=filters_json,
        skipped=tuple(skipped) if explain else None,
    )


def vector_agrees(i: int, sims: np.ndarray, allowed: np.ndarray | None, k: int) -> bool:
    """Whether the vector view ranks note ``i`` among its ``k`` best (notes tied with it
    count after it): the best BM25 hit is pinned only then. Past that, BM25 alone puts it
    first, the way a long page holding most of the vault's vocabulary matches a
    question's words in different sections. On the nine hand-written sets (220
    questions) the best BM25 hit was a gold note in 143 of the 182 questions where the
    vector ranked it among its best 15, in 7 of the 38 where it did not
    (benchmarks/RESULTS.md, "Session 9")."""
    higher = sims > sims[i]
    if allowed is not None:
        higher &= allowed
    return int(np.count_nonzero(higher)) < k


def nothing_found(question: ParsedQuery, filters: dict | None, graph: VaultGraph) -> str:
    where = " among the notes the filters keep" if filters else ""
    missing = [
        t
        for t in question.tags
        if not any(n == t or n.startswith(t + "/") for n in graph.tag_members)
    ]
    tags = f" (no note has {', '.join('#' + t for t in missing)})" if missing else ""
    return f"no note is relevant to {question.text!r}{where}{tags}"


def _mentioned(
    index: IndexSnapshot,
    corpus: Corpus,
    graph: VaultGraph,
    chunk_scores: np.ndarray,
    best_hits: list[int],
    entry_notes: list[int],
    ranked: list[Ranked],
    qs: QuerySettings,
) -> tuple[frozenset[str], list[int], list[int]]:
    """The notes the best hits' and the entries' passages name without a link
    (``mentions.py``), split: those the graph reached too (uris: they count as bridges
    in the fusion, as a link from the passage would), and those it did not (indices:
    the content join no link makes; the best hits' only, the question's best text
    deciding what it leaves open), in two forms: any the best hits' passages name
    (the most similar is pinned after them), and those they write as names, from a
    passage that is no list (``score.LIST_LINKS``): bridges. Of the latter with
    evidence of their own, 4 of 17 were gold notes on the ten hand-written sets, and
    none of the 10 written in lower case (benchmarks/RESULTS.md, "Session 11: every
    name a best hit writes").

    An entry's passage is read further from the question than a best hit's: there a
    name counts only when written as one (capitalised or emphasised). Docs vaults title
    notes after their everyday phrases ("Mobile app", "Community plugins") and write
    them in lower case in passing; a passage saying "the mobile app" is no bridge."""
    mentioned = unlinked_mentions(
        index, corpus, graph, chunk_scores, best_hits, qs.title_max_notes, qs.title_min_chars
    )
    from_entries = unlinked_mentions(
        index,
        corpus,
        graph,
        chunk_scores,
        [i for i in entry_notes if i not in best_hits],
        qs.title_max_notes,
        qs.title_min_chars,
        written_as_name=True,
    )
    if not mentioned and not from_entries:
        return frozenset(), [], []
    named = unlinked_mentions(
        index,
        corpus,
        graph,
        chunk_scores,
        best_hits,
        qs.title_max_notes,
        qs.title_min_chars,
        written_as_name=True,
        most=LIST_LINKS,
    )
    in_graph = {r.found.cand.uri for r in ranked}
    # An entry named by another source's passage is no bridge: it is an entry already.
    sources = {*best_hits, *entry_notes}
    reached = frozenset(
        corpus.uris[i]
        for i in (*mentioned, *from_entries)
        if corpus.uris[i] in in_graph and i not in sources
    )
    return (
        reached,
        [i for i in mentioned if corpus.uris[i] not in in_graph],
        [i for i in named if corpus.uris[i] not in in_graph and i not in sources],
    )


# -- discovery -------------------------------------------------------------------------------
def _discover(
    graph: VaultGraph,
    corpus: Corpus,
    entries: list[Entry],
    sims: np.ndarray,
    qs: QuerySettings,
    fs: FocusSettings,
    rng: random.Random,
    budget: int,
    emittable: Callable[[str], bool],
    similarity: Callable[[str], float],
    allowed: np.ndarray | None,
) -> list[Found]:
    sources = [e.uri for e in entries]
    limit = fs.truncate_length

    def estimate(uri: str) -> int:
        # ~4 characters a token: counting every candidate's text would cost more than
        # the rest of the query, and this only decides when to stop discovering.
        i = corpus.index_of.get(uri)
        chars = int(corpus.body_chars[i]) if i is not None else 0
        return min(chars, limit) // 4 + NOTE_OVERHEAD_TOKENS

    walk = traverse(
        graph,
        sources,
        replace(fs, max_depth=qs.max_hops),
        rng,
        budget=budget,
        estimate=estimate,
        emittable=emittable,
        selector=SimilaritySelector(corpus, graph, sims),
    )
    paths = path_expansion(graph, sources, qs, similarity) if qs.path_expansion_enabled else []
    on_path = {p.uri: p for p in paths}
    found: list[Found] = []
    pool = set(sources)
    for c in walk.candidates:
        pool.add(c.uri)
        if emittable(c.uri):
            close = c.depth <= qs.close_depth or c.uri in on_path
            found.append(Found(c, close, (c.origin, *c.via, c.uri), ""))
    seq = len(pool)
    for p in paths:
        if p.uri in pool or not emittable(p.uri):
            continue
        pool.add(p.uri)
        at = p.path.index(p.uri)
        via = p.path[1:at] if p.path[0] == p.entry else tuple(reversed(p.path[at + 1 : -1]))
        cand = Candidate(p.uri, p.distance, (), via, p.entry, Relation.OnPathBetweenEntries, seq)
        seq += 1
        path = p.path if p.path[0] == p.entry else tuple(reversed(p.path))
        found.append(Found(cand, True, path, "path between entries"))
    if qs.tag_expansion_enabled:
        blocked = np.zeros(len(corpus), dtype=bool) if allowed is None else ~allowed
        blocked[corpus.indices(pool)] = True
        for hit in tag_expansion(graph, corpus, sources, qs, blocked, sims):
            cand = Candidate(hit.uri, TAG_DISTANCE, (), (), hit.entry, Relation.SharesTag, seq)
            seq += 1
            how = "shares " + ", ".join("#" + t for t in hit.tags)
            found.append(Found(cand, False, (hit.entry, hit.uri), how))
    return found
