"""``vault-graphrag serve`` with a sampler thread: what a soak's memory is made of.

    SOAK_PROBE_OUT=probe.jsonl [SOAK_PROBE_TRACE=3] python benchmarks/soak_probe.py serve VAULT ...

Run by ``bench_soak.py --probe FILE`` in place of ``python -m graphrag`` (the benchmark's
server only; nothing here is in the package). Every ``SOAK_PROBE_SECONDS`` (60) it appends
one JSON line: resident MB by mapping (heap, anonymous, files), glibc's ``mallinfo2``
(bytes in use and free in malloc's arenas, mmap'd blocks) and each arena's own
(``malloc_info``), Python's allocated blocks,
every ``SizedLRU`` alive (limit, held, entries) and the token counts' ``CountCache``, the
garbage collector's counts, frozen objects and ``gc.garbage``, and CPython's table of
interned strings (``benchmarks/interned.py``). With ``SOAK_PROBE_TRACE=N``
(frames) tracemalloc runs from the start, and from minute ``SOAK_PROBE_BASE`` (10) each
sample also lists the allocation sites that grew most since then.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import json
import os
import re
import sys
import threading
import time
import tracemalloc
import weakref
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TRACE = int(os.environ.get("SOAK_PROBE_TRACE", "0"))
if TRACE:
    tracemalloc.start(TRACE)

from benchmarks.bench_soak import smaps_by_mapping  # noqa: E402
from benchmarks.interned import interned_table  # noqa: E402
from graphrag.serve import memory  # noqa: E402
from indexer import count_cache, lru  # noqa: E402

_caches: weakref.WeakSet[lru.SizedLRU] = weakref.WeakSet()
_counts: weakref.WeakSet[count_cache.CountCache] = weakref.WeakSet()
_init = lru.SizedLRU.__init__
_counts_init = count_cache.CountCache.__init__


def _tracked_init(self: lru.SizedLRU, limit: int) -> None:
    _init(self, limit)
    _caches.add(self)


def _tracked_counts_init(self: count_cache.CountCache, slots: int) -> None:
    _counts_init(self, slots)
    _counts.add(self)


lru.SizedLRU.__init__ = _tracked_init  # type: ignore[method-assign]
count_cache.CountCache.__init__ = _tracked_counts_init  # type: ignore[method-assign]


class MallInfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


def _mallinfo() -> dict[str, float]:
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    if not hasattr(libc, "mallinfo2"):
        return {}
    libc.mallinfo2.restype = MallInfo2
    info = libc.mallinfo2()
    mb = lambda n: round(n / 2**20, 2)  # noqa: E731
    return {
        "arena_mb": mb(info.arena),  # sbrk'd + other arenas' bytes
        "in_use_mb": mb(info.uordblks),
        "free_mb": mb(info.fordblks),
        "mmap_mb": mb(info.hblkhd),
        "free_chunks": info.ordblks,
    }


ARENA_FIELDS = re.compile(r'<(total|system) type="(fast|rest|current|max)"[^>]*size="(\d+)"')


def malloc_arenas() -> list[dict[str, float]]:
    """Each glibc malloc arena (the main one first), from ``malloc_info``: MB taken from
    the system now and at most, and free in its bins; [] where there is no ``malloc_info``.
    ``mallinfo2`` sums the arenas, which hides how many there are and which one grew."""
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    if not hasattr(libc, "malloc_info") or not hasattr(libc, "open_memstream"):
        return []
    buf, size = ctypes.c_void_p(), ctypes.c_size_t()
    libc.open_memstream.restype = ctypes.c_void_p
    libc.malloc_info.argtypes = [ctypes.c_int, ctypes.c_void_p]
    libc.fclose.argtypes = [ctypes.c_void_p]
    libc.free.argtypes = [ctypes.c_void_p]
    stream = libc.open_memstream(ctypes.byref(buf), ctypes.byref(size))
    if not stream:
        return []
    libc.malloc_info(0, stream)
    libc.fclose(stream)
    text = ctypes.string_at(buf, size.value).decode("ascii", "replace")
    libc.free(buf)
    out = []
    # Each arena's figures come after its own <sizes> list, before "</heap>".
    for heap in re.findall(r'<heap nr="\d+">(.*?)</heap>', text, re.S):
        got = {f"{kind}_{what}": int(n) for kind, what, n in ARENA_FIELDS.findall(heap)}
        out.append(
            {
                "system_mb": round(got.get("system_current", 0) / 2**20, 2),
                "max_mb": round(got.get("system_max", 0) / 2**20, 2),
                "free_mb": round((got.get("total_fast", 0) + got.get("total_rest", 0)) / 2**20, 2),
            }
        )
    return out


def _caches_now() -> list[dict[str, object]]:
    out = []
    for cache in list(_caches):
        out.append(
            {
                "type": type(cache).__name__,
                "limit": cache.limit,
                "used": cache.used,
                "n": len(cache),
            }
        )
    # The token counts' fixed tables: "used" is their bytes, the same from the start.
    for counts in list(_counts):
        out.append(
            {"type": "CountCache", "limit": counts.slots, "used": counts.nbytes, "n": len(counts)}
        )
    return sorted(out, key=lambda c: -int(c["used"]))  # type: ignore[call-overload]


def _sample(start: float, base: tracemalloc.Snapshot | None) -> dict[str, object]:
    where = smaps_by_mapping(os.getpid())
    row: dict[str, object] = {
        "minutes": round((time.monotonic() - start) / 60, 2),
        "smaps": {k: v for k, v in where.items() if k.startswith("[")},
        "smaps_files_mb": round(sum(v for k, v in where.items() if not k.startswith("[")), 1),
        "malloc": _mallinfo(),
        "arenas": malloc_arenas(),
        "py_blocks": sys.getallocatedblocks(),
        "gc_count": gc.get_count(),
        "gc_frozen": gc.get_freeze_count(),
        "gc_garbage": len(gc.garbage),
        "threads": threading.active_count(),
        "caches": _caches_now(),
        "interned": interned_table(),
    }
    if TRACE:
        current, peak = tracemalloc.get_traced_memory()
        row["traced_mb"] = round(current / 2**20, 2)
        if base is not None:
            snap = tracemalloc.take_snapshot().filter_traces(
                [tracemalloc.Filter(False, tracemalloc.__file__)]
            )
            diff = snap.compare_to(base, "traceback")
            row["grew"] = [
                {
                    "kb": round(d.size_diff / 1024, 1),
                    "count": d.count_diff,
                    "where": [f"{f.filename.split('/')[-2:]}:{f.lineno}" for f in d.traceback],
                }
                for d in diff[:25]
            ]
    return row


def _probe(out: Path, every: float, base_minute: float) -> None:
    start = time.monotonic()
    base: tracemalloc.Snapshot | None = None
    while True:
        time.sleep(every)
        try:
            if TRACE and base is None and time.monotonic() - start >= base_minute * 60:
                base = tracemalloc.take_snapshot().filter_traces(
                    [tracemalloc.Filter(False, tracemalloc.__file__)]
                )
            row = _sample(start, base)
        except Exception as exc:  # a probe must not stop the server
            row = {"error": repr(exc)}
        with open(out, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(row) + "\n")


def main() -> None:
    out = Path(os.environ.get("SOAK_PROBE_OUT", "soak-probe.jsonl"))
    every = float(os.environ.get("SOAK_PROBE_SECONDS", "60"))
    base_minute = float(os.environ.get("SOAK_PROBE_BASE", "10"))
    # Before the sampler's thread exists: a thread that allocates before the server calls
    # ``limit_arenas`` gets a malloc arena of its own, beyond the limit (glibc fixes the
    # limit only when a later thread needs an arena), and the server's threads then share
    # that one too: with ARENAS = 1 the probed server had two (session 8).
    memory.limit_arenas()
    threading.Thread(target=_probe, args=(out, every, base_minute), daemon=True).start()
    from graphrag.cli import main as cli

    sys.argv[0] = "vault-graphrag"
    cli()


if __name__ == "__main__":
    main()
