"""embedding.backend = "auto": ONNX for questions and small updates, torch float32 on a
CUDA device for large jobs, never torch on a CPU-only machine."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import indexer.auto_embed as auto_embed
from indexer.auto_embed import BULK, AutoEmbedder
from indexer.config import EmbeddingSettings
from tests.support.fakes import HashEmbedder
from tests.support.tiny_onnx import DIM, expected, write_tiny_export


class FakeTorch(HashEmbedder):
    made: list[tuple[str, str, int, str]] = []

    def __init__(self, model: str, dtype: str, batch_size: int, device: str) -> None:
        super().__init__(dim=DIM, name=model)
        FakeTorch.made.append((model, dtype, batch_size, device))


@pytest.fixture
def auto(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AutoEmbedder:
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    embedder = AutoEmbedder(
        EmbeddingSettings(model=str(model), batch_size=16, onnx_dir=str(tmp_path / "x"))
    )
    write_tiny_export(embedder.onnx.folder())
    FakeTorch.made = []
    monkeypatch.setattr(auto_embed, "SentenceTransformerEmbedder", FakeTorch)
    return embedder


def test_questions_never_ask_where_cuda_is(
    auto: AutoEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no(_setting: str) -> str:
        raise AssertionError("resolving the device may import torch")

    monkeypatch.setattr(auto_embed, "resolve_device", no)
    np.testing.assert_allclose(auto.embed(["alpha beta"]), expected(["alpha beta"]), atol=1e-6)
    assert auto.backend == "onnx" and auto.dim == DIM


def test_a_large_job_on_a_cpu_stays_on_onnx(
    auto: AutoEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(auto_embed, "resolve_device", lambda setting: "cpu")
    texts = ["alpha gamma"] * BULK
    np.testing.assert_allclose(auto.embed(texts), expected(texts), atol=1e-6)
    assert auto.backend == "onnx" and FakeTorch.made == []


def test_a_large_job_goes_to_torch_float32_on_cuda(
    auto: AutoEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(auto_embed, "resolve_device", lambda setting: "cuda")
    auto.embed(["alpha"] * (BULK - 1))
    assert auto.backend == "onnx" and FakeTorch.made == []
    seen: list[int] = []
    auto.embed(["alpha"] * BULK, seen.append)
    assert auto.backend == "torch" and sum(seen) == BULK
    assert FakeTorch.made == [(auto.name, "float32", 16, "cuda")]
    auto.embed(["beta"] * BULK)
    assert len(FakeTorch.made) == 1  # loaded once
