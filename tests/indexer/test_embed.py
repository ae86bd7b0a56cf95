"""embedding.backend: one function turns the setting into an embedder."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from indexer import build_index, load_index
from indexer.config import EmbeddingSettings, IndexConfig
from indexer.embed import (
    AutoEmbedder,
    OnnxEmbedder,
    SentenceTransformerEmbedder,
    make_embedder,
)
from indexer.errors import ConfigError
from tests.support.fakes import HASH_BACKEND, HashEmbedder
from tests.support.files import write


def not_an_embedder(settings: EmbeddingSettings) -> object:
    return object()


def test_builtin_names_make_the_sentence_transformers_embedder() -> None:
    settings = EmbeddingSettings(dtype="float32", batch_size=8)
    for name in ("torch", "sentence-transformers"):
        embedder = make_embedder(replace(settings, backend=name))
        assert isinstance(embedder, SentenceTransformerEmbedder)
        assert (embedder.name, embedder.dtype, embedder.batch_size) == (
            settings.model,
            "float32",
            8,
        )


def test_onnx_and_auto_make_float32_embedders_that_need_no_torch(tmp_path: Path) -> None:
    settings = EmbeddingSettings(batch_size=8, onnx_dir=str(tmp_path / "exports"))
    onnx = make_embedder(replace(settings, backend="onnx"))
    assert isinstance(onnx, OnnxEmbedder)
    assert (onnx.name, onnx.batch_size, onnx.cache_dir) == (settings.model, 8, tmp_path / "exports")
    auto = make_embedder(settings)
    assert isinstance(auto, AutoEmbedder) and auto.onnx.cache_dir == tmp_path / "exports"
    assert (auto.name, auto.effective_dtype) == (settings.model, "float32")
    # bfloat16 asked for by name: only torch makes it.
    bf16 = make_embedder(replace(settings, dtype="bfloat16"))
    assert isinstance(bf16, SentenceTransformerEmbedder) and bf16.effective_dtype == "bfloat16"


def test_an_import_spec_calls_the_factory_with_the_settings() -> None:
    embedder = make_embedder(EmbeddingSettings(backend=HASH_BACKEND))
    assert isinstance(embedder, HashEmbedder)
    assert embedder.embed(["a b", "a b"]).shape == (2, embedder.dim)


@pytest.mark.parametrize(
    ("backend", "problem"),
    [
        ("tensorflow", "unknown backend"),
        ("no_such_module_xyz:factory", "cannot import no_such_module_xyz"),
        ("tests.support.fakes:nothing_here", "has no callable nothing_here"),
        ("tests.support.fakes:HASH_BACKEND", "has no callable HASH_BACKEND"),
        ("tests.indexer.test_embed:not_an_embedder", "returned object, not an Embedder"),
        (":factory", "unknown backend"),
    ],
)
def test_a_bad_backend_is_a_config_error_naming_the_setting(backend: str, problem: str) -> None:
    with pytest.raises(ConfigError, match="embedding.backend") as info:
        make_embedder(EmbeddingSettings(backend=backend))
    assert problem in str(info.value) and repr(backend) in str(info.value)


def test_build_index_without_an_embedder_uses_the_configured_backend(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    write(vault, "A.md", "# A\n\nalpha words\n")
    config = IndexConfig(embedding=EmbeddingSettings(backend=HASH_BACKEND))
    build_index(vault, tmp_path / "idx", config)
    snap = load_index(tmp_path / "idx")
    assert snap.manifest["model"] == "test/hash-embedder" and snap.vectors.dim == 64
