"""Parsed notes -> resolved links, hierarchy and the vault graph.

The graph is a networkx ``MultiDiGraph`` keyed by uri:

* nodes: ``kind`` = note | folder (virtual) | ghost | attachment | tag, plus
  ``title`` and, for notes, ``path``, ``created``, ``modified``, ``order``,
  ``aliases``. Tag nodes are keyed ``#tag``.
* edges: ``type="parent"`` (child -> parent); ``type`` = wikilink | embed |
  markdown | property (source -> target, ``predicate`` for property links,
  ``subpath``); ``type="tag"`` (note -> ``#tag``).

Links in hierarchy properties make the parent edge only. Self-links
(``[[#Heading]]``) are kept in the link table but not as edges.
"""

from __future__ import annotations

import posixpath
from collections.abc import Container, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # built only by build_graph: a live update never imports it (~19 MB)
    import networkx as nx

from .hierarchy import all_folders, build_hierarchy, folder_representatives
from .parse import ParsedNote
from .resolve import Resolver


@dataclass(frozen=True, slots=True)
class ResolvedLink:
    source: str
    target: str
    target_kind: str  # note | folder | attachment | ghost | self
    kind: str  # wikilink | embed | markdown | property
    predicate: str | None
    subpath: str
    display: str
    written: str
    line: int
    hierarchy: bool


@dataclass
class VaultGraphBuild:
    graph: nx.MultiDiGraph
    links: list[ResolvedLink] = field(default_factory=list)
    parents: dict[str, str] = field(default_factory=dict)
    virtual_folders: list[str] = field(default_factory=list)
    folders: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def resolved_count(self) -> int:
        return sum(1 for link in self.links if link.target_kind in ("note", "folder", "self"))

    @property
    def unresolved(self) -> list[ResolvedLink]:
        return [link for link in self.links if link.target_kind == "ghost"]

    @property
    def tag_count(self) -> int:
        return sum(1 for _, d in self.graph.nodes(data=True) if d.get("kind") == "tag")


HierarchyRow = tuple[
    str, str, str, str | None, str
]  # source, target, target_kind, predicate, written


def resolve_note_links(
    note: ParsedNote, resolver: Resolver, hier_keys: set[str]
) -> list[ResolvedLink]:
    """Every link of one note, resolved, in the order written."""
    source_dir = posixpath.dirname(note.uri)
    links = []
    for link in note.links:
        read = resolver.resolve_link(
            link.target, link.subpath, link.display, note.uri, link.markdown, source_dir
        )
        links.append(
            ResolvedLink(
                source=note.uri,
                target=read.target.uri,
                target_kind=read.target.kind,
                kind=link.kind,
                predicate=link.property,
                subpath=read.subpath,
                display=read.display,
                written=read.written,
                line=link.line,
                hierarchy=link.property is not None and link.property.casefold() in hier_keys,
            )
        )
    return links


def property_parents(
    rows: Iterable[HierarchyRow], paths: dict[str, str]
) -> tuple[dict[str, tuple[str, str]], list[str]]:
    """Each note's parent from its first hierarchy-property link that resolves.

    ``rows`` are the hierarchy links, grouped by note in uri order and in written
    order within a note. Returns (uri -> (parent uri, written target), warnings).
    """
    parents: dict[str, tuple[str, str]] = {}
    warnings: list[str] = []
    for source, target, target_kind, predicate, written in rows:
        if source in parents:
            continue
        if target_kind in ("note", "folder"):
            parents[source] = (target, written)
        else:
            warnings.append(
                f"{paths.get(source, source)}: {predicate}: [[{written}]] does not resolve to a "
                "note; folder parent kept"
            )
    return parents, warnings


def target_nodes(rows: Iterable[tuple[str, str]], known: Container[str]) -> dict[str, str]:
    """Nodes that exist only as link targets (missing notes, attachments): uri -> kind.

    ``rows`` are (target, target_kind) of the links that make edges; ``known``
    holds the note and folder uris. Sorted by uri, and a real attachment wins
    over a ghost of the same name, so the answer does not depend on link order.
    """
    found: dict[str, str] = {}
    for target, kind in rows:
        if target not in known and found.get(target) != "attachment":
            found[target] = kind
    return dict(sorted(found.items()))


def makes_edge(link: ResolvedLink) -> bool:
    """Hierarchy links make the parent edge only; self-links make none."""
    return not (link.hierarchy or link.target_kind == "self" or link.target == link.source)


def build_graph(
    notes: Iterable[ParsedNote],
    attachment_paths: Iterable[str] = (),
    hierarchy_properties: tuple[str, ...] = ("up", "parent"),
    folder_note_names: tuple[str, ...] = ("{folder}", "index", "README"),
    folder_note_beside: bool = True,
    resolve_aliases: bool = True,
) -> VaultGraphBuild:
    """The whole vault in memory as networkx (``doctor`` and tests; ``build_index``
    keeps the same data in SQLite with ``linktable``)."""
    notes = sorted(notes, key=lambda n: n.uri)
    uris = [n.uri for n in notes]
    folders = all_folders(uris)
    reps = folder_representatives(folders, uris, folder_note_names, folder_note_beside)
    resolver = Resolver(
        uris,
        list(attachment_paths),
        {n.uri: n.aliases for n in notes if n.aliases},
        reps,
        resolve_aliases,
    )
    hier_keys = {p.casefold() for p in hierarchy_properties}
    links = [link for note in notes for link in resolve_note_links(note, resolver, hier_keys)]
    paths = {n.uri: n.path for n in notes}
    chosen, warnings = property_parents(
        (
            (lk.source, lk.target, lk.target_kind, lk.predicate, lk.written)
            for lk in links
            if lk.hierarchy
        ),
        paths,
    )
    hierarchy = build_hierarchy(uris, chosen, folder_note_names, folder_note_beside, paths, reps)
    warnings.extend(hierarchy.warnings)

    import networkx as nx

    g = nx.MultiDiGraph()
    for note in notes:
        g.add_node(
            note.uri,
            kind="note",
            title=note.title,
            path=note.path,
            created=note.created,
            modified=note.modified,
            order=note.order,
            aliases=tuple(note.aliases),
        )
    for folder in hierarchy.virtual_folders:
        path = folder.rstrip("/")
        g.add_node(folder, kind="folder", title=posixpath.basename(path), path=path)
    edge_links = [lk for lk in links if makes_edge(lk)]
    for uri, kind in target_nodes(((lk.target, lk.target_kind) for lk in edge_links), g).items():
        g.add_node(uri, kind=kind, title=posixpath.basename(uri))
    edges: list[tuple[str, str, dict]] = [
        (child, parent, {"type": "parent"}) for child, parent in hierarchy.parents.items()
    ]
    edges.extend(
        (lk.source, lk.target, {"type": lk.kind, "predicate": lk.predicate, "subpath": lk.subpath})
        for lk in edge_links
    )
    for note in notes:
        for tag in note.tags:
            key = "#" + tag
            if key not in g:
                g.add_node(key, kind="tag", title=key)
            edges.append((note.uri, key, {"type": "tag"}))
    # Explicit keys: networkx's own key search is the slowest part of adding an edge.
    g.add_edges_from((u, v, i, d) for i, (u, v, d) in enumerate(edges))
    return VaultGraphBuild(
        graph=g,
        links=links,
        parents=hierarchy.parents,
        virtual_folders=hierarchy.virtual_folders,
        folders=folders,
        warnings=warnings,
    )
