"""The server's memory housekeeping (glibc): trimming returns freed pages to the system."""

from __future__ import annotations

import ctypes.util
import sys
import time

import pytest

from graphrag.serve import memory

glibc = pytest.mark.skipif(
    not sys.platform.startswith("linux") or ctypes.util.find_library("c") is None,
    reason="glibc malloc only",
)


def rss_mb() -> float:
    with open("/proc/self/status", encoding="ascii") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


@glibc
def test_trim_gives_freed_memory_back() -> None:
    blocks = [bytearray(100_000) for _ in range(2000)]  # ~200 MB in small-ish chunks
    del blocks[::2]  # holes: freed but not at the top of the heap
    before = rss_mb()
    assert memory.trim()
    assert rss_mb() < before - 50


@glibc
def test_the_trimmer_runs_until_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[float] = []
    monkeypatch.setattr(memory, "trim", lambda: calls.append(time.monotonic()) or True)
    trimmer = memory.Trimmer(seconds=0.01).start()
    deadline = time.monotonic() + 5
    while len(calls) < 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    trimmer.stop()
    assert len(calls) >= 3
    trimmer._thread.join(timeout=5)
    count = len(calls)
    time.sleep(0.05)
    assert len(calls) == count


@glibc
def test_limiting_arenas_is_accepted() -> None:
    assert memory.limit_arenas()
