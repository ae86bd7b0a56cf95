"""The chunk vectors one question is scored against, in corpus row order.

Two layouts, chosen by size when a ``Corpus`` is built:

* ``ExactVectors``: a float32 matrix, scanned whole. Below ``HALF_ROWS`` rows
  (10k notes are ~27k rows) the scan costs 1-3 ms, so nothing else is worth it.
* ``HalfVectors``: from ``HALF_ROWS`` rows up, where ``half_scan_is_faster`` measured
  a float16 scan faster than a float32 one on this machine. A scan is memory-bound: 270k rows
  x 384 float32 is 415 MB read per question (27-40 ms on one thread of this
  machine). The scan reads a float16 copy instead (half the bytes: 18-20 ms on
  one thread, ~11 ms on two), then the best ``RESCORE_ROWS`` rows are scored
  again in float32 from the vectors FAISS already holds, so every cosine near
  the top of a ranking is exact; the others are off by at most ~1e-4 (float16
  keeps 11 bits). The float16 copy (207 MB at 270k rows) replaces the float32
  copy in corpus order (415 MB): the exact vectors are FAISS's own, looked up
  through a row -> FAISS-row table.

Scans run on the calling thread (``inner_products``; ``one_torch_thread`` for
float16): on a busy 2-core machine a thread pool spinning while it waits for
work cost more than the second core gave. The exception is a float16 scan of
``SPLIT_ROWS`` rows or more, long enough that a helper thread scanning half of
it pays off even under load.

Below ``FAISS_ROWS`` rows a float32 scan is numpy's own (``einsum``), so a question
from the shell never imports FAISS (40-100 ms, more than the scan and the file's
read together); from there up FAISS's kernel, 25% faster at 270k rows, whose import
is small beside reading that many vectors.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from indexer.onnx_model import cpu_name as _cpu_name

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

FAISS_ROWS = 65_536  # a float32 scan of this many rows or more uses FAISS's kernel
HALF_ROWS = 100_000  # rows from which the scan reads float16 (if torch is there)
SPLIT_ROWS = 65_536  # a float16 scan of this many rows or more runs on two threads
RESCORE_ROWS = 2048  # best rows of a float16 scan scored again in float32
_BLOCK = 65_536  # rows copied at a time while building or summing (bounded memory)

Blocks = Iterable[tuple[int, int]]


class ChunkVectors(Protocol):
    rows: int
    dim: int

    @property
    def matrix(self) -> np.ndarray: ...

    def scores(self, query: np.ndarray) -> np.ndarray: ...

    def subset_scores(
        self, query: np.ndarray, blocks: Blocks, scattered: np.ndarray | None
    ) -> np.ndarray: ...

    def vector_sum(self, blocks: Blocks, scattered: np.ndarray | None) -> np.ndarray: ...

    def nbytes(self) -> int: ...


def inner_products(
    matrix: np.ndarray, query_vec: np.ndarray, whole_rows: int | None = None
) -> np.ndarray:
    """``matrix @ query_vec`` for one query, computed on the calling thread.

    numpy's ``@`` hands a matrix-vector product of more than ~9k elements to
    OpenBLAS's thread pool, whose threads then spin waiting for more work: on a
    busy 2-core machine that made the 10k-note scan 15 ms instead of 2 and slowed
    what followed it, the token counting above all. ``einsum`` and FAISS's SIMD
    kernel both run on this thread; FAISS's from ``FAISS_ROWS`` rows of
    ``whole_rows`` (the matrix this one is a part of, by default itself), so a row
    scores the same bits in a part as in a scan of the whole.
    """
    q = np.ascontiguousarray(query_vec, dtype=np.float32).reshape(-1)
    rows = len(matrix)
    out = np.empty(rows, dtype=np.float32)
    if rows == 0:
        return out
    if matrix.ndim != 2 or matrix.shape[1] != len(q):
        raise ValueError(f"a {len(q)}-dimension query for {matrix.shape[-1]}-dimension vectors")
    m = matrix
    if not (m.flags.c_contiguous and m.dtype == np.float32):
        m = np.ascontiguousarray(m, dtype=np.float32)
    if (rows if whole_rows is None else whole_rows) < FAISS_ROWS:
        return np.einsum("ij,j->i", m, q, out=out)
    import faiss

    faiss.fvec_inner_products_ny(
        faiss.swig_ptr(out), faiss.swig_ptr(q), faiss.swig_ptr(m), len(q), rows
    )
    return out


class ExactVectors:
    """A float32 matrix in row order."""

    def __init__(self, matrix: np.ndarray) -> None:
        self.matrix = matrix
        self.rows = len(matrix)
        self.dim = int(matrix.shape[1]) if matrix.ndim == 2 else 0

    def scores(self, query: np.ndarray) -> np.ndarray:
        return inner_products(self.matrix, query)

    def subset_scores(
        self, query: np.ndarray, blocks: Blocks, scattered: np.ndarray | None
    ) -> np.ndarray:
        out = np.full(self.rows, -np.inf, dtype=np.float32)
        for lo, hi in blocks:
            out[lo:hi] = inner_products(self.matrix[lo:hi], query, self.rows)
        if scattered is not None and len(scattered):
            out[scattered] = inner_products(self.matrix[scattered], query, self.rows)
        return out

    def vector_sum(self, blocks: Blocks, scattered: np.ndarray | None) -> np.ndarray:
        total = sum((self.matrix[lo:hi].sum(axis=0) for lo, hi in blocks), np.zeros(self.dim))
        if scattered is not None and len(scattered):
            total = total + self.matrix[scattered].sum(axis=0)
        return total

    def nbytes(self) -> int:
        return int(self.matrix.nbytes)


class HalfVectors:
    """A float16 copy for scans; exact float32 rows from FAISS's storage.

    ``exact`` is FAISS's flat storage (a view: ``owner``, the ``VectorIndex``, keeps
    it alive); ``positions[row]`` is the row's line in it, -1 for a chunk whose
    vector is missing (a zero row: it never matches).
    """

    def __init__(self, half: Any, exact: np.ndarray, positions: np.ndarray, owner: object) -> None:
        self.half = half  # torch.Tensor (rows, dim), float16
        self.rows, self.dim = int(half.shape[0]), int(half.shape[1])
        self._exact = exact
        self._positions = positions
        self._owner = owner
        self._matrix: np.ndarray | None = None
        self._lock = threading.Lock()

    @classmethod
    def build(cls, exact: np.ndarray, positions: np.ndarray, owner: object) -> HalfVectors:
        import torch

        rows, dim = len(positions), int(exact.shape[1])
        half = torch.empty((rows, dim), dtype=torch.float16)
        out = cls(half, exact, positions, owner)
        for lo in range(0, rows, _BLOCK):
            hi = min(lo + _BLOCK, rows)
            half[lo:hi] = torch.from_numpy(out.exact_rows(np.arange(lo, hi)))
        return out

    def exact_rows(self, rows: np.ndarray) -> np.ndarray:
        """The float32 vectors of ``rows`` (a copy)."""
        pos = self._positions[rows]
        out = self._exact[np.maximum(pos, 0)]
        missing = pos < 0
        if missing.any():
            out[missing] = 0.0
        return out

    @property
    def matrix(self) -> np.ndarray:
        """The float32 matrix in row order, built on first use and kept (415 MB at 270k
        rows): for batch work (evaluation, baselines), never for a single question."""
        if self._matrix is None:
            with self._lock:
                if self._matrix is None:
                    matrix = np.empty((self.rows, self.dim), dtype=np.float32)
                    for lo in range(0, self.rows, _BLOCK):
                        hi = min(lo + _BLOCK, self.rows)
                        matrix[lo:hi] = self.exact_rows(np.arange(lo, hi))
                    self._matrix = matrix
        return self._matrix

    def _scan(self, block: Any, query: np.ndarray) -> np.ndarray:
        import torch

        q = torch.from_numpy(np.ascontiguousarray(query, dtype=np.float32).reshape(-1))
        if q.shape[0] != self.dim:
            raise ValueError(f"a {q.shape[0]}-dimension query for {self.dim}-dimension vectors")
        q = q.to(torch.float16)
        rows = int(block.shape[0])
        with one_torch_thread():
            if rows < SPLIT_ROWS:
                return torch.mv(block, q).to(torch.float32).numpy()
            # Two halves, one on a helper thread (torch releases the GIL): 20 -> 11 ms
            # at 270k rows on an idle machine, 39 -> 32 ms with four busy processes.
            out = torch.empty(rows, dtype=torch.float16)
            mid = rows // 2
            other = _helper().submit(torch.mv, block[mid:], q, out=out[mid:])
            torch.mv(block[:mid], q, out=out[:mid])
            other.result()
            return out.to(torch.float32).numpy()

    def _rescore(
        self, scores: np.ndarray, query: np.ndarray, among: np.ndarray | None = None
    ) -> np.ndarray:
        """Score the best ``RESCORE_ROWS`` rows (of ``among``, if given) again in
        float32, in place."""
        pool = scores if among is None else scores[among]
        n = min(RESCORE_ROWS, len(pool))
        if n == 0:
            return scores
        top = np.argpartition(pool, len(pool) - n)[len(pool) - n :]
        if among is not None:
            top = among[top]
        scores[top] = inner_products(self.exact_rows(top), query, self.rows)
        return scores

    def scores(self, query: np.ndarray) -> np.ndarray:
        if self.rows == 0:
            return np.zeros(0, dtype=np.float32)
        return self._rescore(self._scan(self.half, query), query)

    def subset_scores(
        self, query: np.ndarray, blocks: Blocks, scattered: np.ndarray | None
    ) -> np.ndarray:
        out = np.full(self.rows, -np.inf, dtype=np.float32)
        scored = []
        for lo, hi in blocks:
            if hi > lo:
                out[lo:hi] = self._scan(self.half[lo:hi], query)
                scored.append(np.arange(lo, hi))
        if scattered is not None and len(scattered):
            # Exact at once: gathering rows costs less than copying them to scan in float16.
            rows = np.asarray(scattered, dtype=np.int64)
            out[rows] = inner_products(self.exact_rows(rows), query, self.rows)
            scored.append(rows)
        # Partition only the rows scored: a partition over many equal -inf is slow.
        among = np.unique(np.concatenate(scored)) if scored else np.zeros(0, dtype=np.int64)
        return self._rescore(out, query, among)

    def vector_sum(self, blocks: Blocks, scattered: np.ndarray | None) -> np.ndarray:
        total = np.zeros(self.dim)
        parts = [np.arange(lo, hi) for lo, hi in blocks]
        if scattered is not None:
            parts.append(np.asarray(scattered, dtype=np.int64))
        for rows in parts:
            for lo in range(0, len(rows), _BLOCK):
                total = total + self.exact_rows(rows[lo : lo + _BLOCK]).sum(axis=0)
        return total

    def nbytes(self) -> int:
        """Memory of this layout's own copy (FAISS's vectors are the snapshot's)."""
        extra = self._matrix.nbytes if self._matrix is not None else 0
        return int(self.half.element_size() * self.half.nelement()) + self._positions.nbytes + extra


def half_precision_available() -> bool:
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


_HALF_FASTER: bool | None = None
_PROBE_LOCK = threading.Lock()
PROBE_ROWS = 100_000  # HALF_ROWS: the smallest corpus the choice is made for
PROBE_PAIRS = 7


def half_scan_is_faster() -> bool:
    """Whether this machine scans float16 faster than float32 (by a tenth at least).

    Half the bytes read pays only where the CPU converts float16 cheaply: on an AVX2
    machine a float16 scan of 100k rows took 38.9 ms against 33.8 ms in float32, and
    the copy costs torch (hundreds of MB) for nothing; on this AVX-512 machine float16
    won. Measured once per machine (``_half_ratio``), remembered for the process.
    """
    global _HALF_FASTER
    with _PROBE_LOCK:
        if _HALF_FASTER is None:
            _HALF_FASTER = half_precision_available() and _half_ratio() < 0.9
        return _HALF_FASTER


def _half_ratio() -> float:
    """float16 scan time over float32 scan time on this machine, measured once and kept
    in the user's cache folder under the CPU's name and torch's version."""
    import json
    import os
    import platform

    import torch

    from indexer.onnx_embed import default_cache_dir

    key = f"{_cpu_name() or platform.machine()} | torch {torch.__version__}"
    path = default_cache_dir().parent / "half-scan.json"
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
        if saved.get("key") == key:
            return float(saved["ratio"])
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        pass
    ratio = _measure_half()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_text(json.dumps({"key": key, "ratio": round(ratio, 3)}), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:  # an unwritable cache: measured again by the next process
        pass
    return ratio


def _measure_half(rows: int = PROBE_ROWS, dim: int = 384) -> float:
    """The median, over ``PROBE_PAIRS`` interleaved pairs, of a float16 scan's time over
    a float32 one's, on ``rows`` random rows scanned as ``HalfVectors`` and
    ``ExactVectors`` scan them (interleaved: a busy machine slows both alike)."""
    import statistics
    import time

    matrix = np.random.default_rng(0).standard_normal((rows, dim), dtype=np.float32)
    half = HalfVectors.build(matrix, np.arange(rows), owner=None)
    query = matrix[0]

    def seconds(scan: Any) -> float:
        start = time.perf_counter()
        scan()
        return time.perf_counter() - start

    ratios = []
    for _ in range(PROBE_PAIRS):
        t16 = seconds(lambda: half._scan(half.half, query))
        t32 = seconds(lambda: inner_products(matrix, query))
        ratios.append(t16 / max(t32, 1e-9))
    return statistics.median(ratios)


# -- threads ------------------------------------------------------------------------------
_TORCH_ONE = threading.Lock()
_HELPER: ThreadPoolExecutor | None = None
_HELPER_LOCK = threading.Lock()


def _helper() -> ThreadPoolExecutor:
    """One thread that scans the second half of a large float16 scan. Unlike torch's or
    OpenBLAS's pools it sleeps, not spins, between questions: on a busy 2-core machine
    a spinning pool slowed everything after the scan."""
    global _HELPER
    with _HELPER_LOCK:
        if _HELPER is None:
            from concurrent.futures import ThreadPoolExecutor

            _HELPER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="graphrag-scan")
        return _HELPER


@contextmanager
def one_torch_thread() -> Iterator[None]:
    """Run torch on one thread: for one question (an embedding, a float16 scan) the
    hand-offs between threads cost more than they save, and on a busy 2-core machine
    two threads made a question's embedding 30x slower (8 ms -> 240 ms). The setting
    is global, so these calls take turns; an index build running meanwhile is slowed
    for those few milliseconds at most."""
    torch = sys.modules.get("torch")
    if torch is None:  # a model without torch (tests' fakes): nothing to tune
        yield
        return
    with _TORCH_ONE:
        previous = torch.get_num_threads()
        if previous != 1:
            torch.set_num_threads(1)
        try:
            yield
        finally:
            if previous != 1:
                torch.set_num_threads(previous)
