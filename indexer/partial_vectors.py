"""``INDEX/embedding.partial``: the vectors a build has embedded so far, so a killed
build does not embed them again.

A build writes its generation in a temp folder that the next run removes (the index is
never left half-written, ``store.py``); embedding a large vault the first time takes
long (88 minutes for obsidian-hub here), and all of it was lost with that folder. So
the chunks to embed go to the model in slices of about ``SLICE_TEXTS``, and each
slice's vectors are appended to this file beside the generations and flushed to disk
before the next slice starts: a kill loses at most the slice in flight. The next build
takes from it the vectors of the chunks it still has to embed (vector ids are a hash of
the embedded text, ``chunk.vector_id``, so an id names the same text in every run) and
embeds only the rest; the build that commits removes the file.

The file is only read and written under the index's write lock (``build_index``).
Layout: a header line, a JSON line naming the embedder (model, backend and dtype as the
manifest records them, dimension), then one block per slice: ``b"SLCE"``, the count
``n`` and a CRC-32 of the payload (little-endian uint32 each), then ``n`` int64 ids and
``n x dim`` float32 vectors. A torn or damaged block ends what is read (the file is cut
there before the next append); a file from another embedder, by the rule that says which
vectors may share an index (``vector_kind.vectors_differ``), is removed, never mixed in.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import struct
import zlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .store import fsync_dir
from .vector_kind import embedding_info, vectors_differ

FILE = "embedding.partial"
MAGIC = b"vault-graphrag embedding.partial 1\n"
BLOCK = struct.Struct("<4sII")  # b"SLCE", vector count, CRC-32 of the payload
BLOCK_TAG = b"SLCE"
# Texts per slice. The backends sort a call's texts by length and batch them, which a
# slice of a thousand does about as well as the whole list (benchmarks/RESULTS.md,
# "Resuming a killed first index"); a kill loses at most this many.
SLICE_TEXTS = 1024


class PartialVectors:
    """What ``index_dir``'s partial file holds for ``embedder``; ``append`` adds a slice."""

    def __init__(self, index_dir: Path, embedder: Any) -> None:
        self.path = index_dir / FILE
        self.embedder = embedder
        self.dim = 0  # of the vectors in the file; 0 while there is no file
        self.vectors: dict[int, np.ndarray] = {}
        self._end = 0  # where the last whole block ends: an append starts here

    @classmethod
    def open(cls, index_dir: Path, embedder: Any) -> PartialVectors:
        """Read the file if ``embedder`` made it; remove it if another embedder did or
        it is unreadable (there is nothing in it this build can use)."""
        partial = cls(index_dir, embedder)
        try:
            data = partial.path.read_bytes()
        except FileNotFoundError:
            return partial
        if not partial._read(data):
            partial.remove()
        return partial

    def _read(self, data: bytes) -> bool:
        if not data.startswith(MAGIC):
            return False
        line_end = data.find(b"\n", len(MAGIC))
        if line_end < 0:
            return False
        try:
            header = json.loads(data[len(MAGIC) : line_end])
            dim = int(header["dim"])
        except (ValueError, KeyError, TypeError):
            return False
        own_dim = int(getattr(self.embedder, "dim", 0) or 0)
        if dim <= 0 or (own_dim and own_dim != dim):
            return False
        if vectors_differ(header, self.embedder) is not None:
            return False
        self.dim = dim
        pos = self._end = line_end + 1
        while pos + BLOCK.size <= len(data):
            tag, n, crc = BLOCK.unpack_from(data, pos)
            start, end = pos + BLOCK.size, pos + BLOCK.size + n * (8 + 4 * dim)
            if tag != BLOCK_TAG or end > len(data) or zlib.crc32(data[start:end]) != crc:
                break  # torn by a kill, or damaged: nothing after it is trusted
            ids = np.frombuffer(data, dtype="<i8", count=n, offset=start)
            vecs = np.frombuffer(data, dtype="<f4", count=n * dim, offset=start + 8 * n)
            self.vectors.update(zip(ids.tolist(), vecs.reshape(n, dim), strict=True))
            pos = self._end = end
        return True

    def take(self, ids: Sequence[int]) -> dict[int, np.ndarray]:
        """The stored vectors of those of ``ids`` the file has."""
        return {i: self.vectors[i] for i in ids if i in self.vectors}

    def append(self, ids: Sequence[int], vectors: np.ndarray) -> None:
        """Add one slice's vectors and make them durable before the next slice."""
        vectors = np.ascontiguousarray(vectors, dtype="<f4")
        if self.dim and self.dim != vectors.shape[1]:
            self.remove()  # the model says otherwise than the file: start it again
        payload = np.asarray(ids, dtype="<i8").tobytes() + vectors.tobytes()
        block = BLOCK.pack(BLOCK_TAG, len(ids), zlib.crc32(payload)) + payload
        if not self.dim:
            header = {
                "model": getattr(self.embedder, "name", None),
                "embedding": embedding_info(self.embedder),
                "dim": int(vectors.shape[1]),
            }
            head = MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n"
            with open(self.path, "wb") as fh:
                fh.write(head + block)
                fh.flush()
                os.fsync(fh.fileno())
            fsync_dir(self.path.parent)
            self.dim, self._end = int(vectors.shape[1]), len(head) + len(block)
            return
        with open(self.path, "r+b") as fh:
            # Cut off a torn block a killed run left, or it would hide every later one.
            fh.truncate(self._end)
            fh.seek(self._end)
            fh.write(block)
            fh.flush()
            os.fsync(fh.fileno())
        self._end += len(block)

    def remove(self) -> None:
        with contextlib.suppress(FileNotFoundError):
            self.path.unlink()
        self.dim, self._end, self.vectors = 0, 0, {}


def embed_in_slices(
    embedder: Any,
    ids: Sequence[int],
    texts: Sequence[str],
    resumed: dict[int, np.ndarray],
    partial: PartialVectors,
    progress: Callable[[int], None] | None = None,
) -> np.ndarray:
    """Vectors for ``texts`` (in order): ``resumed`` ones as they are, the others
    embedded a slice at a time, each slice appended to ``partial`` when there is more
    than one (a kill of a one-slice job loses no more than that slice anyway)."""
    todo = [k for k, i in enumerate(ids) if i not in resumed]
    if progress is not None and resumed:
        progress(len(ids) - len(todo))
    # Even slices: a short last one would be embedded less efficiently (and ``auto``
    # sends a job under its BULK size to ONNX rather than to a GPU).
    count = max(1, math.ceil(len(todo) / SLICE_TEXTS))
    size = math.ceil(len(todo) / count) if todo else 0
    parts: dict[int, np.ndarray] = {}
    for start in range(0, len(todo), size or 1):
        where = todo[start : start + size]
        vecs = embedder.embed([texts[k] for k in where], progress)
        if count > 1:
            partial.append([ids[k] for k in where], vecs)
        parts.update(zip(where, vecs, strict=True))
    if not ids:
        return np.zeros((0, int(getattr(embedder, "dim", 0) or 0)), dtype=np.float32)
    rows = [resumed[i] if i in resumed else parts[k] for k, i in enumerate(ids)]
    return np.asarray(np.stack(rows), dtype=np.float32)
