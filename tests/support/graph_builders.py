"""Build a ``VaultGraph`` in memory from a compact spec, through the real loader.

    g = (
        Vault()
        .folder("Projects")
        .note("Projects/Alpha", "body", parent="Projects", links=["Beta"],
              props={"author": "People/Ann"}, created="2024-01-01")
        .build()
    )

Link targets that were never declared become ghosts, or attachments when they
have a file extension, as the indexer does. Every note gets a fixed creation
time unless told otherwise, so scores do not depend on the clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime

import networkx as nx

from graphrag.config.focus import FocusSettings
from graphrag.snapshot.graph import VaultGraph

NOW = datetime(2024, 6, 1, tzinfo=UTC).timestamp()
DEFAULT_CREATED = "2024-05-01"

# No jitter: ranking in these tests is decided by relation and depth alone.
CALM = FocusSettings(jitter_range=0.0)


def epoch(value: str | float) -> float:
    if isinstance(value, int | float):
        return float(value)
    return datetime.fromisoformat(value).replace(tzinfo=UTC).timestamp()


class Vault:
    def __init__(self) -> None:
        self.g = nx.MultiDiGraph()
        self.bodies: dict[str, str] = {}
        self._links: list[tuple[str, str, str, str | None]] = []

    def note(
        self,
        uri: str,
        body: str = "",
        *,
        parent: str | None = None,
        order: float | None = None,
        links: Iterable[str] = (),
        props: Mapping[str, str | list[str]] | None = None,
        created: str | float = DEFAULT_CREATED,
        title: str | None = None,
        tags: Iterable[str] = (),
        kind: str = "note",
    ) -> Vault:
        attrs: dict[str, object] = {"kind": kind, "title": title or uri.rsplit("/", 1)[-1]}
        if kind == "note":
            attrs["created"] = epoch(created)
        if order is not None:
            attrs["order"] = order
        self.g.add_node(uri, **attrs)
        self.bodies[uri] = body or (f"About {attrs['title']}." if kind == "note" else "")
        if parent is not None:
            self.g.add_edge(uri, parent, type="parent")
        for target in links:
            self._links.append((uri, target, "link", None))
        for predicate, targets in (props or {}).items():
            for target in [targets] if isinstance(targets, str) else targets:
                self._links.append((uri, target, "property", predicate))
        for tag in tags:
            self.g.add_node(f"#{tag}", kind="tag")
            self.g.add_edge(uri, f"#{tag}", type="tag")
        return self

    def folder(self, uri: str, *, parent: str | None = None, order: float | None = None) -> Vault:
        return self.note(uri, parent=parent, order=order, kind="folder")

    def children(self, parent: str, count: int, prefix: str = "C", **kwargs: object) -> list[str]:
        """``count`` children ``{parent}/{prefix}00`` .. in sibling order (zero-padded)."""
        uris = [f"{parent}/{prefix}{i:02d}" for i in range(count)]
        for uri in uris:
            self.note(uri, parent=parent, **kwargs)  # type: ignore[arg-type]
        return uris

    def link(self, source: str, target: str, predicate: str | None = None) -> Vault:
        self._links.append((source, target, "property" if predicate else "link", predicate))
        return self

    def build(self) -> VaultGraph:
        g = self.g.copy()
        for source, target, etype, predicate in self._links:
            if target not in g:
                has_ext = "." in target.rsplit("/", 1)[-1]
                g.add_node(target, kind="attachment" if has_ext else "ghost")
            g.add_edge(source, target, type=etype, predicate=predicate)
        bodies = dict(self.bodies)
        return VaultGraph.from_networkx(g, text_source=lambda uri: bodies.get(uri, ""))


def synthetic(notes: int, seed: int = 0) -> VaultGraph:
    """A vault-shaped graph built directly (no networkx), for timing: folders of
    skewed size, ~10 links a note to Zipf-distributed targets (hubs with thousands
    of backlinks), bodies of a few hundred to a few thousand characters."""
    import itertools
    import random

    from graphrag.snapshot.graph import NodeInfo, OutLink

    rng = random.Random(seed)
    words = [
        "alpha",
        "beta",
        "gamma",
        "delta",
        "epsilon",
        "zeta",
        "theta",
        "kappa",
        "lambda",
        "sigma",
        "omega",
    ]
    nodes: dict[str, NodeInfo] = {}
    parents: dict[str, str] = {}
    children: dict[str, tuple[str, ...]] = {}
    bodies: dict[str, str] = {}
    uris: list[str] = []
    while len(uris) < notes:
        folder = f"F{len(children)}"
        nodes[folder] = NodeInfo(folder, folder, "folder")
        size = min(notes - len(uris), int(rng.paretovariate(1.2) * 5))
        kids = [f"{folder}/N{len(uris) + j}" for j in range(size)]
        for uri in kids:
            nodes[uri] = NodeInfo(
                uri, uri.rsplit("/", 1)[1], "note", created=NOW - rng.random() * 3e7
            )
            parents[uri] = folder
            bodies[uri] = " ".join(rng.choices(words, k=int(rng.lognormvariate(5.5, 0.8))))
        children[folder] = tuple(kids)
        uris.extend(kids)
    order = uris[:]
    rng.shuffle(order)
    cum = list(itertools.accumulate(1 / (k + 1) for k in range(len(order))))
    out: dict[str, tuple[OutLink, ...]] = {}
    back: dict[str, set[str]] = {}
    for uri in uris:
        targets = dict.fromkeys(t for t in rng.choices(order, cum_weights=cum, k=10) if t != uri)
        out[uri] = tuple(OutLink(t, "wikilink") for t in targets)
        for t in targets:
            back.setdefault(t, set()).add(uri)
    return VaultGraph(
        nodes=nodes,
        parents=parents,
        children_of=children,
        outlinks_of=out,
        backlinks_of={t: tuple(sorted(s)) for t, s in back.items()},
        text_source=bodies.__getitem__,
    )
