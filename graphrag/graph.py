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

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import networkx as nx

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
        """Build from the indexer's graph.

        Expected node attributes: ``kind``, ``title`` and optionally ``created``,
        ``modified``, ``path``, ``aliases``, ``order``. Tag nodes are keyed
        ``#tag`` with ``kind="tag"``. Edge attribute ``type`` is one of
        ``parent`` (child -> parent), ``link`` / ``embed`` / ``markdown`` /
        ``property`` (source -> target, ``predicate`` for property links) and
        ``tag`` (note -> ``#tag``).
        """
        nodes: dict[str, NodeInfo] = {}
        tags_of: dict[str, list[str]] = {}
        tag_members: dict[str, list[str]] = {}
        parents: dict[str, str] = {}
        children: dict[str, list[str]] = {}
        out: dict[str, dict[tuple[str, str | None], OutLink]] = {}
        back: dict[str, set[str]] = {}

        for u, v, data in edges:
            etype = data.get("type")
            if etype == "parent":
                parents[u] = v
                children.setdefault(v, []).append(u)
            elif etype == "tag":
                tags_of.setdefault(u, []).append(v[1:])
                tag_members.setdefault(v[1:], []).append(u)
            elif u != v:
                predicate = data.get("predicate")
                per_note = out.setdefault(u, {})
                per_note.setdefault((v, predicate), OutLink(v, etype, predicate))
                back.setdefault(v, set()).add(u)

        for uri, data in node_attrs.items():
            kind = data.get("kind", "note")
            if kind == "tag":
                continue
            nodes[uri] = NodeInfo(
                uri=uri,
                title=data.get("title", uri.rsplit("/", 1)[-1]),
                kind=kind,
                created=float(data.get("created", 0.0) or 0.0),
                modified=float(data.get("modified", 0.0) or 0.0),
                path=data.get("path"),
                tags=tuple(sorted(tags_of.get(uri, ()))),
                aliases=tuple(data.get("aliases", ()) or ()),
            )

        def sibling_key(uri: str) -> tuple:
            order = node_attrs.get(uri, {}).get("order")
            title = nodes[uri].title if uri in nodes else uri
            return (0, float(order), natural_key(title)) if order is not None else (
                1,
                0.0,
                natural_key(title),
            )

        return cls(
            nodes=nodes,
            parents=parents,
            children_of={p: tuple(sorted(cs, key=sibling_key)) for p, cs in children.items()},
            outlinks_of={u: tuple(links.values()) for u, links in out.items()},
            backlinks_of={v: tuple(sorted(srcs)) for v, srcs in back.items()},
            tag_members={t: tuple(sorted(ms)) for t, ms in tag_members.items()},
            text_source=text_source,
        )


def natural_key(text: str) -> tuple:
    """Sort key that puts 'Note 2' before 'Note 10' and ignores case."""
    parts = re.split(r"(\d+)", text.casefold())
    return tuple((0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts if p != "")
