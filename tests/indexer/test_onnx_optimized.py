"""The rewritten graph ONNX Runtime makes is saved once beside the export and reused,
with the same vectors bit for bit (``indexer/onnx_model.py``, ``OPTIMIZED``)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

import indexer.onnx_model as onnx_model
from indexer.onnx_embed import OnnxEmbedder
from indexer.onnx_model import GRAPH, optimized_path
from tests.support.files import ROOT
from tests.support.tiny_onnx import write_tiny_export

TEXTS = ["alpha beta", "gamma", "", "delta epsilon zeta alpha", "ALPHA unknown beta", "beta"]
OFF = ort.GraphOptimizationLevel.ORT_DISABLE_ALL


def _embedder(tmp_path: Path) -> OnnxEmbedder:
    model = tmp_path / "my-model"
    if not model.exists():  # once: the export folder is named by these files' times
        model.mkdir()
        (model / "config.json").write_text("{}")
    embedder = OnnxEmbedder(str(model), batch_size=2, cache_dir=tmp_path / "cache")
    if not (embedder.folder() / GRAPH).exists():
        write_tiny_export(embedder.folder())
    return embedder


def _level(embedder: OnnxEmbedder) -> ort.GraphOptimizationLevel:
    return embedder.load().session.get_session_options().graph_optimization_level


def test_the_first_load_saves_the_graph_and_the_next_opens_it_as_is(tmp_path: Path) -> None:
    first = _embedder(tmp_path)
    saved = optimized_path(first.folder() / GRAPH, ort.__version__)
    assert not saved.exists()
    vectors = first.embed(TEXTS)
    assert saved.is_file() and _level(first) != OFF
    assert not [p for p in saved.parent.iterdir() if p.name.endswith(".tmp")]

    second = _embedder(tmp_path)  # a new process, as far as the model is concerned
    again = second.embed(TEXTS)
    assert _level(second) == OFF  # no rewriting this time
    assert np.array_equal(again, vectors)


def test_a_damaged_saved_graph_is_made_again(tmp_path: Path) -> None:
    want = _embedder(tmp_path).embed(TEXTS)
    saved = optimized_path(_embedder(tmp_path).folder() / GRAPH, ort.__version__)
    saved.write_bytes(b"not a model")
    embedder = _embedder(tmp_path)
    assert np.array_equal(embedder.embed(TEXTS), want)
    assert _level(embedder) != OFF
    assert saved.stat().st_size > 100  # replaced by a whole one
    assert _level(reopened := _embedder(tmp_path)) == OFF and reopened.embed(TEXTS).shape


def test_an_unwritable_cache_still_loads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(src: object, dst: object) -> None:
        raise PermissionError("read-only")

    monkeypatch.setattr(onnx_model.os, "replace", refuse)
    embedder = _embedder(tmp_path)
    assert embedder.embed(TEXTS).shape[0] == len(TEXTS)
    saved = optimized_path(embedder.folder() / GRAPH, ort.__version__)
    assert not saved.exists()
    assert not [p for p in saved.parent.iterdir() if p.name.endswith(".tmp")]


def test_the_name_follows_onnx_runtime_and_the_graph_file(tmp_path: Path) -> None:
    graph = _embedder(tmp_path).folder() / GRAPH
    one = optimized_path(graph, "1.0.0")
    assert one == optimized_path(graph, "1.0.0") and one.parent == graph.parent
    assert optimized_path(graph, "1.0.1") != one
    graph.write_bytes(graph.read_bytes() + b"\0")  # another graph file
    assert optimized_path(graph, "1.0.0") != one


@pytest.mark.slow
def test_the_real_model_gives_the_same_vectors_through_the_saved_graph() -> None:
    embedder = OnnxEmbedder()  # the session's cache (conftest): exported once
    model = embedder.load()
    questions = [
        json.loads(line)["question"]
        for path in sorted((ROOT / "benchmarks" / "qa").glob("*.jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    saved = optimized_path(model.folder / GRAPH, ort.__version__)
    assert saved.is_file()
    fresh = onnx_model._open(model.folder / GRAPH, 1, ort.GraphOptimizationLevel.ORT_ENABLE_ALL)
    through_saved = onnx_model._open(saved, 1, OFF)
    encodings = model.encode(questions)
    for group in (encodings[i : i + 16] for i in range(0, len(encodings), 16)):
        model.session = fresh
        want = model.run_encoded(group)
        model.session = through_saved
        assert np.array_equal(model.run_encoded(group), want)
    for one in encodings[:20]:  # a question alone, as a query embeds it
        model.session = fresh
        want = model.run_encoded([one])
        model.session = through_saved
        assert np.array_equal(model.run_encoded([one]), want)
