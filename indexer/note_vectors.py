"""One vector per note, for "similar notes" without loading FAISS.

A note's vector is the normalised mean of its chunk vectors. Focus mode asks for
the notes nearest the focus on every call, and a command run from the shell
must not pay for importing FAISS and reading every chunk vector to answer it, so
each generation carries the note vectors beside its chunk vectors, in
``note_vectors.npz`` (uris and float16 rows, numpy's own format, read with
``numpy.load`` alone). An index written before this file existed gets it the
first time something computes it from the chunk vectors (``compute``), the same
way. See docs/architecture.md ("The index on disk").
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # reading the file needs no FAISS
    from .vectors import VectorIndex

FILE = "note_vectors.npz"


def compute(db: sqlite3.Connection, vectors: VectorIndex) -> tuple[list[str], np.ndarray]:
    """(note uris in uri order, their normalised mean chunk vectors as float16)."""
    ids, matrix = vectors.matrix() if len(vectors) else (np.zeros(0, np.int64), None)
    order = np.argsort(ids, kind="stable")
    sorted_ids = ids[order]
    uris: list[str] = []
    rows: list[np.ndarray] = []
    current: str | None = None
    total = np.zeros(vectors.dim, dtype=np.float64)
    for uri, vec_id in db.execute("SELECT uri, vec_id FROM chunks ORDER BY uri, seq"):
        if uri != current:
            if current is not None:
                _close(uris, rows, current, total)
            current, total = uri, np.zeros(vectors.dim, dtype=np.float64)
        at = int(np.searchsorted(sorted_ids, vec_id)) if len(sorted_ids) else 0
        if matrix is not None and at < len(sorted_ids) and sorted_ids[at] == vec_id:
            total += matrix[order[at]]
    if current is not None:
        _close(uris, rows, current, total)
    stacked = np.stack(rows) if rows else np.zeros((0, vectors.dim), dtype=np.float16)
    return uris, stacked.astype(np.float16)


def _close(uris: list[str], rows: list[np.ndarray], uri: str, total: np.ndarray) -> None:
    norm = float(np.linalg.norm(total))
    if norm > 0:  # a note whose vectors are all missing has no direction to compare
        uris.append(uri)
        rows.append(total / norm)


def write(path: str | os.PathLike[str], uris: list[str], matrix: np.ndarray) -> None:
    """Write atomically (a reader sees the old file or the whole new one)."""
    from .store import temp_beside

    tmp = temp_beside(path)
    with open(tmp, "wb") as fh:
        np.savez(fh, uris=np.array(uris, dtype=str), vectors=matrix)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def read(path: Path) -> tuple[list[str], np.ndarray] | None:
    """What ``write`` wrote; None when the file is missing or unreadable."""
    try:
        with np.load(path, allow_pickle=False) as data:
            return [str(u) for u in data["uris"]], np.asarray(data["vectors"])
    except (OSError, ValueError, KeyError):
        return None
