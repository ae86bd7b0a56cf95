"""Query mode's two expansions beyond the BFS (docs/architecture.md, "Query mode", step 2).

* Tag expansion: notes sharing an entry's tags (``SharesTag``). Tags on more
  than ``tag_expansion_max_tag_size`` notes are skipped: a tag on half the
  vault says as little as a stop word. More shared tags first, then the more
  similar to the question.
* Path expansion: with several entries, the notes on the shortest paths (at
  most ``path_max_length`` edges, any direction) between each pair of entries
  (``OnPathBetweenEntries``), at most three paths per pair, shortest first. Notes
  with more than ``path_max_degree``
  neighbours are not used as steps: a hub joins everything to everything, so a
  path through it says nothing about how two entries relate.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from graphrag.config.query import QuerySettings
from graphrag.snapshot.corpus import Corpus
from graphrag.snapshot.graph import VaultGraph

PATHS_PER_PAIR = 3
PATH_FIRST_STEPS = 10


@dataclass(frozen=True, slots=True)
class TagHit:
    uri: str
    entry: str
    tags: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PathHit:
    uri: str
    entry: str  # the nearer end of the path
    distance: int  # edges from that entry
    path: tuple[str, ...]  # entry ... entry


def most_specific(tags: set[str] | Sequence[str]) -> tuple[str, ...]:
    """Drop tags implied by a nested one in the same set (``project`` by ``project/x``)."""
    tags = set(tags)
    return tuple(sorted(t for t in tags if not any(o.startswith(t + "/") for o in tags)))


def shared_tags(graph: VaultGraph, a: str, b: str) -> tuple[str, ...]:
    if a not in graph or b not in graph:
        return ()
    return most_specific(set(graph.info(a).tags) & set(graph.info(b).tags))


def tag_expansion(
    graph: VaultGraph,
    corpus: Corpus,
    entries: Sequence[str],
    settings: QuerySettings,
    blocked: np.ndarray,
    sims: np.ndarray,
) -> list[TagHit]:
    """Up to ``tag_expansion_per_entry`` new notes per entry, in entry order.

    ``blocked``: corpus notes that may not be added (already found, or filtered out).
    Counting runs on numpy index arrays: a tag can hold hundreds of notes."""
    hits: list[TagHit] = []
    blocked = blocked.copy()
    for entry in entries:
        arrays = [
            _tag_indices(corpus, graph, tag)
            for tag in graph.info(entry).tags
            if len(graph.tag_members.get(tag, ())) <= settings.tag_expansion_max_tag_size
        ]
        if not arrays:
            continue
        notes, counts = np.unique(np.concatenate(arrays), return_counts=True)
        keep = ~blocked[notes]
        notes, counts = notes[keep], counts[keep]
        # More shared tags first, then the more similar, then uri order.
        order = np.lexsort((notes, -sims[notes], -counts))[: settings.tag_expansion_per_entry]
        for i in notes[order]:
            blocked[i] = True
            uri = corpus.uris[int(i)]
            hits.append(TagHit(uri, entry, shared_tags(graph, entry, uri)))
    return hits


def _tag_indices(corpus: Corpus, graph: VaultGraph, tag: str) -> np.ndarray:
    return corpus.derived(f"tag-idx:{tag}", lambda: corpus.indices(graph.tag_members.get(tag, ())))


def path_expansion(
    graph: VaultGraph,
    entries: Sequence[str],
    settings: QuerySettings,
    similarity: Callable[[str], float],
) -> list[PathHit]:
    """Notes on short paths between pairs of entries, each note once (first pair wins)."""
    if len(entries) < 2 or settings.path_max_length < 2:
        return []
    cap = settings.path_max_degree
    cache: dict[str, set[str]] = {}

    def adj(uri: str) -> set[str]:
        if uri not in cache:
            cache[uri] = graph.raw_neighbours(uri)
        return cache[uri]

    def step_ok(uri: str) -> bool:
        return graph.degree(uri) <= cap and graph.is_traversable(uri)

    ends = set(entries)
    hits: dict[str, PathHit] = {}
    for a, b in combinations(entries, 2):
        na, nb = adj(a), adj(b)
        paths: list[tuple[str, ...]] = _two_step(a, b, na & nb, ends, step_ok, similarity)
        if settings.path_max_length >= 3 and len(paths) < PATHS_PER_PAIR:
            paths += _three_step(a, b, na, nb, adj, step_ok, ends, similarity, cap)
        # Shorter first, then the ones through notes closer to the question.
        paths.sort(key=lambda p: (len(p), -sum(similarity(u) for u in p[1:-1]) / (len(p) - 2), p))
        for path in paths[:PATHS_PER_PAIR]:
            last = len(path) - 1
            for pos, uri in enumerate(path[1:-1], start=1):
                if uri not in hits:
                    near = path[0] if pos <= last - pos else path[-1]
                    hits[uri] = PathHit(uri, near, min(pos, last - pos), path)
    return list(hits.values())


def _two_step(
    a: str,
    b: str,
    common: set[str],
    ends: set[str],
    step_ok: Callable[[str], bool],
    similarity: Callable[[str], float],
) -> list[tuple[str, ...]]:
    """Paths a - x - b: all of them when fewer than ``PATHS_PER_PAIR``, else the ones
    ``path_expansion`` keeps (through the notes closest to the question, then by name).
    Two hubs share thousands of neighbours: the steps are taken best first from a heap
    and checked until enough pass, not all checked and sorted."""
    order = [(-similarity(x), x) for x in common if x not in ends]
    heapq.heapify(order)
    paths: list[tuple[str, ...]] = []
    while order and len(paths) < PATHS_PER_PAIR:
        _, x = heapq.heappop(order)
        if step_ok(x):
            paths.append((a, x, b))
    return paths


def _three_step(
    a: str,
    b: str,
    na: set[str],
    nb: set[str],
    adj: Callable[[str], set[str]],
    step_ok: Callable[[str], bool],
    ends: set[str],
    similarity: Callable[[str], float],
    cap: int,
) -> list[tuple[str, ...]]:
    """Paths a - x - y - b, walked from the entry with fewer neighbours."""
    flip = len(na) > len(nb)
    near, far = (nb, na) if flip else (na, nb)
    if len(near) > cap:  # both entries are hubs: any path between them is noise
        return []
    # First steps: the ones closest to the question. Building every neighbour's
    # neighbourhood would cost more than the rest of the query.
    steps = sorted(
        (x for x in near if x not in ends and step_ok(x)), key=lambda x: (-similarity(x), x)
    )
    paths: list[tuple[str, ...]] = []
    for x in steps[:PATH_FIRST_STEPS]:
        for y in sorted(adj(x) & far):
            if y in ends or y == x or not step_ok(y):
                continue
            paths.append((b, x, y, a)[::-1] if flip else (a, x, y, b))
    return paths
