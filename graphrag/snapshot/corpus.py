"""Per-snapshot arrays for query mode and the searches, built once and cached.

Everything a query scores is laid out in one order: notes sorted by uri, and
chunks sorted by (note, seq). So a note's chunks are one contiguous block of
rows, and so are all the notes of a folder (they share the prefix ``F/``):
``note_sims`` is one matrix-vector product plus a ``maximum.reduceat``, and a
hierarchical search over a folder is a slice of the matrix, not a copy.

The chunk vectors are a copy of the FAISS vectors in that order (a chunk
shared by two notes gets a row in each), scanned whole for each question:
a float32 matrix up to ``chunk_vectors.HALF_ROWS`` rows (1-3 ms at 10k
notes), above it a float16 copy with the best rows scored again in float32
from FAISS's own storage (``chunk_vectors.py``: half the bytes read, half
the memory of a float32 copy).

A ``Corpus`` belongs to one ``Snapshot`` (``Snapshot.corpus`` builds it on first
use), so a reload (a new generation, or the same one reopened) never sees stale arrays.
"""

from __future__ import annotations

import bisect
import sqlite3
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import quote

import numpy as np

from graphrag.snapshot.chunk_vectors import (
    HALF_ROWS,
    ChunkVectors,
    ExactVectors,
    HalfVectors,
    half_scan_is_faster,
    one_torch_thread,
)
from graphrag.snapshot.graph import VaultGraph
from indexer.flat_file import read_flat
from indexer.load import IndexSnapshot

if TYPE_CHECKING:
    from indexer.vectors import VectorIndex

T = TypeVar("T")


class Corpus:
    """Notes, chunks and their vectors of one snapshot, in uri order."""

    def __init__(
        self,
        generation: Path,
        uris: list[str],
        chunk_start: np.ndarray,
        matrix: np.ndarray | None,
        created: np.ndarray,
        modified: np.ndarray,
        body_chars: np.ndarray,
        dated: np.ndarray | None = None,
        vectors: ChunkVectors | None = None,
    ) -> None:
        self.generation = generation
        self.uris = uris
        self.index_of = {uri: i for i, uri in enumerate(uris)}
        self.chunk_start = chunk_start  # note i owns chunk rows [start[i], start[i + 1])
        # The chunk vectors in row order: ``matrix`` (float32), or a layout for scans.
        if vectors is None:
            assert matrix is not None
            vectors = ExactVectors(matrix)
        self.vectors: ChunkVectors = vectors
        self.created = created
        self.modified = modified
        self.body_chars = body_chars
        # Whether ``created`` came from front matter rather than the file's mtime, which
        # says when a vault was copied or checked out as often as when a note was written.
        self.dated = dated if dated is not None else np.zeros(len(uris), dtype=bool)
        self._has_chunks = chunk_start[1:] > chunk_start[:-1]
        self._with_chunks = np.flatnonzero(self._has_chunks)
        self._lazy: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._db_lock = threading.Lock()

    def __len__(self) -> int:
        return len(self.uris)

    @property
    def dim(self) -> int:
        return self.vectors.dim

    @property
    def chunk_count(self) -> int:
        """Rows of chunk vectors (a chunk shared by two notes has a row in each)."""
        return self.vectors.rows

    @property
    def matrix(self) -> np.ndarray:
        """The chunk vectors as one float32 matrix in row order, for batch work. With the
        float16 layout (large vaults) it is built on first use: a single question should
        use ``chunk_scores``."""
        return self.vectors.matrix

    # -- vectors --------------------------------------------------------------------------
    def chunk_scores(self, query_vec: np.ndarray) -> np.ndarray:
        """Cosine of every chunk with the (normalised) query, in chunk-row order."""
        return self.vectors.scores(query_vec)

    def subset_scores(
        self,
        query_vec: np.ndarray,
        blocks: Iterable[tuple[int, int]] = (),
        scattered: np.ndarray | None = None,
    ) -> np.ndarray:
        """``chunk_scores`` for the rows in ``blocks`` (half-open ranges) and
        ``scattered``; ``-inf`` for every other row."""
        return self.vectors.subset_scores(query_vec, blocks, scattered)

    def vector_sum(
        self, blocks: Iterable[tuple[int, int]] = (), scattered: np.ndarray | None = None
    ) -> np.ndarray:
        """The sum of the float32 vectors of those rows (float64)."""
        return self.vectors.vector_sum(blocks, scattered)

    def note_sims(self, chunk_scores: np.ndarray, notes: np.ndarray | None = None) -> np.ndarray:
        """Each note's best chunk; -1 for notes without chunks (empty notes).

        ``notes`` (sorted note indices): compute only those, -1 for the others (a
        hierarchical search scores a few hubs' notes, not the whole vault)."""
        sims = np.full(len(self.uris), -1.0, dtype=np.float32)
        if notes is not None:
            notes = notes[self._has_chunks[notes]]
            lo = self.chunk_start[notes]
            counts = self.chunk_start[notes + 1] - lo
            offsets = np.cumsum(counts) - counts
            rows = np.arange(int(counts.sum())) + np.repeat(lo - offsets, counts)
            if len(notes):
                sims[notes] = np.maximum.reduceat(chunk_scores[rows], offsets)
        elif len(self._with_chunks):
            sims[self._with_chunks] = self._segment_max(chunk_scores)
        return sims

    def notes_of_rows(self, rows: np.ndarray) -> np.ndarray:
        """The sorted distinct notes owning chunk ``rows``."""
        return np.unique(np.searchsorted(self.chunk_start, rows, side="right") - 1)

    def _segment_max(self, chunk_scores: np.ndarray) -> np.ndarray:
        """Max over each note's rows, notes with chunks only. ``maximum.reduceat`` costs
        ~2.5 ms at 100k notes; with the float16 layout torch is loaded anyway and its
        ``segment_reduce`` does the same in ~1 ms."""
        starts = self.chunk_start[self._with_chunks]
        if not isinstance(self.vectors, HalfVectors):
            return np.maximum.reduceat(chunk_scores, starts)
        import torch

        lengths = self.derived(
            "segment-lengths",
            lambda: torch.from_numpy(np.diff(np.append(starts, self.chunk_count))),
        )
        with one_torch_thread():
            out = torch.segment_reduce(torch.from_numpy(chunk_scores), "max", lengths=lengths)
        return out.numpy()

    def chunk_rows(self, note: int) -> tuple[int, int]:
        return int(self.chunk_start[note]), int(self.chunk_start[note + 1])

    # -- uri ranges ----------------------------------------------------------------------
    def folder_range(self, folder: str) -> tuple[int, int]:
        """Notes under ``folder/`` as a half-open range of note indices ('0' follows '/')."""
        prefix = folder.rstrip("/")
        return (
            bisect.bisect_left(self.uris, prefix + "/"),
            bisect.bisect_left(self.uris, prefix + "0"),
        )

    def indices(self, uris: Any) -> np.ndarray:
        index_of = self.index_of
        return np.fromiter((index_of[u] for u in uris if u in index_of), dtype=np.int64)

    # -- lazily derived data -------------------------------------------------------------
    def derived(self, name: str, build: Callable[[], T]) -> T:
        """Build ``name`` once (under a lock, so two threads never build it twice)."""
        value = self._lazy.get(name)
        if value is None:
            with self._lock:
                value = self._lazy.get(name)
                if value is None:
                    value = build()
                    self._lazy[name] = value
        return value

    def cached(self, name: str) -> Any:
        """``name`` if already built by ``derived``, else None (never builds)."""
        return self._lazy.get(name)

    def rows(self, sql: str, params: tuple = ()) -> list[tuple]:
        """Small reads on the corpus's own connection (one per corpus, under a lock)."""
        with self._db_lock:
            if self._db is None:
                self._db = self.connect()
            return self._db.execute(sql, params).fetchall()

    def link_subpaths(self, source: str, target: str) -> tuple[str, ...]:
        """The headings and blocks (``Note#Heading``, ``#^block``) ``source``'s links to
        ``target`` name, in link order. Read once for the whole generation (a few
        thousand links at 10k notes): one query per pair scanned every backlink of a
        much-linked target."""

        def build() -> dict[tuple[str, str], tuple[str, ...]]:
            out: dict[tuple[str, str], list[str]] = {}
            for src, dst, sub in self.rows(
                "SELECT source, target, subpath FROM links WHERE subpath <> '' ORDER BY rowid"
            ):
                if sub:
                    out.setdefault((src, dst), []).append(str(sub))
            return {pair: tuple(subs) for pair, subs in out.items()}

        return self.derived("link-subpaths", build).get((source, target), ())

    def connect(self) -> sqlite3.Connection:
        """A private read-only connection for bulk reads (the snapshot's own one is
        shared by the server's threads under a lock)."""
        db_path = self.generation / "index.sqlite"
        return sqlite3.connect(
            f"file:{quote(str(db_path))}?mode=ro&immutable=1", uri=True, check_same_thread=False
        )


def build_corpus(index: IndexSnapshot, graph: VaultGraph) -> Corpus:
    uris = sorted(n.uri for n in graph.notes())
    index_of = {u: i for i, u in enumerate(uris)}
    ids, vectors, owner = _vectors(index)
    order = np.argsort(ids, kind="stable")
    sorted_ids = ids[order]

    probe = sqlite3.connect(
        f"file:{quote(str(index.generation / 'index.sqlite'))}?mode=ro&immutable=1", uri=True
    )
    try:
        chunk_rows = probe.execute("SELECT uri, vec_id FROM chunks ORDER BY uri, seq").fetchall()
        meta = {
            uri: (chars, dated)
            for uri, chars, dated in probe.execute(
                "SELECT uri, length(body), json_extract(properties, '$.created') IS NOT NULL "
                "OR json_extract(properties, '$.date') IS NOT NULL FROM notes"
            )
        }
    finally:
        probe.close()

    counts = np.zeros(len(uris) + 1, dtype=np.int64)
    kept_vec: list[int] = []
    for uri, vec_id in chunk_rows:
        i = index_of.get(uri)
        if i is None:
            continue
        counts[i + 1] += 1
        kept_vec.append(vec_id)
    chunk_start = np.cumsum(counts)
    vec_ids = np.asarray(kept_vec, dtype=np.int64)
    dim = vectors.shape[1] if vectors.ndim == 2 else int(index.manifest.get("dim") or 0)
    # Each row's line in FAISS's storage; a chunk whose vector is missing gets -1 and
    # a zero row: it never matches.
    positions = np.full(len(vec_ids), -1, dtype=np.int64)
    if len(vec_ids) and len(sorted_ids):
        pos = np.searchsorted(sorted_ids, vec_ids).clip(0, len(sorted_ids) - 1)
        found = sorted_ids[pos] == vec_ids
        positions[found] = order[pos[found]]
    matrix: np.ndarray | None = None
    layout: ChunkVectors | None = None
    if len(vec_ids) >= HALF_ROWS and half_scan_is_faster():
        layout = HalfVectors.build(vectors, positions, owner)
    else:
        matrix = np.zeros((len(vec_ids), dim), dtype=np.float32)
        found = positions >= 0
        matrix[found] = vectors[positions[found]]

    infos = [graph.info(u) for u in uris]
    return Corpus(
        generation=index.generation,
        uris=uris,
        chunk_start=chunk_start,
        matrix=matrix,
        vectors=layout,
        created=np.array([n.created for n in infos], dtype=np.float64),
        modified=np.array([n.modified for n in infos], dtype=np.float64),
        body_chars=np.array([(meta.get(u) or (0, 0))[0] or 0 for u in uris], dtype=np.int64),
        dated=np.array([bool((meta.get(u) or (0, 0))[1]) for u in uris], dtype=bool),
    )


def _vectors(index: IndexSnapshot) -> tuple[np.ndarray, np.ndarray, object]:
    """(ids, vectors, what keeps ``vectors`` alive) of the generation's chunk vectors.

    A view of FAISS's flat storage when the index is already loaded (a server warms
    it), since our note-ordered matrix is copied anyway; else the file read with
    numpy (``indexer/flat_file.py``), so a question from the shell imports no FAISS;
    through FAISS only for a file that is not the flat layout."""
    if index.loaded_vectors() is None:
        got = read_flat(index.generation / "vectors.faiss")
        if got is not None:
            return got[0], got[1], got[1]
    vectors = index.vectors
    return (*_faiss_arrays(vectors), vectors)


def _faiss_arrays(vectors: VectorIndex) -> tuple[np.ndarray, np.ndarray]:
    """(ids, vectors) without the copy ``VectorIndex.matrix`` keeps: a view of the flat
    FAISS storage when there is one."""
    if len(vectors) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros((0, vectors.dim), dtype=np.float32)
    import faiss

    try:
        flat = faiss.downcast_index(vectors.index.index)
        view = faiss.rev_swig_ptr(flat.get_xb(), len(vectors) * vectors.dim)
        return vectors.ids(), np.asarray(view, dtype=np.float32).reshape(-1, vectors.dim)
    except (AttributeError, RuntimeError, TypeError):
        return vectors.matrix()
