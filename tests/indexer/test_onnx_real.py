"""The ONNX backend with the real model: exported from the bundled weights, its vectors
are sentence-transformers' float32 ones, and running it imports no torch.

Slow: the first test exports the model (seconds; once per session, see conftest)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import indexer.onnx_export as onnx_export
from indexer import build_index, load_index
from indexer.embed import OnnxEmbedder, SentenceTransformerEmbedder
from indexer.errors import ModelFileError
from tests.support.files import ROOT, SAMPLE_VAULT

pytestmark = pytest.mark.slow

QUESTIONS = [
    json.loads(line)["question"]
    for path in sorted((ROOT / "benchmarks" / "qa").glob("*.jsonl"))
    for line in path.read_text(encoding="utf-8").splitlines()
    if line.strip()
]


@pytest.fixture(scope="session")
def torch32() -> SentenceTransformerEmbedder:
    embedder = SentenceTransformerEmbedder(dtype="float32", device="cpu")
    embedder.load()
    return embedder


@pytest.fixture
def onnx() -> OnnxEmbedder:
    embedder = OnnxEmbedder()  # the session's cache (conftest): exported once
    embedder.load()
    return embedder


def test_question_vectors_agree_with_sentence_transformers(
    onnx: OnnxEmbedder, torch32: SentenceTransformerEmbedder
) -> None:
    assert len(QUESTIONS) >= 100
    ours, theirs = onnx.embed(QUESTIONS), torch32.embed(QUESTIONS)
    cosine = (ours * theirs).sum(axis=1)
    assert cosine.min() >= 0.9999
    assert np.abs(ours - theirs).max() <= 1e-4
    meta = json.loads((onnx.folder() / "export.json").read_text())
    assert meta["max_abs_diff"] <= 1e-5 and meta["max_seq_length"] == 256


def test_the_same_top_ten_notes_for_every_sample_question(
    onnx: OnnxEmbedder, torch32: SentenceTransformerEmbedder, tmp_path: Path
) -> None:
    build_index(SAMPLE_VAULT, tmp_path / "idx", embedder=onnx)
    snap = load_index(tmp_path / "idx")
    assert snap.manifest["embedding"] == {"backend": "onnx", "dtype": "float32"}
    rows = snap.db.execute(
        "SELECT c.uri, n.title, c.heading_path, c.text FROM chunks c JOIN notes n USING (uri)"
    ).fetchall()
    uris = [r[0] for r in rows]
    texts = [(f"{t}\n{h}\n\n" if h else f"{t}\n\n") + x for _, t, h, x in rows]
    qa = ROOT / "benchmarks" / "qa" / "sample_vault.jsonl"
    questions = [json.loads(line)["question"] for line in qa.read_text().splitlines() if line]

    def top10(chunks: np.ndarray, query: np.ndarray) -> list[str]:
        best: dict[str, float] = {}
        for uri, score in zip(uris, (chunks @ query).tolist(), strict=True):
            best[uri] = max(best.get(uri, -2.0), score)
        return sorted(best, key=lambda u: (-best[u], u))[:10]

    c_onnx, c_torch = onnx.embed(texts), torch32.embed(texts)
    q_onnx, q_torch = onnx.embed(questions), torch32.embed(questions)
    for i, question in enumerate(questions):
        assert top10(c_onnx, q_onnx[i]) == top10(c_torch, q_torch[i]), question


def test_embedding_imports_no_torch(onnx: OnnxEmbedder) -> None:
    code = (
        "import sys; from indexer.embed import make_embedder; "
        "from indexer.config import EmbeddingSettings; "
        "v = make_embedder(EmbeddingSettings()).embed(['how do I embed a file']); "
        "heavy = [m for m in ('torch', 'sentence_transformers', 'transformers', 'sklearn') "
        "if m in sys.modules]; print(v.shape, heavy)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=os.environ, capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "(1, 384) []"


def test_an_export_that_disagrees_is_refused_and_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(onnx_export, "MAX_ABS_DIFF", -1.0)  # nothing can pass
    embedder = OnnxEmbedder(cache_dir=tmp_path / "exports")
    with pytest.raises(ModelFileError, match="disagrees with sentence-transformers"):
        embedder.embed(["alpha"])
    assert list((tmp_path / "exports").iterdir()) == []  # no export, no temp folder
