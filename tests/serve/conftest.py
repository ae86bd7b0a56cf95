"""Fixtures of the server tests."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from indexer import build_index
from tests.support.fakes import HashEmbedder
from tests.support.files import SAMPLE_VAULT


@pytest.fixture
def indexed_vault(tmp_path: Path) -> Path:
    """A private copy of sample_vault, indexed with the hash embedder (for a served vault)."""
    vault = tmp_path / "vault"
    shutil.copytree(SAMPLE_VAULT, vault)
    build_index(vault, embedder=HashEmbedder())
    return vault
