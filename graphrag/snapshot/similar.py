"""Notes by vector similarity, for focus mode's similar notes (``SimilarContent``).

Each generation holds one normalised vector per note (``indexer/note_vectors.py``:
the mean of its chunk vectors), read with numpy alone, so focus mode never loads
FAISS for it. Two notes are as similar as the cosine of their vectors. An index
written before that file existed gets it computed from the chunk vectors on first
use, and saved beside the generation when the folder is writable (like the BM25
index). See docs/architecture.md ("Focus mode: relations").
"""

from __future__ import annotations

import contextlib

import numpy as np

from indexer.load import IndexSnapshot
from indexer.note_vectors import FILE, compute, write


class NoteVectors:
    def __init__(self, uris: list[str], matrix: np.ndarray) -> None:
        self.uris = uris
        self.index_of = {u: i for i, u in enumerate(uris)}
        self.matrix = np.asarray(matrix, dtype=np.float32)

    def nearest(self, uri: str, k: int) -> list[tuple[str, float]]:
        """The ``k`` notes most similar to ``uri``, best first, as (uri, cosine); ties
        by uri. Empty for a note without a vector (no text)."""
        i = self.index_of.get(uri)
        if i is None or k <= 0 or len(self.uris) < 2:
            return []
        sims = self.matrix @ self.matrix[i]
        sims[i] = -np.inf
        k = min(k, len(sims) - 1)
        top = np.argpartition(-sims, k - 1)[:k]
        top = top[np.lexsort((top, -sims[top]))]
        return [(self.uris[j], float(sims[j])) for j in top]


def load_note_vectors(index: IndexSnapshot) -> NoteVectors:
    """The generation's note vectors, computed (and saved if possible) when missing."""
    got = index.note_vectors()
    if got is None:
        got = compute(index.db, index.vectors)
        with contextlib.suppress(OSError):  # a read-only index folder: compute each time
            write(index.generation / FILE, *got)
    return NoteVectors(*got)
