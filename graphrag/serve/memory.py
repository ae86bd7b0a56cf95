"""Keep a long-running server's resident memory flat (glibc only; a no-op elsewhere).

A server answers from a thread pool, and every thread that allocates gets its own
glibc malloc arena; memory freed there (a request's arrays, an update's parse and
embedding buffers, an old snapshot) stays mapped in the arena, so resident memory
climbs with each burst of work even when nothing is kept. Two arenas for the
process, and handing freed pages back to the system every ``TRIM_SECONDS``, keep
it at what is actually in use (docs/architecture.md, serving; the effect is in
benchmarks/RESULTS.md, "Server memory").
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import logging
import threading

log = logging.getLogger(__name__)

M_ARENA_MAX = -8  # glibc's mallopt parameter
ARENAS = 2
TRIM_SECONDS = 30.0


def _libc() -> ctypes.CDLL | None:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        libc = ctypes.CDLL(name)
    except OSError:
        return None
    return libc if hasattr(libc, "malloc_trim") and hasattr(libc, "mallopt") else None


def limit_arenas(arenas: int = ARENAS) -> bool:
    """At most ``arenas`` malloc arenas; call before the server starts its threads."""
    libc = _libc()
    return bool(libc is not None and libc.mallopt(M_ARENA_MAX, arenas))


def trim() -> bool:
    """Collect garbage, then return free heap pages to the system."""
    gc.collect()
    libc = _libc()
    return bool(libc is not None and libc.malloc_trim(0))


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
