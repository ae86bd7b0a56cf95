"""Fixtures shared by the command-line tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.fakes import HASH_BACKEND
from tests.support.files import ROOT


@pytest.fixture(scope="session")
def sample_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An index of ``sample_vault`` with the hash embedder, built once from the shell for
    the tests that run read-only commands in a fresh process."""
    index = tmp_path_factory.mktemp("cli") / "index"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "VAULTRAG_EMBEDDING__BACKEND": HASH_BACKEND}
    subprocess.run(
        [sys.executable, "-m", "graphrag", "index", str(ROOT / "sample_vault"), "--index-dir", str(index), "-q"],
        cwd=ROOT, env=env, check=True, capture_output=True,
    )  # fmt: skip
    return index
