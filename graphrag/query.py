"""Query mode: a question and a token budget -> entry notes, related notes, connections.

Pipeline (DESIGN section 4, query mode):

1. entries: blended vector / lexical / tag / title score (``entry.py``);
2. the focus-mode BFS from every entry at once (each at depth 0, same caps,
   ``max_hops`` deep), children and backlinks chosen by similarity to the
   question; then path and tag expansion (``expand.py``);
3. final score = graph_weight x relevance / its maximum + vector_weight x
   best-chunk cosine + recency; notes under ``min_similarity`` are dropped unless
   structurally close (``close_depth`` hops from an entry, or on a path between
   entries);
4. entries, then related notes by score, while each rendered note fits the
   budget (entries included) and ``max_documents`` is not reached.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from indexer.load import IndexSnapshot

from .budget import MIN_NOTE_TOKENS, NOTE_OVERHEAD_TOKENS, TokenCounter
from .corpus import Corpus
from .details import query_details
from .entry import Entry, ParsedQuery, select_entries
from .expand import path_expansion, shared_tags, tag_expansion
from .filters import Filters
from .focus import related_note
from .focus_settings import FocusSettings
from .graph import VaultGraph
from .lexical import lexical_index
from .model import FocusNote, OutboundLink, Relation, SkippedNote, UriAndTitle
from .query_model import EntryExplain, EntryNote, QueryExplain, QueryNote, QueryResult
from .query_render import Doc, connection_lines, renderer
from .query_selector import SimilaritySelector
from .query_settings import QuerySettings
from .render import path_text
from .score import SECONDS_PER_DAY, score
from .traverse import Candidate, traverse

TAG_DISTANCE = 2  # note -> #tag -> note: two edges in the vault's graph
CHARS_PER_TOKEN = 4  # English prose in cl100k, near enough to size an entry's share
MAX_CHARS_PER_TOKEN = 8  # hardly any text packs more: a safe lower bound of a note's cost
MIN_ENTRY_CHARS = 200


@dataclass(frozen=True, slots=True)
class _Found:
    cand: Candidate
    close: bool
    path: tuple[str, ...]
    how: str  # explain text of the path
    weight: float = 1.0  # its entry's score relative to the best entry's
    context: float = -1.0  # cosine of the entry passage that links to it, if any


@dataclass(frozen=True, slots=True)
class _Ranked:
    found: _Found
    explain: QueryExplain


def run_query(
    index: IndexSnapshot,
    graph: VaultGraph,
    corpus: Corpus,
    question: ParsedQuery,
    query_vec: np.ndarray,
    budget: int,
    qs: QuerySettings,
    fs: FocusSettings,
    tokenizer: TokenCounter,
    *,
    seed: int | None = None,
    explain: bool = False,
    filters: Filters | None = None,
    output: str = "json",
    now: float | None = None,
) -> QueryResult:
    render = renderer(output)  # fail on a bad format before any work
    now = time.time() if now is None else now
    rng = random.Random(seed)
    chunk_scores = corpus.chunk_scores(query_vec)
    sims = corpus.note_sims(chunk_scores)
    lexical = (
        lexical_index(corpus, qs.stemmer_language).score(question.search_text, len(corpus))
        if qs.lexical_enabled
        else None
    )
    allowed = filters.mask(corpus, graph) if filters is not None else None
    filters_json = filters.to_json() if filters is not None and filters.active else None
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
    found = _weigh(found, entries, link_context(corpus, entries, chunk_scores))
    ranked, dropped = _rank(graph, corpus, found, qs, fs, rng, now, similarity)

    chunk_text = _DetailSource(index, corpus, chunk_scores)
    # In the prompt, part of the budget is kept for the [Connection] lines, which are
    # counted too and would otherwise never fit after the notes have filled it.
    reserve = int(budget * qs.connection_budget_share) if output == "prompt" else 0
    docs: list[Doc] = []
    skipped: list[SkippedNote] = list(dropped)
    used = 0

    def fit(make: Callable[[int], Doc | None]) -> Doc | None:
        nonlocal used
        doc = make(0)
        if doc is None:
            return None
        tokens = tokenizer.count(render(doc, len(docs) + 1))
        if tokens > budget - reserve - used and isinstance(doc, EntryNote) and doc.note.details:
            shorter = make(MIN_ENTRY_CHARS)  # an entry that does not fit: its best chunk
            if shorter is not None:
                doc, tokens = shorter, tokenizer.count(render(shorter, len(docs) + 1))
        if tokens > budget - reserve - used:
            skipped.append(SkippedNote(doc.uri, doc.title, "budget", tokens))
            return None
        docs.append(doc)
        used += tokens
        return doc

    # Entries share ``entry_budget_share`` of the budget: with a small budget every entry
    # shows its best chunks rather than the first entry filling it alone. What is left
    # of an entry's share after its lists and metadata goes to its details.
    share = budget * qs.entry_budget_share / len(entries)
    for e in entries:
        if len(docs) >= qs.max_documents:
            skipped.append(SkippedNote(e.uri, graph.info(e.uri).title, "max_documents"))
            continue
        bare = _entry_note(graph, e, chunk_text, qs, 0, explain)
        room = int((share - tokenizer.count(render(bare, 1))) * CHARS_PER_TOKEN)
        entry_limit = max(min(qs.entry_truncate_length, room), MIN_ENTRY_CHARS)
        fit(lambda limit, b=bare, n=entry_limit: _with_details(b, chunk_text, limit or n))
    for item in ranked:
        cand = item.found.cand
        left = budget - reserve - used
        if len(docs) >= qs.max_documents or left < MIN_NOTE_TOKENS:
            if not explain:
                break
            reason = "max_documents" if len(docs) >= qs.max_documents else "budget"
            skipped.append(SkippedNote(cand.uri, graph.info(cand.uri).title, reason))
            continue
        i = corpus.index_of.get(cand.uri)
        chars = min(int(corpus.body_chars[i]), fs.truncate_length) if i is not None else 0
        if chars // MAX_CHARS_PER_TOKEN > left:  # surely too big: do not build and count it
            skipped.append(SkippedNote(cand.uri, graph.info(cand.uri).title, "budget"))
            continue
        fit(lambda _limit, item=item: _query_note(graph, item, chunk_text, fs, explain))

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


def nothing_found(question: ParsedQuery, filters: dict | None, graph: VaultGraph) -> str:
    where = " among the notes the filters keep" if filters else ""
    missing = [
        t
        for t in question.tags
        if not any(n == t or n.startswith(t + "/") for n in graph.tag_members)
    ]
    tags = f" (no note has {', '.join('#' + t for t in missing)})" if missing else ""
    return f"no note is relevant to {question.text!r}{where}{tags}"


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
) -> list[_Found]:
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
    found: list[_Found] = []
    pool = set(sources)
    for c in walk.candidates:
        pool.add(c.uri)
        if emittable(c.uri):
            close = c.depth <= qs.close_depth or c.uri in on_path
            found.append(_Found(c, close, (c.origin, *c.via, c.uri), ""))
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
        found.append(_Found(cand, True, path, "path between entries"))
    if qs.tag_expansion_enabled:
        blocked = np.zeros(len(corpus), dtype=bool) if allowed is None else ~allowed
        blocked[corpus.indices(pool)] = True
        for hit in tag_expansion(graph, corpus, sources, qs, blocked, sims):
            cand = Candidate(hit.uri, TAG_DISTANCE, (), (), hit.entry, Relation.SharesTag, seq)
            seq += 1
            how = "shares " + ", ".join("#" + t for t in hit.tags)
            found.append(_Found(cand, False, (hit.entry, hit.uri), how))
    return found


# -- scoring ---------------------------------------------------------------------------------
def link_context(
    corpus: Corpus, entries: list[Entry], chunk_scores: np.ndarray
) -> dict[str, dict[str, float]]:
    """entry -> link target -> cosine of the entry's passage (chunk) holding the link.

    The bridge of a multi-hop question: "who runs the cellar?" matches the cellar
    note's passage "run by [[Mira Halvorsen]]", not Mira's own note. A link in front
    matter (``keeper: [[Tobias]]``) belongs to the whole note: its best passage."""
    out: dict[str, dict[str, float]] = {}
    for e in entries:
        lo, hi = corpus.chunk_rows(e.index)
        if hi == lo:
            continue
        lines = corpus.rows(
            "SELECT start_line, end_line FROM chunks WHERE uri = ? ORDER BY seq", (e.uri,)
        )
        if len(lines) != hi - lo:
            continue
        scores = chunk_scores[lo:hi]
        best = float(scores.max())
        found: dict[str, float] = {}
        for target, line, kind in corpus.rows(
            "SELECT target, line, kind FROM links WHERE source = ? AND hierarchy = 0", (e.uri,)
        ):
            if kind == "property":
                sim = best
            else:
                sim = max(
                    (float(scores[j]) for j, (a, b) in enumerate(lines) if a <= (line or 0) < b),
                    default=-1.0,
                )
            found[target] = max(found.get(target, -1.0), sim)
        out[e.uri] = found
    return out


def _weigh(
    found: list[_Found], entries: list[Entry], context: dict[str, dict[str, float]]
) -> list[_Found]:
    top = max((e.score for e in entries), default=0.0)
    weight = {e.uri: (e.score / top if top > 0 else 1.0) for e in entries}
    out = []
    for f in found:
        c = f.cand
        # Any note one hop from its entry that the entry links to (as Object, or as a
        # Child or Parent that is also linked from the text).
        linked = context.get(c.origin, {}).get(c.uri, -1.0) if c.depth == 1 else -1.0
        out.append(replace(f, weight=weight.get(c.origin, 1.0), context=linked))
    return out


def _rank(
    graph: VaultGraph,
    corpus: Corpus,
    found: list[_Found],
    qs: QuerySettings,
    fs: FocusSettings,
    rng: random.Random,
    now: float,
    similarity: Callable[[str], float],
) -> tuple[list[_Ranked], list[SkippedNote]]:
    weights = {
        **fs.relation_weights,
        Relation.SharesTag.value: qs.shares_tag_weight,
        Relation.OnPathBetweenEntries.value: qs.on_path_weight,
    }
    # Recency is added once, below, with the query's own weight.
    scoring = replace(fs, w_recency=0.0, relation_weights=weights)
    top = (
        scoring.w_relationship * max(weights.values(), default=0.0)
        + scoring.w_depth * max(scoring.depth_bonus, default=0.0)
        + scoring.jitter_range
    )
    ranked: list[tuple[float, int, _Ranked]] = []
    dropped: list[SkippedNote] = []
    for order, f in enumerate(found):  # discovery order: the jitter draws are reproducible
        c = f.cand
        parts = score(c.relation, c.depth, None, now, scoring, rng)
        # Notes reached from a weaker entry are weaker evidence.
        relevance = min(max(parts.total / top, 0.0), 1.0) * f.weight if top > 0 else 0.0
        sim = max(similarity(c.uri), f.context)
        i = corpus.index_of.get(c.uri)
        created = graph.info(c.uri).created
        recency = 0.0
        if i is not None and corpus.dated[i] and created:
            age_days = max(0.0, now - created) / SECONDS_PER_DAY
            recency = qs.recency_bonus * math.exp(-age_days / qs.recency_half_days)
        total = qs.graph_weight * relevance + recency
        if qs.hybrid_enabled:
            total += qs.vector_weight * max(sim, 0.0)
        if sim < qs.min_similarity and not f.close:
            dropped.append(SkippedNote(c.uri, graph.info(c.uri).title, "similarity"))
            continue
        explain = QueryExplain(
            score=total,
            relevance=relevance,
            similarity=sim,
            recency=recency,
            relevance_parts={
                "relationship": parts.relationship,
                "depth": parts.depth,
                "jitter": parts.jitter,
            },
            distance=c.depth,
            path=f.how,
        )
        ranked.append((-total, order, _Ranked(f, explain)))
    ranked.sort(key=lambda r: (r[0], r[1]))
    return [r[2] for r in ranked], dropped


# -- building notes --------------------------------------------------------------------------
class _DetailSource:
    def __init__(self, index: IndexSnapshot, corpus: Corpus, chunk_scores: np.ndarray) -> None:
        self.index = index
        self.corpus = corpus
        self.chunk_scores = chunk_scores

    def __call__(self, uri: str, limit: int) -> tuple[str, bool]:
        return query_details(self.index, self.corpus, uri, self.chunk_scores, limit)


def _ut(graph: VaultGraph, uri: str) -> UriAndTitle:
    return UriAndTitle(uri, graph.info(uri).title if uri in graph else uri)


def _entry_note(
    graph: VaultGraph,
    e: Entry,
    details: _DetailSource,
    qs: QuerySettings,
    limit: int,
    explain: bool,
) -> EntryNote:
    """The entry as a focus note with lists cut to ``entry_list_limit`` (a hub's thousand
    backlinks are not worth their tokens here) and details of at most ``limit`` chars."""
    info = graph.info(e.uri)
    n = qs.entry_list_limit
    parent = graph.parent(e.uri)
    siblings = graph.children(parent) if parent is not None else ()
    at = siblings.index(e.uri) if e.uri in siblings else len(siblings)

    def listed(items: tuple[str, ...] | list[str]) -> tuple[UriAndTitle, ...]:
        return tuple(_ut(graph, u) for u in items)

    links = []
    for link in graph.outlinks(e.uri)[:n]:
        node = graph.nodes.get(link.target)
        kind = node.kind if node is not None else "ghost"
        title = node.title if node is not None else link.target.rsplit("/", 1)[-1]
        links.append(
            OutboundLink(link.target, title, link.predicate, None if kind == "note" else kind)
        )
    focus = FocusNote(
        uri=e.uri,
        title=info.title,
        details="",
        created_at=info.created or None,
        parent=_ut(graph, parent) if parent is not None else None,
        contextual_path=listed(graph.contextual_path(e.uri)),
        children=listed(graph.children(e.uri)[:n]),
        prior_siblings=listed(siblings[max(at - n, 0) : at]),
        younger_siblings=listed(siblings[at + 1 : at + 1 + n]),
        inbound_references=listed(graph.backlinks(e.uri)[:n]),
        outbound_links=tuple(links),
        tags=info.tags,
    )
    parts = EntryExplain(e.score, e.vector, e.lexical, e.tags, e.title) if explain else None
    return _with_details(EntryNote(focus, e.matched_by, False, parts), details, limit)


def _with_details(entry: EntryNote, details: _DetailSource, limit: int) -> EntryNote:
    text, cut = details(entry.uri, limit) if limit > 0 else ("", False)
    return replace(entry, note=replace(entry.note, details=text), details_truncated=cut)


def _query_note(
    graph: VaultGraph,
    item: _Ranked,
    details: _DetailSource,
    fs: FocusSettings,
    explain: bool,
) -> QueryNote:
    f = item.found
    cand = f.cand
    text, cut = details(cand.uri, fs.truncate_length)
    note = related_note(graph, cand, text, cut)
    focus = _ut(graph, cand.origin)
    how = f.how or path_text(focus.title, note)
    return QueryNote(
        note=note,
        focus=focus,
        shared_tags=shared_tags(graph, cand.origin, cand.uri),
        distance=cand.depth,
        path=tuple(_ut(graph, u) for u in f.path),
        explain=replace(item.explain, path=how) if explain else None,
    )
