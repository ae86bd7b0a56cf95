"""Which embedders' vectors may share an index: the manifest records the backend and
dtype, an update re-embeds when they cannot be mixed, and the freshness check agrees."""

from __future__ import annotations

from pathlib import Path

import pytest

import indexer.vector_kind as vector_kind
from indexer import build_index, load_index
from indexer.config import IndexConfig
from indexer.embed import OnnxEmbedder, SentenceTransformerEmbedder
from indexer.fresh import index_is_current
from indexer.vector_kind import embedding_info, recorded_embedding, vectors_differ
from tests.support.fakes import HashEmbedder
from tests.support.files import write

NAME = "sentence-transformers/all-MiniLM-L6-v2"


class Backend(HashEmbedder):
    """The hash embedder under a built-in backend's name, dtype and model name."""

    def __init__(self, backend: str, dtype: str) -> None:
        super().__init__(dim=32, name=NAME)
        self.backend = backend
        self.effective_dtype = dtype


def test_each_builtin_says_what_it_makes(tmp_path: Path) -> None:
    assert embedding_info(OnnxEmbedder(cache_dir=tmp_path)) == {
        "backend": "onnx",
        "dtype": "float32",
    }
    assert embedding_info(SentenceTransformerEmbedder(dtype="float32", device="cpu")) == {
        "backend": "torch",
        "dtype": "float32",
    }
    assert embedding_info(SentenceTransformerEmbedder(dtype="bfloat16", device="cpu")) == {
        "backend": "torch",
        "dtype": "bfloat16",
    }
    # An embedder that does not say is known by its model name alone.
    assert embedding_info(HashEmbedder()) == {"backend": "custom", "dtype": "float32"}


@pytest.mark.parametrize(
    ("old", "new", "problem"),
    [
        (("onnx", "float32"), ("torch", "float32"), None),
        (("torch", "float32"), ("onnx", "float32"), None),
        (("torch", "bfloat16"), ("torch", "bfloat16"), None),
        (("torch", "bfloat16"), ("onnx", "float32"), "from torch bfloat16 to onnx float32"),
        (("onnx", "float32"), ("torch", "bfloat16"), "from onnx float32 to torch bfloat16"),
        (("custom", "float32"), ("onnx", "float32"), "from custom float32 to onnx float32"),
    ],
)
def test_float32_vectors_mix_across_backends_bfloat16_ones_do_not(
    old: tuple[str, str], new: tuple[str, str], problem: str | None
) -> None:
    manifest = {"model": NAME, "embedding": {"backend": old[0], "dtype": old[1]}}
    changed = vectors_differ(manifest, Backend(*new))
    if problem is None:
        assert changed is None
    else:
        assert changed is not None and problem in changed


def test_another_model_never_mixes() -> None:
    manifest = {"model": "other/model", "embedding": {"backend": "onnx", "dtype": "float32"}}
    assert vectors_differ(manifest, Backend("onnx", "float32")) == (
        f"embedding model changed from other/model to {NAME}"
    )


@pytest.mark.parametrize(("bf16", "dtype"), [(True, "bfloat16"), (False, "float32")])
def test_an_index_from_before_the_record_was_made_on_torch_as_the_cpu_chose(
    monkeypatch: pytest.MonkeyPatch, bf16: bool, dtype: str
) -> None:
    monkeypatch.setattr(vector_kind, "cpu_has_native_bf16", lambda: bf16)
    assert recorded_embedding({"model": NAME}) == {"backend": "torch", "dtype": dtype}
    mixes = vectors_differ({"model": NAME}, Backend("onnx", "float32")) is None
    assert mixes is not bf16


def test_updates_keep_vectors_that_mix_and_re_embed_those_that_do_not(tmp_path: Path) -> None:
    vault, index_dir, config = tmp_path / "vault", tmp_path / "index", IndexConfig()
    write(vault, "A.md", "# A\n\nalpha beta\n")
    write(vault, "B.md", "# B\n\ngamma delta\n")
    onnx = Backend("onnx", "float32")
    first = build_index(vault, index_dir, embedder=onnx)
    assert first.chunks_embedded == 2
    assert load_index(index_dir).manifest["embedding"] == {"backend": "onnx", "dtype": "float32"}

    torch32 = Backend("torch", "float32")
    assert index_is_current(vault, index_dir, config, torch32)
    again = build_index(vault, index_dir, embedder=torch32)
    assert again.chunks_embedded == 0 and not again.full_reason

    bf16 = Backend("torch", "bfloat16")
    assert not index_is_current(vault, index_dir, config, bf16)
    assert index_is_current(vault, index_dir, config, NAME)  # by name alone: same model
    redone = build_index(vault, index_dir, embedder=bf16)
    assert redone.chunks_embedded == 2
    assert "embedding vectors changed from onnx float32 to torch bfloat16" in redone.full_reason
    assert load_index(index_dir).manifest["embedding"] == {"backend": "torch", "dtype": "bfloat16"}
    assert index_is_current(vault, index_dir, config, bf16)
