"""The server's memory housekeeping (glibc): trimming returns freed pages to the system."""

from __future__ import annotations

import ctypes.util
import mmap
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from graphrag.serve import memory

ROOT = Path(__file__).resolve().parents[2]

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


# The scripts below call malloc directly and read their own resident MB.
LIBC = """
libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
def rss():
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) / 1024 for line in fh if line.startswith("VmRSS:"))
"""


# A thread frees one large mapped block (as ONNX Runtime and numpy do), then a burst of
# 200 KB blocks from its own arena; the MB still resident after ``trim`` is printed.
THREAD_BURST = f"""
import ctypes, ctypes.util, sys, threading
from graphrag.serve import memory
{LIBC}if sys.argv[1] == "server":
    assert memory.limit_arenas()
# else glibc's own settings: the thread has an arena of its own, with dynamic thresholds
def burst():
    big = libc.malloc(24 << 20)
    ctypes.memset(big, 1, 24 << 20)
    libc.free(big)
    blocks = [libc.malloc(200_000) for _ in range(200)]
    for block in blocks:
        ctypes.memset(block, 1, 200_000)
    for block in reversed(blocks):
        libc.free(block)
start = rss()
thread = threading.Thread(target=burst)
thread.start()
thread.join()
memory.trim()
print(rss() - start)
"""


@glibc
def test_a_threads_burst_is_given_back_with_the_servers_malloc_settings() -> None:
    def kept_mb(mode: str) -> float:
        run = subprocess.run(
            [sys.executable, "-c", THREAD_BURST, mode],
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
        )
        return float(run.stdout)

    if kept_mb("glibc") < 20:  # glibc's own thresholds keep the 40 MB at the arena's top
        pytest.skip("this glibc gives a thread arena's free top back by itself")
    assert kept_mb("server") < 5


# A burst of 300 KB blocks (an update's tensors and temporaries), each followed by a small
# block that outlives it (the new snapshot's objects), then the burst freed and trimmed:
# the MB still resident. ``argv[1]``: "update" (in ``mapped_medium_blocks``, as an update
# runs) or "request" (the server's thresholds, as outside one).
BURST_AROUND_KEPT = f"""
import contextlib, ctypes, ctypes.util, sys
from graphrag.serve import memory
{LIBC}assert memory.limit_arenas()
start = rss()
burst, kept = [], []
with memory.mapped_medium_blocks() if sys.argv[1] == "update" else contextlib.nullcontext():
    for _ in range(400):
        block = libc.malloc(300_000)
        ctypes.memset(block, 1, 300_000)
        burst.append(block)
        small = libc.malloc(2_000)
        ctypes.memset(small, 1, 2_000)
        kept.append(small)
for block in burst:
    libc.free(block)
memory.trim()
print(rss() - start)
"""


def _run(script: str, *args: str) -> str:
    run = subprocess.run(
        [sys.executable, "-c", script, *args],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    return run.stdout


def _run_mb(script: str, *args: str) -> float:
    return float(_run(script, *args))


@glibc
def test_an_updates_burst_of_medium_blocks_leaves_what_outlives_it_packed() -> None:
    kept = 400 * 2_000 / 2**20  # 0.76 MB really in use
    # From the heap, each small block is left alone on a page of its own (1.7 MB here).
    if _run_mb(BURST_AROUND_KEPT, "request") < kept + 0.6:
        pytest.skip("this malloc packs the kept blocks by itself")
    assert _run_mb(BURST_AROUND_KEPT, "update") < kept + 0.4


# MB of 300 KB blocks mapped on their own: in ``mapped_medium_blocks``, after it, and in it
# without ``limit_arenas`` (glibc's own thresholds left alone).
MAPPED_AFTER = """
import ctypes, ctypes.util, sys
from graphrag.serve import memory
libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()]
libc.mallinfo2.restype = Info
def mapped(n=20):
    before = libc.mallinfo2().hblkhd
    blocks = [libc.malloc(300_000) for _ in range(n)]
    return (libc.mallinfo2().hblkhd - before) / 2**20
limited = sys.argv[1] == "limited"
if limited:
    assert memory.limit_arenas()
with memory.mapped_medium_blocks() as changed:
    inside = mapped()
print(changed, inside, mapped())
"""


@glibc
def test_medium_blocks_are_mapped_only_in_an_update() -> None:
    changed, inside, after = _run(MAPPED_AFTER, "limited").split()
    assert changed == "True"
    assert float(inside) > 5  # 20 x 300 KB, each mapped
    assert float(after) == 0  # the server's 1 MB again: from the heap
    assert _run(MAPPED_AFTER, "glibc").split()[0] == "False"  # glibc's own left alone


def test_an_update_indexes_and_loads_with_medium_blocks_mapped(
    sample_vault: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from graphrag import VaultRAG
    from graphrag.config import load_settings
    from graphrag.serve.live import LiveIndex
    from tests.support.fakes import HashEmbedder
    from tests.support.files import write

    rag = VaultRAG.open(sample_vault, settings=load_settings(env={}), embedder=HashEmbedder())
    live = LiveIndex(rag)
    inside: list[bool] = []
    seen: list[str] = []

    @contextmanager
    def recording(threshold: int = memory.UPDATE_MMAP_BYTES) -> Iterator[bool]:
        inside.append(True)
        try:
            yield True
        finally:
            inside.pop()

    index, reload = rag.index, rag.reload
    monkeypatch.setattr(memory, "mapped_medium_blocks", recording)
    monkeypatch.setattr(
        rag, "index", lambda **kw: seen.append(f"index {bool(inside)}") or index(**kw)
    )
    monkeypatch.setattr(rag, "reload", lambda: seen.append(f"reload {bool(inside)}") or reload())
    write(sample_vault, "Home.md", "# Home\n\nrewritten\n")
    assert live.update().changed == 1
    assert seen == ["index True", "reload True"]
    assert not inside


def mapping_rss_kb(path: Path) -> int:
    """This process's resident KB of the mappings of ``path``."""
    total, inside = 0, False
    with open("/proc/self/smaps", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            fields = line.split()
            if fields and "-" in fields[0] and not fields[0].endswith(":"):
                inside = len(fields) >= 6 and fields[5] == str(path)
            elif inside and fields[0] == "Rss:":
                total += int(fields[1])
    return total


@glibc
@pytest.mark.parametrize("access", [mmap.ACCESS_READ, mmap.ACCESS_COPY])
def test_page_out_drops_a_model_files_pages_and_keeps_its_contents(
    tmp_path: Path, access: int
) -> None:
    path = tmp_path / "model.onnx.data"
    data = bytes(range(256)) * (64 * 1024)  # 16 MB
    path.write_bytes(data)
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=access) as mapped:
        assert mapped[:] == data  # every page touched
        assert mapping_rss_kb(path) > 15_000
        assert memory.page_out() >= len(data)
        assert mapping_rss_kb(path) < 1_000
        assert mapped[:] == data  # read back from the file


@glibc
def test_page_out_keeps_what_was_written_in_a_private_copy(tmp_path: Path) -> None:
    path = tmp_path / "model.onnx.data"
    path.write_bytes(b"\0" * (4 * 1024 * 1024))
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_COPY) as mapped:
        mapped[:5] = b"fresh"  # a written page: only offered to the kernel, never discarded
        memory.page_out()
        assert mapped[:5] == b"fresh"
    assert path.read_bytes()[:5] == b"\0" * 5


@glibc
def test_page_out_leaves_other_files_alone(tmp_path: Path) -> None:
    path = tmp_path / "vectors.npy"
    path.write_bytes(b"v" * (8 * 1024 * 1024))
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        assert mapped[-1:] == b"v" and mapped[:] == b"v" * len(mapped)
        before = mapping_rss_kb(path)
        memory.page_out()
        assert mapping_rss_kb(path) == before > 7_000


@glibc
def test_trim_pages_out_the_model_file(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[str, ...]] = []

    def page_out(suffixes: tuple[str, ...] = memory.PAGED_OUT) -> int:
        calls.append(suffixes)
        return 0

    monkeypatch.setattr(memory, "page_out", page_out)
    memory.trim()
    assert calls == [(".onnx.data",)]


@glibc
@pytest.mark.slow
def test_the_real_model_gives_the_same_vectors_after_its_pages_are_dropped() -> None:
    from indexer.onnx_embed import OnnxEmbedder
    from indexer.onnx_model import WEIGHTS

    onnx = OnnxEmbedder()  # exported once per test session (tests/conftest.py)
    texts = ["how do I embed a file", "Zettelkasten, canvas and graph view", "sync"]
    before = onnx.embed(texts)
    weights = onnx.folder() / WEIGHTS
    resident = mapping_rss_kb(weights)
    assert memory.page_out() > 0
    assert mapping_rss_kb(weights) < max(resident // 4, 1)
    assert (onnx.embed(texts) == before).all()


def test_a_frozen_heap_is_skipped_by_collections_until_thawed_after_an_update() -> None:
    import gc
    import weakref

    class Node:
        pass

    def cycle() -> weakref.ref:
        a, b = Node(), Node()
        a.other, b.other = b, a  # type: ignore[attr-defined]
        return weakref.ref(a)

    old = cycle()  # garbage already: the freeze's own collection frees it
    alive = Node()
    alive.other = alive  # type: ignore[attr-defined]
    kept = weakref.ref(alive)
    threshold = gc.get_threshold()
    try:
        memory.freeze_heap()
        assert old() is None and gc.get_freeze_count() > 0
        del alive  # now garbage, but frozen: a plain trim leaves it (and cannot scan it)
        memory.trim()
        assert kept() is not None
        memory.trim(thaw=True)  # after an update: the frozen heap is collected, then refrozen
        assert kept() is None and gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)


def test_a_frozen_heap_collects_its_young_generation_less_often() -> None:
    """Once the heap is frozen, the youngest generation waits for ``GC_THRESHOLD``
    allocations (Python's default is 700); the older thresholds stay as they were."""
    import gc

    threshold = gc.get_threshold()
    try:
        gc.set_threshold(700, 11, 12)
        memory.freeze_heap()
        assert gc.get_threshold() == (memory.GC_THRESHOLD, 11, 12)
        gc.collect()
        before = gc.get_stats()[0]["collections"]
        kept = [[] for _ in range(5_000)]  # seven young collections at 700
        assert gc.get_stats()[0]["collections"] == before
        del kept
    finally:
        gc.unfreeze()
        gc.set_threshold(*threshold)
