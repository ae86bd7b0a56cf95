"""How many glibc malloc arenas a server's threads share (``memory.limit_arenas``).

Counted in a fresh interpreter (the limit is process-wide and the test process's own
threads have arenas already) by ``malloc_info``, while four threads that allocated are
alive: a thread's arena goes back to a free list when it ends, and the next thread takes
it, so threads that ran one after another would share one arena whatever the limit.
"""

from __future__ import annotations

import ctypes.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

from graphrag.serve import memory

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or ctypes.util.find_library("c") is None,
    reason="glibc malloc only",
)

THREADS = 4
COUNT = """
import os, sys, threading, time
import graphrag.cli
from benchmarks import soak_probe
from graphrag.serve import memory

def threads_arenas():
    alive = threading.Barrier(THREADS + 1)
    def work():
        kept = bytearray(64_000)  # below either mmap threshold: from the thread's arena
        alive.wait()
        alive.wait()
    threads = [threading.Thread(target=work) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    alive.wait()
    print(len(soak_probe.malloc_arenas()))
    alive.wait()
    for thread in threads:
        thread.join()

how = sys.argv[1]
if how == "probed":
    # The server under the soak's probe, whose sampler thread starts first; the server
    # limits the arenas as run_announced does, once the probe has sampled (the real CLI
    # takes seconds to build the app, the sampler allocates as it starts).
    memory.ARENAS = 1
    os.environ["SOAK_PROBE_SECONDS"] = "0.01"
    out = soak_probe.Path(os.environ["SOAK_PROBE_OUT"])
    def serve():
        deadline = time.monotonic() + 60
        while not (out.exists() and out.read_text()) and time.monotonic() < deadline:
            time.sleep(0.01)
        memory.limit_arenas()
        threads_arenas()
    graphrag.cli.main = serve
    soak_probe.main()
else:
    if how == "default":
        assert memory.limit_arenas()
    elif how != "glibc":
        assert memory.limit_arenas(int(how))
    threads_arenas()
""".replace("THREADS", str(THREADS))


def arenas(how: str, tmp_path: Path) -> int:
    run = subprocess.run(
        [sys.executable, "-c", COUNT, how],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "SOAK_PROBE_OUT": str(tmp_path / "probe.jsonl"),
        },
        timeout=120,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return int(run.stdout.split()[-1])


def test_without_a_limit_each_thread_has_its_own_arena(tmp_path: Path) -> None:
    # glibc makes up to 8 arenas before it caps them by the cores: the count is real.
    assert arenas("glibc", tmp_path) == THREADS + 1


@pytest.mark.parametrize("limit", [1, 2])
def test_the_threads_share_the_arenas_asked_for(tmp_path: Path, limit: int) -> None:
    assert arenas(str(limit), tmp_path) == limit


def test_the_server_default_is_arenas(tmp_path: Path) -> None:
    assert arenas("default", tmp_path) == memory.ARENAS


def test_the_soak_probe_does_not_add_an_arena(tmp_path: Path) -> None:
    """The probe's sampler thread allocates before the server limits the arenas; unless
    the probe limits them before starting it, that thread keeps an arena of its own and
    the server's threads share it too (two arenas with ``ARENAS = 1``, session 8)."""
    assert arenas("probed", tmp_path) == 1
    assert (tmp_path / "probe.jsonl").read_text(encoding="utf-8").strip()  # it did sample
