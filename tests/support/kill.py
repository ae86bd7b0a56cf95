"""Run a child Python script until it reaches a stage, then ``kill -9`` it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.support.files import ROOT


def kill_when_flagged(script: Path, flag: Path, timeout: float = 60) -> None:
    """Run ``script`` and SIGKILL it once it has written ``flag`` (the stage to die at)."""
    child = subprocess.Popen([sys.executable, str(script)], cwd=ROOT)
    try:
        deadline = time.monotonic() + timeout
        while not flag.exists():
            assert child.poll() is None, "the child indexer exited early"
            assert time.monotonic() < deadline, "the child indexer never reached its stage"
            time.sleep(0.05)
        os.kill(child.pid, signal.SIGKILL)
        assert child.wait(timeout=30) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
