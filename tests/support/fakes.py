"""Deterministic stand-ins for the model, for unit tests.

``hash_embedder`` is an ``embedding.backend`` factory: a subprocess (``serve``, ``mcp``)
uses the hash embedder with ``VAULTRAG_EMBEDDING__BACKEND=tests.support.fakes:hash_embedder``
and the repository root on ``PYTHONPATH``.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from indexer.config import EmbeddingSettings

# The embedding.backend setting that selects hash_embedder (below).
HASH_BACKEND = "tests.support.fakes:hash_embedder"

WORD_RE = re.compile(r"\w+", re.U)


class HashEmbedder:
    """Bag of hashed words: texts sharing words are similar, identical texts are equal.

    Counts every call and text, so tests can assert what was (re-)embedded.
    """

    def __init__(self, dim: int = 64, name: str = "test/hash-embedder") -> None:
        self.dim = dim
        self.name = name
        self.calls = 0
        self.texts: list[str] = []

    def embed(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        self.calls += 1
        self.texts.extend(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in WORD_RE.findall(text.lower()):
                h = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=4).digest(), "big")
                out[i, h % self.dim] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        if progress is not None:
            progress(len(texts))
        return out / norms


def hash_embedder(settings: EmbeddingSettings) -> HashEmbedder:
    """The ``embedding.backend`` factory for the tests' embedder (the settings are unused)."""
    return HashEmbedder()
