"""Chunk vectors in FAISS (``IndexIDMap2`` over inner product on normalised vectors).

Vector ids come from the embedded text (``chunk.vector_id``), so a chunk whose
text did not change, or moved with its note, keeps its vector, and identical
chunks in two notes share one. No SQL here: the store maps ids to chunk rows.
"""

from __future__ import annotations

from pathlib import Path

import faiss
import numpy as np


class VectorIndex:
    def __init__(self, dim: int, index: faiss.Index | None = None) -> None:
        self.dim = dim
        self.index = index if index is not None else faiss.IndexIDMap2(faiss.IndexFlatIP(dim))
        self._matrix: tuple[np.ndarray, np.ndarray] | None = None

    def __len__(self) -> int:
        return int(self.index.ntotal)

    @classmethod
    def load(cls, path: Path) -> VectorIndex:
        index = faiss.read_index(str(path))
        return cls(index.d, index)

    def save(self, path: str | Path) -> None:
        faiss.write_index(self.index, str(path))

    def ids(self) -> np.ndarray:
        if len(self) == 0:
            return np.zeros(0, dtype=np.int64)
        return faiss.vector_to_array(self.index.id_map).astype(np.int64)

    def add(self, ids: np.ndarray, vectors: np.ndarray) -> None:
        if len(ids):
            self.index.add_with_ids(
                np.ascontiguousarray(vectors, dtype=np.float32), np.asarray(ids, dtype=np.int64)
            )
            self._matrix = None

    def remove(self, ids: np.ndarray) -> None:
        if len(ids):
            self.index.remove_ids(np.asarray(ids, dtype=np.int64))
            self._matrix = None

    def matrix(self) -> tuple[np.ndarray, np.ndarray]:
        """(ids, vectors) as numpy arrays: brute force over them beats FAISS for one query."""
        if self._matrix is None:
            flat = faiss.downcast_index(self.index.index)
            vecs = faiss.rev_swig_ptr(flat.get_xb(), len(self) * self.dim).reshape(
                len(self), self.dim
            )
            self._matrix = (self.ids(), np.array(vecs, dtype=np.float32))
        return self._matrix

    def get(self, ids: list[int]) -> np.ndarray:
        return (
            np.stack([self.index.reconstruct(int(i)) for i in ids])
            if ids
            else np.zeros((0, self.dim), dtype=np.float32)
        )

    def search(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Top-k (scores, ids) for one normalised query vector."""
        ids, vecs = self.matrix()
        if len(ids) == 0 or k <= 0:
            return np.zeros(0, dtype=np.float32), np.zeros(0, dtype=np.int64)
        scores = vecs @ np.asarray(query, dtype=np.float32).reshape(-1)
        k = min(k, len(ids))
        top = np.argpartition(-scores, k - 1)[:k]
        top = top[np.argsort(-scores[top], kind="stable")]
        return scores[top], ids[top]
