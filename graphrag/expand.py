"""Query mode's two expansions beyond the BFS (seed "Multi-Strategy Traversal").

* Tag expansion: notes sharing an entry's tags (``SharesTag``). Tags on more
  than ``tag_expansion_max_tag_size`` notes are skipped: a tag on half the
  vault says as little as a stop word. More shared tags first, then the more
  similar to the question.
* Path expansion: with several entries, the notes on the shortest paths (at
  most ``path_max_length`` edges, any direction) between each pair of entries
  (``OnPathBetweenEntries``). Notes with more than ``path_max_degree``
  neighbours are not used as steps: a hub joins everything to everything, so a
  path through it says nothing about how two entries relate.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations

from .graph import VaultGraph
from .query_settings import QuerySettings

PATHS_PER_PAIR = 3


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


def neighbours(graph: VaultGraph, uri: str) -> set[str]:
    """Parent, children, link targets and backlinks that can be traversed."""
    out = set(graph.children(uri)) | set(graph.backlinks(uri))
    parent = graph.parent(uri)
    if parent is not None:
        out.add(parent)
    out.update(link.target for link in graph.outlinks(uri))
    out.discard(uri)
    return {u for u in out if graph.is_traversable(u)}


def degree(graph: VaultGraph, uri: str) -> int:
    """An upper bound of ``len(neighbours)``, without building the set."""
    return (
        len(graph.children(uri))
        + len(graph.backlinks(uri))
        + len(graph.outlinks(uri))
        + (graph.parent(uri) is not None)
    )


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
    entries: Sequence[str],
    settings: QuerySettings,
    usable: Callable[[str], bool],
    similarity: Callable[[str], float],
) -> list[TagHit]:
    """Up to ``tag_expansion_per_entry`` new notes per entry, in entry order."""
    hits: list[TagHit] = []
    taken: set[str] = set(entries)
    for entry in entries:
        counts: dict[str, int] = {}
        for tag in graph.info(entry).tags:
            members = graph.tag_members.get(tag, ())
            if len(members) > settings.tag_expansion_max_tag_size:
                continue
            for uri in members:
                if uri not in taken and usable(uri):
                    counts[uri] = counts.get(uri, 0) + 1
        ranked = sorted(counts, key=lambda u: (-counts[u], -similarity(u), u))
        for uri in ranked[: settings.tag_expansion_per_entry]:
            taken.add(uri)
            hits.append(TagHit(uri, entry, shared_tags(graph, entry, uri)))
    return hits


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
            cache[uri] = neighbours(graph, uri)
        return cache[uri]

    def step_ok(uri: str) -> bool:
        return degree(graph, uri) <= cap

    ends = set(entries)
    hits: dict[str, PathHit] = {}
    for a, b in combinations(entries, 2):
        na, nb = adj(a), adj(b)
        paths = [(a, x, b) for x in sorted(na & nb) if x not in ends and step_ok(x)]
        if not paths and settings.path_max_length >= 3:
            paths = _three_step(a, b, na, nb, adj, step_ok, ends, cap)
        paths.sort(key=lambda p: (-sum(similarity(u) for u in p[1:-1]) / (len(p) - 2), p))
        for path in paths[:PATHS_PER_PAIR]:
            last = len(path) - 1
            for pos, uri in enumerate(path[1:-1], start=1):
                if uri not in hits:
                    near = path[0] if pos <= last - pos else path[-1]
                    hits[uri] = PathHit(uri, near, min(pos, last - pos), path)
    return list(hits.values())


def _three_step(
    a: str,
    b: str,
    na: set[str],
    nb: set[str],
    adj: Callable[[str], set[str]],
    step_ok: Callable[[str], bool],
    ends: set[str],
    cap: int,
) -> list[tuple[str, ...]]:
    """Paths a - x - y - b, walked from the entry with fewer neighbours."""
    flip = len(na) > len(nb)
    near, far = (nb, na) if flip else (na, nb)
    if len(near) > 10 * cap:  # two hubs: every path between them runs through noise
        return []
    paths: list[tuple[str, ...]] = []
    for x in sorted(near):
        if x in ends or not step_ok(x):
            continue
        for y in sorted(adj(x) & far):
            if y in ends or y == x or not step_ok(y):
                continue
            paths.append((b, x, y, a)[::-1] if flip else (a, x, y, b))
    return paths
