"""A question is never compared with chunk vectors it cannot be mixed with: opened
without updating, a search says what changed and how to fix it; opened normally, the
index is re-embedded first (indexer/vector_kind.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from graphrag import VaultRAG
from graphrag.errors import IndexStaleError
from indexer import build_index
from tests.support.fakes import HashEmbedder


class Backend(HashEmbedder):
    def __init__(self, backend: str, dtype: str) -> None:
        super().__init__(dim=32, name="sentence-transformers/all-MiniLM-L6-v2")
        self.backend = backend
        self.effective_dtype = dtype


def test_a_search_refuses_vectors_it_cannot_mix(sample_vault: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    build_index(sample_vault, index_dir, embedder=Backend("torch", "bfloat16"))
    onnx = Backend("onnx", "float32")
    rag = VaultRAG.open(sample_vault, index_dir=index_dir, embedder=onnx, update=False)
    with pytest.raises(IndexStaleError) as info:
        rag.semantic_search("cheese cellar")
    assert "embedding vectors changed from torch bfloat16 to onnx float32" in str(info.value)
    assert "vault-graphrag index" in str(info.value)
    assert onnx.calls == 0  # refused before embedding anything


def test_opening_re_embeds_and_then_searches(sample_vault: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    build_index(sample_vault, index_dir, embedder=Backend("torch", "bfloat16"))
    onnx = Backend("onnx", "float32")
    rag = VaultRAG.open(sample_vault, index_dir=index_dir, embedder=onnx)
    assert rag.snapshot.index.manifest["embedding"] == {"backend": "onnx", "dtype": "float32"}
    assert rag.semantic_search("cheese cellar", top_k=3).to_json()["results"]


def test_float32_from_another_backend_is_searched_as_is(sample_vault: Path, tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    build_index(sample_vault, index_dir, embedder=Backend("torch", "float32"))
    onnx = Backend("onnx", "float32")
    rag = VaultRAG.open(sample_vault, index_dir=index_dir, embedder=onnx)
    assert rag.snapshot.index.manifest["embedding"]["backend"] == "torch"  # not re-embedded
    assert rag.semantic_search("cheese cellar", top_k=3).to_json()["results"]
