"""The chunk vectors of ``vectors.faiss`` read with numpy alone, without importing FAISS.

The indexer writes an ``IndexIDMap2`` over an ``IndexFlatIP`` (``indexer/vectors.py``):
FAISS's serialisation of that is a header per index, the vectors as one float32 block
and the ids as one int64 block. A command run from the shell that only scores one
question against them need not pay for importing FAISS (40-100 ms on this machine,
more than reading the file) to get those two arrays. Anything other than that exact
layout (another index type, a different FAISS format, a truncated file) gives None,
and the caller loads the file through FAISS as before. See docs/architecture.md
("The index on disk").
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

# The four-character codes FAISS writes first for each index it serialises.
_ID_MAPS = (b"IxM2", b"IxMp")  # IndexIDMap2, IndexIDMap
_FLATS = (b"IxFI", b"IxF2")  # IndexFlatIP, IndexFlatL2
# d (int32), ntotal (int64), two unused int64, is_trained (1 byte), metric (int32)
_HEADER = struct.Struct("<iqqq?i")
_SIZE = struct.Struct("<Q")


def read_flat(path: Path) -> tuple[np.ndarray, np.ndarray] | None:
    """(ids int64, vectors float32 of shape (n, d)) of an ID-mapped flat FAISS index
    file, or None when the file is not exactly that layout."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    return parse_flat(data)


def parse_flat(data: bytes) -> tuple[np.ndarray, np.ndarray] | None:
    """``read_flat`` on the file's bytes."""
    at = 0

    def header(codes: tuple[bytes, ...]) -> tuple[int, int] | None:
        nonlocal at
        if data[at : at + 4] not in codes or len(data) < at + 4 + _HEADER.size:
            return None
        d, ntotal, _, _, _, metric = _HEADER.unpack_from(data, at + 4)
        at += 4 + _HEADER.size
        if metric > 1:  # metrics past L2 and inner product carry an argument
            return None
        return d, ntotal

    def block(dtype: type[np.generic], count: int) -> np.ndarray | None:
        nonlocal at
        if len(data) < at + _SIZE.size:
            return None
        (size,) = _SIZE.unpack_from(data, at)
        at += _SIZE.size
        end = at + size * np.dtype(dtype).itemsize
        if size != count or end > len(data):
            return None
        out = np.frombuffer(data, dtype=dtype, count=size, offset=at).copy()
        at = end
        return out

    outer = header(_ID_MAPS)
    inner = header(_FLATS) if outer else None
    if outer is None or inner is None or outer != inner or min(outer) < 0:
        return None
    d, n = outer
    vectors = block(np.float32, n * d)
    ids = block(np.int64, n) if vectors is not None else None
    if vectors is None or ids is None or at != len(data):
        return None
    return ids, vectors.reshape(n, d)
