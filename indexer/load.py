"""Open an index for reading: the graph from the store (never re-parsed), vectors lazily."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import networkx as nx

from .store import open_generation
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
        with self._lock:
            if self._vectors is None:
                path = self.generation / "vectors.faiss"
                self._vectors = (
                    VectorIndex.load(path)
                    if path.exists()
                    else VectorIndex(int(self.manifest.get("dim") or 384))
                )
            return self._vectors

    def body(self, uri: str) -> str:
        rows = self._rows("SELECT body FROM notes WHERE uri = ?", (uri,))
        return rows[0][0] if rows and rows[0][0] else ""

    def note_row(self, uri: str) -> dict[str, Any] | None:
        keys = ("uri", "path", "title", "aliases", "tags", "properties", "headings", "created",
                "modified")
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

    def chunks_of(self, uri: str) -> list[ChunkRow]:
        rows = self._rows(
            "SELECT id, uri, seq, heading_path, text, tokens, vec_id FROM chunks "
            "WHERE uri = ? ORDER BY seq",
            (uri,),
        )
        return [ChunkRow(*r) for r in rows]

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
        "SELECT source, target, kind, predicate, subpath FROM links "
        "WHERE hierarchy = 0 AND target_kind != 'self' AND source != target"
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
    nodes, edges = parts
    g = nx.MultiDiGraph()
    g.add_nodes_from(nodes.items())
    # Explicit keys: networkx's own key search is the slowest part of adding an edge.
    g.add_edges_from((u, v, i, d) for i, (u, v, d) in enumerate(edges))
    return g
