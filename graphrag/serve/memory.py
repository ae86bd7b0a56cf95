"""Keep a long-running server's resident memory flat (glibc only; a no-op elsewhere).

A server answers from a thread pool, and every thread that allocates gets its own
glibc malloc arena; memory freed there (a request's arrays, an update's parse and
embedding buffers, an old snapshot) stays mapped in the arena, so resident memory
climbs with each burst of work even when nothing is kept. One arena for the process
(``ARENAS``), fixed trim and mmap thresholds (glibc's dynamic ones let a thread's
arena keep tens of MB free at its top, which trimming never reaches), and handing
freed pages back to the system every ``TRIM_SECONDS`` keep it at what is actually in
use (docs/architecture.md, serving; the effect is in benchmarks/RESULTS.md, "Server
memory").

The model's weights are a memory-mapped file (``model.onnx.data``), and a question
reads the rows of its token table for the words it holds: the file's resident pages
grow with the vocabulary the server has seen (up to ~45 MB for MiniLM), a slow climb
over hours. The trimmer also drops those pages (``page_out``: the file's contents, read
back from the page cache when next needed).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

log = logging.getLogger(__name__)

# glibc's mallopt parameters
M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
M_ARENA_MAX = -8
# One arena: a burst in one thread reuses what the others freed instead of growing an
# arena of its own, and it cost no latency a sequential client saw (obsidian-help, p50
# 8.7-9.2 ms with one, 9.5-9.7 with two at 2 requests a second, 7.3 and 7.0 at 8:
# benchmarks/RESULTS.md, "Server memory over an hour, session 8"). The GIL already keeps
# most of Python's allocations from running at once.
ARENAS = 1
# Fixed, not glibc's dynamic thresholds: freeing one large mmap'd block (ONNX Runtime's
# buffers, a numpy array) raises the trim threshold to twice its size (up to 64 MB), and
# a thread's arena then keeps that much free memory at its top resident, which
# ``malloc_trim`` never gives back (it trims only the main heap's top). Blocks over
# ``MMAP_BYTES`` are mapped on their own and unmapped when freed.
TRIM_BYTES = 1 << 20
MMAP_BYTES = 1 << 20
# While an update runs (``mapped_medium_blocks``), 128 KB (glibc's own starting value):
# ONNX Runtime's tensors for an update's chunks and its numpy temporaries (128 KB-1 MB)
# pushed the one heap's top up by 6-21 MB at some updates (14 MB for one long chunk), and
# small blocks that outlive the update (the new snapshot's, caches') were left up there,
# each holding a page of its own once the rest was freed: resident memory stepped up
# with no more in use (benchmarks/RESULTS.md, "Server memory over an hour, session 9").
# Not all the time: on obsidian-hub a question's arrays are of that size too, and mapping
# each one afresh cost ~25% more CPU a question.
UPDATE_MMAP_BYTES = 128 << 10
TRIM_SECONDS = 30.0
MADV_DONTNEED = 4
MADV_PAGEOUT = 21  # Linux 5.4+; older kernels refuse it (EINVAL) and nothing happens
# Mapped files whose pages are given back (the ONNX export's weights).
PAGED_OUT = (".onnx.data",)
# Allocations between young collections once the heap is frozen (``freeze_heap``).
GC_THRESHOLD = 10_000


def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        libc = ctypes.CDLL(name)
    except OSError:
        return None
    return libc if hasattr(libc, "malloc_trim") and hasattr(libc, "mallopt") else None


def limit_arenas(arenas: int | None = None) -> bool:
    """At most ``arenas`` (``ARENAS``) malloc arenas, and fixed trim and mmap thresholds
    (see ``TRIM_BYTES``); call before the server starts its threads: a thread that has
    allocated before keeps an arena of its own, beyond the limit."""
    global _limited
    libc = _libc()
    if libc is None:
        return False
    done = [
        libc.mallopt(M_ARENA_MAX, ARENAS if arenas is None else arenas),
        libc.mallopt(M_TRIM_THRESHOLD, TRIM_BYTES),
        libc.mallopt(M_MMAP_THRESHOLD, MMAP_BYTES),
    ]
    _limited = all(done)
    return _limited


_limited = False  # ``limit_arenas`` set the server's thresholds


@contextmanager
def mapped_medium_blocks(threshold: int = UPDATE_MMAP_BYTES) -> Iterator[bool]:
    """While in the block, malloc maps blocks over ``threshold`` on their own (the
    process-wide setting: other threads' blocks too), then ``MMAP_BYTES`` again; for an
    update (see ``UPDATE_MMAP_BYTES``). Yields whether it did: only where
    ``limit_arenas`` set the server's thresholds, so a process that left glibc's own
    alone keeps them."""
    libc = _libc() if _limited else None
    changed = bool(libc is not None and libc.mallopt(M_MMAP_THRESHOLD, threshold))
    try:
        yield changed
    finally:
        if changed:
            assert libc is not None
            libc.mallopt(M_MMAP_THRESHOLD, MMAP_BYTES)


def freeze_heap(threshold: int = GC_THRESHOLD) -> None:
    """Collect, then move every object alive into the permanent generation
    (``gc.freeze``): the served snapshot's graph, arrays and caches are no longer
    traversed by each full collection, which on obsidian-hub took ~100 ms with the GIL
    held, in the tail of ``/query`` (benchmarks/RESULTS.md, "The tail on obsidian-hub").
    Called once the start-up preload is done; ``trim(thaw=True)`` after a new snapshot
    replaced the old one, whose cycles the frozen heap would otherwise keep.

    The youngest generation is then collected every ``threshold`` allocations, not
    Python's 700 (the older two thresholds unchanged): nearly everything a question
    makes is freed by reference counting, yet at 700 obsidian-hub's questions set off
    ~4 young collections each and, every ~30 questions, a full one landing on whichever
    question was running (benchmarks/RESULTS.md, "The tail on obsidian-hub, session 8")."""
    gc.collect()
    gc.freeze()
    _gen0, *older = gc.get_threshold()
    gc.set_threshold(threshold, *older)


def trim(thaw: bool = False) -> bool:
    """Collect garbage, then return free heap pages (and the model file's) to the system.
    With ``thaw`` (after an update) the frozen heap is collected too, then frozen again."""
    if thaw and gc.get_freeze_count():
        gc.unfreeze()
        gc.collect()
        gc.freeze()
    else:
        gc.collect()
    libc = _libc()
    if libc is None:
        return False
    page_out()
    return bool(libc.malloc_trim(0))


def page_out(suffixes: tuple[str, ...] = PAGED_OUT, smaps: str = "/proc/self/smaps") -> int:
    """Drop this process's resident pages of mapped files whose names end with
    ``suffixes`` (not code); the bytes dropped or asked for (0 where unsupported).

    A mapping none of whose pages were written (no ``Private_Dirty``, no ``Anonymous``)
    holds only the file's contents: ``MADV_DONTNEED`` unmaps them from this process and
    the next touch reads them again from the page cache, whoever else maps the file.
    Anything else is only offered to the kernel (``MADV_PAGEOUT``, which keeps written
    pages' contents and skips pages other processes map).
    """
    libc = _libc()
    if libc is None or not hasattr(libc, "madvise"):
        return 0
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    try:
        with open(smaps, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
    except OSError:
        return 0
    done = 0
    for start, end, written in _file_mappings(text, suffixes):
        advice = MADV_PAGEOUT if written else MADV_DONTNEED
        if libc.madvise(start, end - start, advice) == 0:
            done += end - start
    return done


def _file_mappings(smaps: str, suffixes: tuple[str, ...]) -> list[tuple[int, int, bool]]:
    """(start, end, any page written) of the non-executable mappings of the files."""
    out: list[tuple[int, int, bool]] = []
    current: list[int] | None = None
    written = False
    for line in smaps.splitlines():
        fields = line.split(maxsplit=5)
        if fields and "-" in fields[0] and not fields[0].endswith(":"):  # a mapping's header
            if current is not None:
                out.append((current[0], current[1], written))
            current, written = None, False
            if len(fields) == 6 and "x" not in fields[1] and fields[5].endswith(suffixes):
                current = [int(x, 16) for x in fields[0].split("-")]
        elif current is not None and fields[:1] in (["Private_Dirty:"], ["Anonymous:"]):
            written = written or int(fields[1]) > 0
    if current is not None:
        out.append((current[0], current[1], written))
    return out


class Trimmer:
    """A daemon thread calling ``trim`` every ``seconds`` until ``stop``."""

    def __init__(self, seconds: float = TRIM_SECONDS) -> None:
        self.seconds = seconds
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="vault-graphrag-trim", daemon=True)

    def start(self) -> Trimmer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self.seconds):
            try:
                trim()
            except Exception:  # never take the server down for this
                log.debug("malloc_trim failed", exc_info=True)
