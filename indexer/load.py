"""Open an index for reading: the graph from the store (never re-parsed), vectors lazily."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from .shown import SHOWN_TOKENS_VERSION, WHOLE_TOKENS_VERSION
from .store import open_generation

if TYPE_CHECKING:  # imported where used: reading the graph needs neither (docs/architecture.md)
    import networkx as nx
    import numpy as np

    from .vectors import VectorIndex


@dataclass(frozen=True, slots=True)
class ChunkRow:
    id: int
    uri: str
    seq: int
    heading_path: str
    text: str
    tokens: int
    vec_id: int
    # Tokens of its shown text, at least (``shown.py``); None when the index has none.
    shown_tokens: int | None = None


class NoteRow(NamedTuple):
    """A note's row as text is made from it: ``body`` ("" when none), the stored
    ``properties`` JSON, and ``whole_tokens`` (None when the index has no counts)."""

    body: str
    properties: str | None
    whole_tokens: int | None


@dataclass
class IndexSnapshot:
    """One committed generation of the index; immutable, safe to share between threads."""

    index_dir: Path
    manifest: dict[str, Any]
    generation: Path
    db: sqlite3.Connection
    _parts: Parts | None = None
    _graph: nx.MultiDiGraph | None = None
    _vectors: VectorIndex | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def parts(self) -> Parts:
        """The graph's nodes and edges as plain data (read once)."""
        with self._lock:
            if self._parts is None:
                self._parts = store_parts(self.db)
            return self._parts

    def graph_rows(self) -> GraphRows:
        """The graph's rows for ``VaultGraph.from_rows`` (read afresh on each call)."""
        with self._lock:
            return store_rows(self.db)

    @property
    def graph(self) -> nx.MultiDiGraph:
        """The vault graph as a networkx MultiDiGraph, built on first use."""
        parts = self.parts
        with self._lock:
            if self._graph is None:
                self._graph = graph_from_parts(parts)
            return self._graph

    @property
    def vectors(self) -> VectorIndex:
        from .vectors import VectorIndex

        with self._lock:
            if self._vectors is None:
                path = self.generation / "vectors.faiss"
                self._vectors = (
                    VectorIndex.load(path)
                    if path.exists()
                    else VectorIndex(int(self.manifest.get("dim") or 384))
                )
            return self._vectors

    def loaded_vectors(self) -> VectorIndex | None:
        """The FAISS index if something already loaded it (never loads)."""
        return self._vectors

    def body(self, uri: str) -> str:
        rows = self._rows("SELECT body FROM notes WHERE uri = ?", (uri,))
        return rows[0][0] if rows and rows[0][0] else ""

    def note_row(self, uri: str) -> dict[str, Any] | None:
        keys = (
            "uri",
            "path",
            "title",
            "aliases",
            "tags",
            "properties",
            "headings",
            "created",
            "modified",
        )
        rows = self._rows(f"SELECT {', '.join(keys)} FROM notes WHERE uri = ?", (uri,))
        if not rows:
            return None
        data = dict(zip(keys, rows[0], strict=True))
        for key in ("aliases", "tags", "properties", "headings"):
            data[key] = json.loads(data[key])
        return data

    def chunks_for_vectors(self, vec_ids: list[int]) -> list[ChunkRow]:
        if not vec_ids:
            return []
        marks = ",".join("?" * len(vec_ids))
        rows = self._rows(
            "SELECT id, uri, seq, heading_path, text, tokens, vec_id FROM chunks "
            f"WHERE vec_id IN ({marks}) ORDER BY uri, seq",
            tuple(int(v) for v in vec_ids),
        )
        return [ChunkRow(*r) for r in rows]

    def note_vectors(self) -> tuple[list[str], np.ndarray] | None:
        """(uris, normalised float16 rows): one vector per note (``note_vectors.py``),
        read without FAISS; None for a generation written before the file existed."""
        from .note_vectors import FILE, read

        return read(self.generation / FILE)

    def embeds_of(self, uri: str) -> list[tuple[str, str]]:
        """(target as written, resolved uri) of each embed of a note in ``uri``'s text."""
        rows = self._rows(
            "SELECT written, target FROM links "
            "WHERE source = ? AND kind = 'embed' AND target_kind = 'note'",
            (uri,),
        )
        return [(w or "", t) for w, t in rows]

    @property
    def has_shown_tokens(self) -> bool:
        """Do the chunk rows carry ``shown_tokens`` counted by the current rule? Not in
        an index written before the column, nor in one an older version updated."""
        return self.manifest.get("shown_tokens") == SHOWN_TOKENS_VERSION

    @property
    def has_whole_tokens(self) -> bool:
        """Do the note rows carry ``shown_tokens`` (``shown.whole_tokens``) counted by
        the current rule? Not in an index written before the column (schema 2 or older)."""
        return self.manifest.get("whole_tokens") == WHOLE_TOKENS_VERSION

    def whole_tokens(self, uri: str) -> int | None:
        """The fewest tokens the note's whole text takes as query mode shows it (stored
        at index time), or None when the index has no such count."""
        if not self.has_whole_tokens:
            return None
        rows = self._rows("SELECT shown_tokens FROM notes WHERE uri = ?", (uri,))
        return rows[0][0] if rows else None

    def chunks_of(self, uri: str) -> list[ChunkRow]:
        rows = self._rows(f"{self._chunk_select()} WHERE uri = ? ORDER BY seq", (uri,))
        return [ChunkRow(*r) for r in rows]

    def _chunk_select(self) -> str:
        """The SELECT of ``ChunkRow``'s columns (no shown count in an older index)."""
        shown = "shown_tokens" if self.has_shown_tokens else "NULL"
        return f"SELECT id, uri, seq, heading_path, text, tokens, vec_id, {shown} FROM chunks"

    def notes_rows(self, uris: Sequence[str]) -> dict[str, NoteRow]:
        """Of each of ``uris`` that is a note, what ``body``, ``whole_tokens`` and the
        properties column give one note at a time, in one query."""
        if not uris:
            return {}
        whole = "shown_tokens" if self.has_whole_tokens else "NULL"
        rows = self._rows(
            f"SELECT uri, body, properties, {whole} FROM notes WHERE uri IN ({_marks(uris)})",
            tuple(uris),
        )
        return {uri: NoteRow(body or "", props, tokens) for uri, body, props, tokens in rows}

    def properties_of(self, uri: str) -> str | None:
        """The note's stored front-matter properties (JSON), or None."""
        rows = self._rows("SELECT properties FROM notes WHERE uri = ?", (uri,))
        return rows[0][0] if rows else None

    def chunks_of_notes(self, uris: Sequence[str]) -> dict[str, list[ChunkRow]]:
        """``chunks_of`` of each of ``uris`` (those without chunks left out), in one query."""
        if not uris:
            return {}
        rows = self._rows(
            f"{self._chunk_select()} WHERE uri IN ({_marks(uris)}) ORDER BY uri, seq",
            tuple(uris),
        )
        out: dict[str, list[ChunkRow]] = {}
        for r in rows:
            out.setdefault(r[1], []).append(ChunkRow(*r))
        return out

    def embeds_of_notes(self, uris: Sequence[str]) -> dict[str, list[tuple[str, str]]]:
        """``embeds_of`` of each of ``uris`` (those without embeds left out), in one query."""
        if not uris:
            return {}
        rows = self._rows(
            "SELECT source, written, target FROM links "
            f"WHERE source IN ({_marks(uris)}) "
            "AND kind = 'embed' AND target_kind = 'note' ORDER BY source, rowid",
            tuple(uris),
        )
        out: dict[str, list[tuple[str, str]]] = {}
        for source, written, target in rows:
            out.setdefault(source, []).append((written or "", target))
        return out

    def warnings(self) -> list[str]:
        notes = [
            w
            for (ws,) in self._rows("SELECT warnings FROM notes WHERE warnings != '[]'")
            for w in json.loads(ws)
        ]
        return notes + [m for (m,) in self._rows("SELECT message FROM warnings")]

    def _rows(self, sql: str, params: tuple = ()) -> list[tuple]:
        # One connection is shared by the server's threads: fetch under the lock.
        with self._lock:
            return self.db.execute(sql, params).fetchall()

    def close(self) -> None:
        self.db.close()


def load_index(index_dir: str | os.PathLike[str]) -> IndexSnapshot:
    """Open the current generation at ``index_dir`` (the graph is read on first use)."""
    path = Path(index_dir).expanduser().resolve()
    manifest, gen, db = open_generation(path)
    return IndexSnapshot(path, manifest, gen, db)


Parts = tuple[dict[str, dict[str, Any]], list[tuple[str, str, dict[str, Any]]]]

# The links that are graph edges: hierarchy links make the parent edge only,
# self-links none.
_EDGE_LINKS = "hierarchy = 0 AND target_kind != 'self' AND source != target"


class GraphRows(NamedTuple):
    """The vault graph as plain tuples, in the shapes ``VaultGraph.from_rows`` takes.

    ``nodes``: (uri, kind, title, path, created, modified, order, aliases) per
    node in table order, aliases a tuple or None; ``parents``: (child, parent);
    ``links``: (source, target, kind, predicate) of the edge links in table
    order; ``tags``: (uri, tag).
    """

    nodes: list[tuple]
    parents: list[tuple[str, str]]
    links: list[tuple[str, str, str, str | None]]
    tags: list[tuple[str, str]]


def store_rows(db: sqlite3.Connection) -> GraphRows:
    """The same graph as ``store_parts``, read as rows with the work done in SQLite:
    no dict per node or edge, and aliases decoded only for the notes that have some."""
    nodes = db.execute(
        "SELECT n.uri, n.kind, n.title, "
        # a virtual folder's path is its uri, as graphbuild gives it
        "CASE WHEN t.uri IS NULL AND n.kind = 'folder' THEN rtrim(n.uri, '/') ELSE t.path END, "
        "t.created, t.modified, t.ord, NULLIF(t.aliases, '[]') "
        "FROM nodes n LEFT JOIN notes t ON t.uri = n.uri ORDER BY n.rowid"
    ).fetchall()
    loads = json.loads
    for i, row in enumerate(nodes):
        if row[7] is not None:
            nodes[i] = (*row[:7], tuple(loads(row[7])))
    return GraphRows(
        nodes,
        db.execute(
            "SELECT uri, parent FROM nodes WHERE parent IS NOT NULL ORDER BY rowid"
        ).fetchall(),
        db.execute(
            f"SELECT source, target, kind, predicate FROM links WHERE {_EDGE_LINKS} ORDER BY rowid"
        ).fetchall(),
        db.execute("SELECT uri, tag FROM tags ORDER BY rowid").fetchall(),
    )


def store_parts(db: sqlite3.Connection) -> Parts:
    """Nodes (uri -> attributes) and edges (source, target, attributes) of the vault graph,
    read from the tables; the same data ``graph_from_store`` puts into networkx."""
    notes = {
        uri: (path, created, modified, order, aliases)
        for uri, path, created, modified, order, aliases in db.execute(
            "SELECT uri, path, created, modified, ord, aliases FROM notes"
        )
    }
    nodes: dict[str, dict[str, Any]] = {}
    edges: list[tuple[str, str, dict[str, Any]]] = []
    for uri, kind, title, parent in db.execute("SELECT uri, kind, title, parent FROM nodes"):
        attrs: dict[str, Any] = {"kind": kind, "title": title}
        if uri in notes:
            path, created, modified, order, aliases = notes[uri]
            attrs.update(
                path=path,
                created=created,
                modified=modified,
                order=order,
                aliases=tuple(json.loads(aliases)),
            )
        elif kind == "folder":
            attrs["path"] = uri.rstrip("/")  # as graphbuild gives virtual folders
        nodes[uri] = attrs
        if parent is not None:
            edges.append((uri, parent, {"type": "parent"}))
    for source, target, kind, predicate, subpath in db.execute(
        f"SELECT source, target, kind, predicate, subpath FROM links WHERE {_EDGE_LINKS}"
    ):
        edges.append((source, target, {"type": kind, "predicate": predicate, "subpath": subpath}))
    for uri, tag in db.execute("SELECT uri, tag FROM tags"):
        key = "#" + tag
        nodes.setdefault(key, {"kind": "tag", "title": key})
        edges.append((uri, key, {"type": "tag"}))
    return nodes, edges


def graph_from_store(db: sqlite3.Connection) -> nx.MultiDiGraph:
    return graph_from_parts(store_parts(db))


def graph_from_parts(parts: Parts) -> nx.MultiDiGraph:
    import networkx as nx

    nodes, edges = parts
    g = nx.MultiDiGraph()
    g.add_nodes_from(nodes.items())
    # Explicit keys: networkx's own key search is the slowest part of adding an edge.
    g.add_edges_from((u, v, i, d) for i, (u, v, d) in enumerate(edges))
    return g


def _marks(values: Sequence[object]) -> str:
    """One ``?`` per value, for an ``IN (...)`` list."""
    return ",".join("?" * len(values))
