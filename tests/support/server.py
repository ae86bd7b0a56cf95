"""The real server in a subprocess (``python -m graphrag serve``) for loopback tests."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from tests.support.fakes import HASH_BACKEND
from tests.support.files import ROOT


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def subprocess_env(real_model: bool = False) -> dict[str, str]:
    """The subprocess gets the test suite's HashEmbedder unless the real model is wanted."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("VAULTRAG_")}
    env["PYTHONPATH"] = str(ROOT)
    env["HF_HUB_OFFLINE"] = "1"
    if not real_model:
        env["VAULTRAG_EMBEDDING__BACKEND"] = HASH_BACKEND
    return env


@contextmanager
def serve(
    vault: Path, *args: str, real_model: bool = False, start_timeout: float = 30
) -> Iterator[str]:
    """``python -m graphrag serve VAULT --port P ARGS`` until the block ends; yields the base URL.

    The server's output is printed at the end, so pytest shows it when a test fails.
    """
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "graphrag", "serve", str(vault), "--port", str(port), *args],
            cwd=ROOT,
            env=subprocess_env(real_model),
            stdout=log,
            stderr=subprocess.STDOUT,
            text=True,
        )
        try:
            deadline = time.monotonic() + start_timeout
            while True:
                if proc.poll() is not None:
                    pytest.fail(f"server exited with {proc.returncode}")
                try:
                    if httpx.get(base + "/health", timeout=1).status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.monotonic() > deadline:
                    pytest.fail(f"server did not answer /health within {start_timeout} s")
                time.sleep(0.1)
            yield base
        finally:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
            log.seek(0)
            print(f"server output:\n{log.read()}")
