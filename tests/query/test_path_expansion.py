"""Path expansion takes the best two-step paths between two entries from a heap; the
notes and paths are the ones sorting every shared neighbour gave."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from itertools import combinations

from graphrag.config.query import QuerySettings
from graphrag.query.expand import PATHS_PER_PAIR, PathHit, _three_step, path_expansion


@dataclass
class Graph:
    """What path expansion reads of a graph: neighbours, degrees, what is traversable."""

    edges: dict[str, set[str]] = field(default_factory=dict)
    blocked: set[str] = field(default_factory=set)

    def raw_neighbours(self, uri: str) -> set[str]:
        return set(self.edges.get(uri, ()))

    def degree(self, uri: str) -> int:
        return len(self.edges.get(uri, ()))

    def is_traversable(self, uri: str) -> bool:
        return uri not in self.blocked


def reference(
    graph: Graph, entries: list[str], settings: QuerySettings, similarity: object
) -> list[PathHit]:
    """Path expansion as written before: every shared neighbour checked and sorted."""
    sim = similarity  # type: ignore[assignment]
    cap = settings.path_max_degree

    def step_ok(uri: str) -> bool:
        return graph.degree(uri) <= cap and graph.is_traversable(uri)

    ends = set(entries)
    hits: dict[str, PathHit] = {}
    for a, b in combinations(entries, 2):
        na, nb = graph.raw_neighbours(a), graph.raw_neighbours(b)
        paths = [(a, x, b) for x in sorted(na & nb) if x not in ends and step_ok(x)]
        if settings.path_max_length >= 3 and len(paths) < PATHS_PER_PAIR:
            paths += _three_step(a, b, na, nb, graph.raw_neighbours, step_ok, ends, sim, cap)  # type: ignore[arg-type]
        paths.sort(key=lambda p: (len(p), -sum(sim(u) for u in p[1:-1]) / (len(p) - 2), p))  # type: ignore[operator]
        for path in paths[:PATHS_PER_PAIR]:
            last = len(path) - 1
            for pos, uri in enumerate(path[1:-1], start=1):
                if uri not in hits:
                    near = path[0] if pos <= last - pos else path[-1]
                    hits[uri] = PathHit(uri, near, min(pos, last - pos), path)
    return list(hits.values())


def test_two_step_paths_between_hubs_are_the_sorted_ones():
    rng = random.Random(7)
    settings = QuerySettings(path_max_degree=12)
    compared = 0
    for trial in range(300):
        notes = [f"n{k}" for k in range(rng.choice([8, 30, 120]))]
        graph = Graph()
        for u in notes:
            graph.edges.setdefault(u, set())
        hubs = rng.sample(notes, 3)
        for u in notes:  # hubs link to most notes; the rest sparsely
            for v in rng.sample(notes, min(len(notes), rng.randint(0, 4))):
                if u != v:
                    graph.edges[u].add(v)
                    graph.edges[v].add(u)
            for h in hubs:
                if u != h and rng.random() < 0.7:
                    graph.edges[u].add(h)
                    graph.edges[h].add(u)
        graph.blocked = set(rng.sample(notes, len(notes) // 10))
        # Ties in similarity too: the name decides between them.
        sims = {u: rng.choice([0.1, 0.2, 0.2, 0.5, rng.random()]) for u in notes}
        entries = rng.sample(notes, rng.randint(2, 4))
        if trial % 2:
            entries[: len(hubs[:2])] = hubs[:2]
            entries = list(dict.fromkeys(entries))
        got = path_expansion(graph, entries, settings, sims.__getitem__)  # type: ignore[arg-type]
        assert got == reference(graph, entries, settings, sims.__getitem__)
        compared += len(got)
    assert compared > 300
