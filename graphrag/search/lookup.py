"""``get_note`` and ``neighbors`` (docs/architecture.md, "Searches"): one note as stored, and what it links to."""

from __future__ import annotations

from graphrag.errors import InvalidRequestError
from graphrag.results.lookup import Neighbour, NoteRecord
from graphrag.results.notes import UriAndTitle
from graphrag.snapshot.graph import VaultGraph
from indexer.load import IndexSnapshot

DIRECTIONS = ("out", "in", "both")


def neighbour_list(graph: VaultGraph, uri: str, direction: str = "both") -> list[Neighbour]:
    """``out``: the parent, then link targets (ghosts and attachments included, with
    their ``kind``); ``in``: children, then backlinks; ``both``: out, then in."""
    if direction not in DIRECTIONS:
        raise InvalidRequestError(
            "direction", f"{direction!r} is not one of {', '.join(DIRECTIONS)}"
        )
    out: list[Neighbour] = []
    if direction in ("out", "both"):
        parent = graph.parent(uri)
        if parent is not None:
            out.append(_neighbour(graph, parent, "parent"))
        for link in graph.outlinks(uri):
            out.append(_neighbour(graph, link.target, "link", link.predicate))
    if direction in ("in", "both"):
        out.extend(_neighbour(graph, child, "child") for child in graph.children(uri))
        for source in graph.backlinks(uri):
            predicates = [link.predicate for link in graph.outlinks(source) if link.target == uri]
            out.append(_neighbour(graph, source, "backlink", next(filter(None, predicates), None)))
    return out


def _neighbour(
    graph: VaultGraph, uri: str, relation: str, predicate: str | None = None
) -> Neighbour:
    node = graph.nodes.get(uri)
    title = node.title if node is not None else uri.rsplit("/", 1)[-1]
    kind = node.kind if node is not None else "ghost"
    return Neighbour(uri, title, relation, predicate, None if kind == "note" else kind)


def note_record(index: IndexSnapshot, graph: VaultGraph, uri: str) -> NoteRecord:
    info = graph.info(uri)
    row = index.note_row(uri) or {}
    parent = graph.parent(uri)
    return NoteRecord(
        uri=uri,
        title=info.title,
        path=info.path,
        aliases=info.aliases,
        tags=info.tags,
        properties=dict(row.get("properties") or {}),
        created_at=info.created or None,
        modified_at=info.modified or None,
        parent=UriAndTitle(parent, graph.info(parent).title) if parent is not None else None,
        neighbours=tuple(neighbour_list(graph, uri, "both")),
        details=graph.details(uri),
    )
