"""The order query mode tries related notes and search hits in (docs/architecture.md,
"Query mode", step 4; packing, ``pack.py``, spends the budget in this order).

The graph's ranking (``score.py``) and the text's (vector and BM25, as
``hybrid_search`` fuses them) are two views of which notes answer the question,
fused by reciprocal rank fusion with the bridges as a third ranking (``fuse``); the
notes one view ranks best go first, with the notes two entries link to
(``supported_first``, ``linked_by_entries``); a relation shared with more
notes than the context holds gets no vote from the graph (``shared_widely``). Search
hits need evidence of their own (``search_hits``); ``hybrid_search``'s whole ranking
fills what is left (``fill_hits``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence

import numpy as np

from graphrag.query.score import Ranked
from graphrag.results.notes import Relation
from graphrag.snapshot.corpus import Corpus
from graphrag.snapshot.graph import VaultGraph


def search_hits(
    graph: VaultGraph, corpus: Corpus, fused: Sequence[int], evidence: np.ndarray, seeds: int
) -> list[str]:
    """The notes of the text ranking ``fused`` (indices, best first) that query mode
    may show as search hits. A hit needs evidence, as an entry does: its own text
    (``evidence``, ``entry.text_evidence``), or a link to or from one of the best
    ``seeds`` hits that have it."""
    voters = [corpus.uris[i] for i in fused if evidence[i]][:seeds]
    linked = set().union(*(graph.neighbours(u) for u in voters))
    return [corpus.uris[i] for i in fused if evidence[i] or corpus.uris[i] in linked]


def fill_hits(corpus: Corpus, fused: Sequence[int]) -> list[str]:
    """``hybrid_search``'s ranking ``fused`` (indices, best first), graph votes
    included: it fills what the rest left of the budget, the notes not shown yet in its
    order, past ``max_documents`` while tokens remain, so a larger budget never holds
    less than ``hybrid_search`` would. Search hits the cap left out come back here in
    that order, with the hits that have no evidence of their own."""
    return [corpus.uris[i] for i in fused]


def item_uri(item: Ranked | str) -> str:
    """The uri of a related note (``Ranked``) or of a search hit (its uri)."""
    return item if isinstance(item, str) else item.found.cand.uri


def shared_widely(
    graph: VaultGraph, ranked: Sequence[Ranked], anchors: Iterable[str], most: int
) -> frozenset[str]:
    """The notes of ``ranked`` the graph reached only through a relation they share with
    more than ``most`` notes (``max_documents``, the most the context holds): a sibling
    through a folder holding more, unless it links to or from one of ``anchors`` (the
    entries and the bridges); a note linking to more (a hub's inbound reference). Such
    a relation is a category, not a neighbourhood: of a folder of 300 spells the
    traversal takes the siblings most similar to the question, so the graph's rank of
    one repeats the text's, and a hub that lists every spell says nothing of one."""
    linked: set[str] = set()
    for uri in anchors:
        linked.update(link.target for link in graph.outlinks(uri))
        linked.update(graph.backlinks(uri))
    out: set[str] = set()
    for item in ranked:
        c = item.found.cand
        if c.relation in (Relation.PriorSibling, Relation.YoungerSibling):
            parent = graph.parent(c.uri)
            if c.uri not in linked and parent is not None and len(graph.children(parent)) > most:
                out.add(c.uri)
        elif c.relation == Relation.InboundReference and len(graph.outlinks(c.uri)) > most:
            out.add(c.uri)
    return frozenset(out)


def fuse(
    ranked: Sequence[Ranked],
    hits: Sequence[str],
    k: int,
    bridges: Sequence[Ranked | str] = (),
    weak: Collection[str] = (),
) -> list[Ranked | str]:
    """Related notes and search hits in one order: reciprocal rank fusion
    (``1 / (k + rank)`` from each ranking; ties keep discovery order) of the graph's
    ranking, the search ranking and the ``bridges`` (related notes the entries link
    to from their best passages; a uri: a note a best hit's passage names that the
    graph does not reach), so a bridge ranks as a note both views find. A
    note in the graph's ranking and a search hit stays a related note: its relation
    says more. The notes of ``weak`` (``shared_widely``) get no vote from the graph's
    ranking: they rank by the search's alone (last, if it does not rank them)."""
    score: dict[str, float] = {}
    first: dict[str, Ranked | str] = {}
    for near in ranked:
        if near.found.cand.uri in weak:
            score.setdefault(near.found.cand.uri, 0.0)
            first.setdefault(near.found.cand.uri, near)
    if weak:
        ranked = [r for r in ranked if r.found.cand.uri not in weak]
    rankings: tuple[Sequence[Ranked | str], ...] = (ranked, hits, bridges)
    for ranking in rankings:
        for rank, item in enumerate(ranking, start=1):
            uri = item_uri(item)
            score[uri] = score.get(uri, 0.0) + 1.0 / (k + rank)
            first.setdefault(uri, item)
    order = sorted(first, key=lambda u: -score[u])  # stable: discovery order on ties
    return [first[u] for u in order]


def supported_first(
    fused: Sequence[Ranked | str], lead: Iterable[str], bridges: Sequence[Ranked]
) -> list[Ranked | str]:
    """``fused`` with the notes of ``lead`` and the ``bridges`` first, each part in fused
    order. The fusion sums ranks, and nearly every note the graph ranks is a search hit
    too (the search admits the best hits' neighbours), so a neighbour that both rank
    low still came before a hit only the search ranks: at small budgets the graph's
    lower ranks took the room of the search's best hits. The leaders are the notes one
    view ranks best: the search's best ``hybrid_graph_seeds`` hits (its seeds), the
    graph's best note, and the bridges; and the notes two entries link to
    (``linked_by_entries``), in ``lead`` with the seeds."""
    return tried_first(fused, set(lead) | {r.found.cand.uri for r in bridges})


def tried_first(order: Sequence[Ranked | str], uris: Collection[str]) -> list[Ranked | str]:
    """``order`` (related notes and search hits) with the notes of ``uris`` first, each
    part in its order (``supported_first``; ``identifiers.py``'s notes before all)."""
    if not uris:
        return list(order)
    return [x for x in order if item_uri(x) in uris] + [x for x in order if item_uri(x) not in uris]


def linked_by_entries(graph: VaultGraph, entries: Sequence[str]) -> frozenset[str]:
    """The notes that two or more of ``entries`` link to, not entries themselves: where
    two notes that match the question meet, as the two halves of a question meet in a
    note both halves' answers cite. ``supported_first`` tries them with the leaders. On
    the hand-written sets and the from-links questions at 2,000 tokens (query code of
    87011f4), such notes that were not leaders already were gold 32 times in 720 (4.4 %),
    the search's seeds and the graph's best note 44 in 1,680 (2.6 %), the other notes
    after the leaders 110 in 19,854 (0.6 %) (benchmarks/RESULTS.md, "Session 11: where
    the entries' links meet"). A note that links to two entries is more often a hub or
    an index than a join: counted too, it lost from-links questions."""
    seen: dict[str, int] = {}
    for uri in dict.fromkeys(entries):
        for target in {link.target for link in graph.outlinks(uri)}:
            seen[target] = seen.get(target, 0) + 1
    chosen = set(entries)
    return frozenset(u for u, n in seen.items() if n >= 2 and u not in chosen)
