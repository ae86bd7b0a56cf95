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
from collections.abc import Iterable
from dataclasses import dataclass, field

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


def build_graph(
    notes: Iterable[ParsedNote],
    attachment_paths: Iterable[str] = (),
    hierarchy_properties: tuple[str, ...] = ("up", "parent"),
    folder_note_names: tuple[str, ...] = ("{folder}", "index", "README"),
    folder_note_beside: bool = True,
    resolve_aliases: bool = True,
) -> VaultGraphBuild:
    notes = sorted(notes, key=lambda n: n.uri)
    uris = [n.uri for n in notes]
    folders = all_folders(uris)
    resolver = Resolver(
        uris,
        list(attachment_paths),
        aliases={n.uri: n.aliases for n in notes if n.aliases},
        folders=folder_representatives(folders, uris, folder_note_names, folder_note_beside),
        resolve_aliases=resolve_aliases,
    )
    hier_keys = {p.casefold() for p in hierarchy_properties}
    links: list[ResolvedLink] = []
    property_parents: dict[str, tuple[str, str]] = {}
    warnings: list[str] = []
    for note in notes:
        source_dir = posixpath.dirname(note.uri)
        for link in note.links:
            target = resolver.resolve(link.target, note.uri, link.markdown, source_dir)
            is_hier = link.property is not None and link.property.casefold() in hier_keys
            links.append(
                ResolvedLink(
                    source=note.uri,
                    target=target.uri,
                    target_kind=target.kind,
                    kind=link.kind,
                    predicate=link.property,
                    subpath=link.subpath,
                    display=link.display,
                    written=link.target,
                    line=link.line,
                    hierarchy=is_hier,
                )
            )
            if is_hier and note.uri not in property_parents:
                if target.kind in ("note", "folder"):
                    property_parents[note.uri] = (target.uri, link.target)
                else:
                    warnings.append(
                        f"{note.path}: {link.property}: [[{link.target}]] does not resolve to a "
                        "note; folder parent kept"
                    )

    hierarchy = build_hierarchy(
        uris,
        property_parents,
        folder_note_names,
        folder_note_beside,
        paths={n.uri: n.path for n in notes},
    )
    warnings.extend(hierarchy.warnings)

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
    edges: list[tuple[str, str, dict]] = [
        (child, parent, {"type": "parent"}) for child, parent in hierarchy.parents.items()
    ]
    for link in links:
        if link.hierarchy or link.target_kind == "self" or link.target == link.source:
            continue
        if link.target not in g:
            title = posixpath.basename(link.target)
            g.add_node(link.target, kind=link.target_kind, title=title)
        attrs = {"type": link.kind, "predicate": link.predicate, "subpath": link.subpath}
        edges.append((link.source, link.target, attrs))
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
