"""The in-memory view of a vault that retrieval walks.

The indexer persists a networkx ``MultiDiGraph``; this module turns it into
plain dicts and tuples once, at load time, because the capped BFS asks the same
four questions (parent, children, objects, inbound references) thousands of
times per second and networkx attribute lookups are an order of magnitude
slower than tuple indexing.

Node kinds:
    ``note``       a Markdown file
    ``folder``     a folder without a folder note (a *virtual* note: no details)
    ``ghost``      the target of an unresolved link (no file, no details)
    ``attachment`` a non-Markdown file (image, PDF, ...)

Only ``note`` and ``folder`` nodes take part in traversal; ghosts and
attachments show up in a focus note's ``outboundLinks`` only.
"""

from __future__ import annotations

import gc
import re
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, TypeVar, cast

from graphrag.results.notes import UriAndTitle

if TYPE_CHECKING:  # only from_networkx takes one; loading an index never builds it
    import networkx as nx

T = TypeVar("T")
TRAVERSABLE = frozenset({"note", "folder"})
_BLANK_RUN = re.compile(r"\n[ \t]*\n(?:[ \t]*\n)+")


@dataclass(frozen=True, slots=True)
class NodeInfo:
    uri: str
    title: str
    kind: str
    created: float = 0.0
    modified: float = 0.0
    path: str | None = None
    tags: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class OutLink:
    """One outbound edge of a note, deduplicated by (target, predicate).

    ``kind`` is ``wikilink``, ``embed``, ``markdown`` or ``property``;
    ``predicate`` is the front-matter / inline-field name for property links,
    else ``None``.
    """

    target: str
    kind: str
    predicate: str | None = None


# A node for ``VaultGraph.from_rows``: uri, kind, title, path, created, modified,
# order, aliases. ``created`` / ``modified`` None mean 0.0, ``order`` None no
# front-matter order, ``aliases`` None or () none.
NodeRow = tuple[
    str, str, str, str | None, float | None, float | None, float | None, tuple[str, ...] | None
]
# A link for ``VaultGraph.from_rows``: source, target, kind, predicate.
LinkRow = tuple[str, str, str | None, str | None]


def _no_text(uri: str) -> str:
    return ""


@dataclass
class VaultGraph:
    """Adjacency of a vault, ready for traversal.

    ``children`` tuples are in sibling order (front matter ``order``, then
    natural sort of the title). ``backlinks`` tuples are sorted by uri so a
    seeded shuffle gives the same result on every machine.
    """

    nodes: dict[str, NodeInfo]
    parents: dict[str, str] = field(default_factory=dict)
    children_of: dict[str, tuple[str, ...]] = field(default_factory=dict)
    outlinks_of: dict[str, tuple[OutLink, ...]] = field(default_factory=dict)
    backlinks_of: dict[str, tuple[str, ...]] = field(default_factory=dict)
    tag_members: dict[str, tuple[str, ...]] = field(default_factory=dict)
    text_source: Callable[[str], str] = _no_text
    _positions: dict[str, int] | None = field(default=None, repr=False, compare=False)
    _objects: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False, compare=False)
    _derived: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    _titled: dict[str, UriAndTitle] = field(default_factory=dict, repr=False, compare=False)

    # -- the four fundamental relations -------------------------------------------------
    def parent(self, uri: str) -> str | None:
        return self.parents.get(uri)

    def children(self, uri: str) -> tuple[str, ...]:
        return self.children_of.get(uri, ())

    def outlinks(self, uri: str) -> tuple[OutLink, ...]:
        return self.outlinks_of.get(uri, ())

    def backlinks(self, uri: str) -> tuple[str, ...]:
        return self.backlinks_of.get(uri, ())

    def objects(self, uri: str) -> tuple[str, ...]:
        """Distinct traversable link targets of ``uri``, in link order (cached)."""
        hit = self._objects.get(uri)
        if hit is None:
            targets = (link.target for link in self.outlinks_of.get(uri, ()))
            hit = tuple(dict.fromkeys(t for t in targets if self.is_traversable(t) and t != uri))
            self._objects[uri] = hit
        return hit

    def neighbours(self, uri: str) -> set[str]:
        """Parent, children, link targets and backlinks that can be traversed."""
        return {u for u in self.raw_neighbours(uri) if self.is_traversable(u)}

    def raw_neighbours(self, uri: str) -> set[str]:
        """The same, ghosts and attachments included (cheaper: check only what is used)."""
        out = set(self.children(uri))
        out.update(self.backlinks(uri))
        parent = self.parent(uri)
        if parent is not None:
            out.add(parent)
        out.update([link.target for link in self.outlinks(uri)])
        out.discard(uri)
        return out

    def degree(self, uri: str) -> int:
        """An upper bound of ``len(neighbours)``, without building the set."""
        return (
            len(self.children(uri))
            + len(self.backlinks(uri))
            + len(self.outlinks(uri))
            + (self.parent(uri) is not None)
        )

    def without_links(self, pairs: Iterable[tuple[str, str]]) -> VaultGraph:
        """A view of this graph without the links ``source -> target`` of ``pairs``
        (every kind and predicate); the rest is shared, and this graph is unchanged.
        ``eval --from-links`` answers each question on such a view."""
        outlinks = dict(self.outlinks_of)
        backlinks = dict(self.backlinks_of)
        for source, target in pairs:
            if source in outlinks:
                outlinks[source] = tuple(lk for lk in outlinks[source] if lk.target != target)
            if target in backlinks:
                backlinks[target] = tuple(s for s in backlinks[target] if s != source)
        return replace(self, outlinks_of=outlinks, backlinks_of=backlinks, _objects={}, _derived={})

    def derived(self, name: str, build: Callable[[], T]) -> T:
        """``build()``, once per graph (what is derived from its links, e.g. which
        properties group notes). Threads racing on a first call may both build it."""
        hit = self._derived.get(name)
        if hit is None:
            hit = self._derived[name] = build()
        return cast(T, hit)

    def position(self, uri: str) -> int:
        """Index of ``uri`` among its parent's children (-1 for a root).

        Built once: a folder of thousands of notes made ``children(p).index(uri)``
        the slowest step of a focus call."""
        positions = self._positions
        if positions is None:
            positions = {c: i for cs in self.children_of.values() for i, c in enumerate(cs)}
            self._positions = positions
        return positions.get(uri, -1)

    # -- lookups -------------------------------------------------------------------------
    def __contains__(self, uri: object) -> bool:
        return uri in self.nodes

    def __len__(self) -> int:
        return len(self.nodes)

    def uri_and_title(self, uri: str) -> UriAndTitle:
        """A note's uri and title, as results name it (a uri the graph lacks: its last part).
        Made once per note: an entry's lists name hundreds in every question."""
        hit = self._titled.get(uri)
        if hit is None:
            node = self.nodes.get(uri)
            hit = UriAndTitle(uri, node.title if node else uri.rsplit("/", 1)[-1])
            if node is not None:
                self._titled[uri] = hit
        return hit

    def info(self, uri: str) -> NodeInfo:
        return self.nodes[uri]

    def details(self, uri: str) -> str:
        """The Markdown body of a note ('' for folders, ghosts and attachments).

        The stored body keeps a removed comment's lines (so line numbers stay true);
        shown to a reader, a run of blank lines is one blank line."""
        if self.nodes[uri].kind != "note":
            return ""
        return _BLANK_RUN.sub("\n\n", self.text_source(uri))

    def is_traversable(self, uri: str) -> bool:
        node = self.nodes.get(uri)
        return node is not None and node.kind in TRAVERSABLE

    def contextual_path(self, uri: str) -> list[str]:
        """Ancestors from the notebook root down to the parent (inclusive)."""
        path: list[str] = []
        seen = {uri}
        current = self.parents.get(uri)
        while current is not None and current not in seen:
            path.append(current)
            seen.add(current)
            current = self.parents.get(current)
        path.reverse()
        return path

    def notes(self) -> Iterable[NodeInfo]:
        return (n for n in self.nodes.values() if n.kind == "note")

    # -- construction --------------------------------------------------------------------
    @classmethod
    def from_networkx(
        cls, g: nx.MultiDiGraph, text_source: Callable[[str], str] = _no_text
    ) -> VaultGraph:
        """Build from the indexer's networkx graph (see ``from_parts``)."""
        return cls.from_parts(dict(g.nodes(data=True)), g.edges(data=True), text_source)

    @classmethod
    def from_parts(
        cls,
        node_attrs: dict[str, dict],
        edges: Iterable[tuple[str, str, dict]],
        text_source: Callable[[str], str] = _no_text,
    ) -> VaultGraph:
        """Build from the indexer's graph as plain data (see ``from_rows``).

        Expected node attributes: ``kind``, ``title`` and optionally ``created``,
        ``modified``, ``path``, ``aliases``, ``order``. Tag nodes are keyed
        ``#tag`` with ``kind="tag"``. Edge attribute ``type`` is one of
        ``parent`` (child -> parent), ``link`` / ``embed`` / ``markdown`` /
        ``property`` (source -> target, ``predicate`` for property links) and
        ``tag`` (note -> ``#tag``).
        """
        parents: list[tuple[str, str]] = []
        links: list[LinkRow] = []
        tags: list[tuple[str, str]] = []
        for u, v, data in edges:
            etype = data.get("type")
            if etype == "parent":
                parents.append((u, v))
            elif etype == "tag":
                tags.append((u, v[1:]))
            else:
                links.append((u, v, etype, data.get("predicate")))
        nodes: list[NodeRow] = [
            (
                uri,
                kind,
                data.get("title", uri.rsplit("/", 1)[-1]),
                data.get("path"),
                data.get("created"),
                data.get("modified"),
                data.get("order"),
                tuple(data.get("aliases", ()) or ()),
            )
            for uri, data in node_attrs.items()
            if (kind := data.get("kind", "note")) != "tag"
        ]
        return cls.from_rows(nodes, parents, links, tags, text_source)

    @classmethod
    def from_rows(
        cls,
        nodes: Iterable[NodeRow],
        parents: Iterable[tuple[str, str]],
        links: Iterable[LinkRow],
        tags: Iterable[tuple[str, str]],
        text_source: Callable[[str], str] = _no_text,
    ) -> VaultGraph:
        """Build from plain rows as the index's tables hold them (``from_parts`` and
        ``from_networkx`` come here too).

        ``nodes``: a :data:`NodeRow` per node, tags excepted, in node order.
        ``parents``: (child, parent). ``links``: :data:`LinkRow` in link order;
        a note's first link to a (target, predicate) wins, self-links are
        dropped. ``tags``: (uri, tag without '#').

        A reload of a 10k-note vault should take well under a second: each kind
        of row is walked once, and ``OutLink`` being frozen, one instance per
        (target, kind, predicate) serves every note that links so.
        """
        with _gc_paused():
            tags_of, members = _group_tags(tags)
            infos, order_of = _node_infos(nodes, tags_of)
            parent_of, children_of = _hierarchy(parents, infos, order_of)
            outlinks_of, backlinks_of = _link_adjacency(links)
        return cls(
            nodes=infos,
            parents=parent_of,
            children_of=children_of,
            outlinks_of=outlinks_of,
            backlinks_of=backlinks_of,
            tag_members={t: tuple(sorted(ms)) for t, ms in members.items()},
            text_source=text_source,
        )


def _group_tags(
    tags: Iterable[tuple[str, str]],
) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(uri, tag) rows -> tags by uri and uris by tag, in row order."""
    tags_of: dict[str, list[str]] = {}
    members: dict[str, list[str]] = {}
    tags_get, members_get = tags_of.get, members.get
    for uri, tag in tags:
        have = tags_get(uri)
        if have is None:
            tags_of[uri] = [tag]
        else:
            have.append(tag)
        have = members_get(tag)
        if have is None:
            members[tag] = [uri]
        else:
            have.append(uri)
    return tags_of, members


def _node_infos(
    nodes: Iterable[NodeRow], tags_of: dict[str, list[str]]
) -> tuple[dict[str, NodeInfo], dict[str, object]]:
    """``NodeInfo`` by uri, and the front-matter ``order`` of the nodes that have one."""
    infos: dict[str, NodeInfo] = {}
    order_of: dict[str, object] = {}
    tags_get = tags_of.get
    for uri, kind, title, path, created, modified, order, aliases in nodes:
        node_tags = tags_get(uri)
        infos[uri] = NodeInfo(
            uri,
            title,
            kind,
            float(created or 0.0),
            float(modified or 0.0),
            path,
            tuple(sorted(node_tags)) if node_tags else (),
            aliases or (),
        )
        if order is not None:
            order_of[uri] = order
    return infos, order_of


def _hierarchy(
    parents: Iterable[tuple[str, str]], infos: dict[str, NodeInfo], order_of: dict[str, object]
) -> tuple[dict[str, str], dict[str, tuple[str, ...]]]:
    """Parent by child, and children by parent in sibling order: front-matter
    ``order`` first, then the natural order of the titles (ties keep row order)."""
    parent_of: dict[str, str] = {}
    children: dict[str, list[str]] = {}
    children_get = children.get
    for child, parent in parents:
        parent_of[child] = parent
        siblings = children_get(parent)
        if siblings is None:
            children[parent] = [child]
        else:
            siblings.append(child)

    def sibling_key(uri: str) -> tuple:
        info = infos.get(uri)
        title = info.title if info is not None else uri
        order = order_of.get(uri)
        if order is None:
            return (1, 0.0, natural_key(title))
        return (0, float(order), natural_key(title))  # type: ignore[arg-type]

    return parent_of, {p: tuple(sorted(cs, key=sibling_key)) for p, cs in children.items()}


def _link_adjacency(
    links: Iterable[LinkRow],
) -> tuple[dict[str, tuple[OutLink, ...]], dict[str, tuple[str, ...]]]:
    """``outlinks_of`` and ``backlinks_of`` from the links in link order, in one pass.

    The index keeps each note's links together, notes mostly in uri order, so a
    backlink list is built sorted and distinct by appending; only the lists
    where a source came out of order are sorted afterwards.
    """
    out: dict[str, dict[object, OutLink]] = {}
    back: dict[str, list[str]] = {}
    shared: dict[str | None, dict[object, OutLink]] = {}  # kind -> target or (target, predicate)
    out_get, back_get, shared_get = out.get, back.get, shared.get
    unsorted: set[str] = set()
    per: dict[object, OutLink] = {}
    current: str = None  # type: ignore[assignment]  # the source of the run of links
    for source, target, kind, predicate in links:
        if source == target:
            continue
        if source != current:
            current = source
            found = out_get(source)
            per = out[source] = {} if found is None else found
        key = target if predicate is None else (target, predicate)
        if key not in per:
            made = shared_get(kind)
            if made is None:
                made = shared[kind] = {}
            link = made.get(key)
            if link is None:
                link = made[key] = OutLink(target, kind, predicate)  # type: ignore[arg-type]
            per[key] = link
        sources = back_get(target)
        if sources is None:
            back[target] = [current]
        else:
            last = sources[-1]
            if last < current:
                sources.append(current)
            elif last is not current:  # not this run of the note's links: out of order
                sources.append(current)
                unsorted.add(target)
    for target in unsorted:
        back[target] = sorted(set(back[target]))
    return (
        {u: tuple(per.values()) for u, per in out.items()},
        {v: tuple(sources) for v, sources in back.items()},
    )


@contextmanager
def _gc_paused() -> Iterator[None]:
    """No cyclic garbage collection while a graph is built: it would find no garbage,
    and in a server holding a large heap its repeated passes cost as much as the build."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


_DIGIT_RUNS = re.compile(r"(\d+)")


def natural_key(text: str) -> tuple:
    """Sort key that puts 'Note 2' before 'Note 10' and ignores case.

    Not cached across builds: a cache big enough to help a large vault holds tens of
    MB for the life of the server, to save ~8 ms per reload."""
    parts = _DIGIT_RUNS.split(text.casefold())
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts if p != "")
