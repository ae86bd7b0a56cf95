"""The ONNX backend's runtime: batching, padding, truncation, and its errors for a
missing or damaged export. A hand-written tiny export stands in for the model here;
tests/indexer/test_onnx_real.py runs the real export against sentence-transformers."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from indexer.errors import ConfigError, ModelFileError
from indexer.onnx_embed import OnnxEmbedder, batches, default_cache_dir
from tests.support.tiny_onnx import DIM, expected, write_tiny_export

TEXTS = ["alpha beta", "gamma", "", "delta epsilon zeta alpha", "ALPHA unknown beta", "beta"]


@pytest.fixture
def model_dir(tmp_path: Path) -> Path:
    """A stand-in model folder: the ONNX backend only fingerprints its files."""
    folder = tmp_path / "my-model"
    folder.mkdir()
    (folder / "config.json").write_text("{}")
    return folder


@pytest.fixture
def tiny(model_dir: Path, tmp_path: Path) -> OnnxEmbedder:
    embedder = OnnxEmbedder(str(model_dir), batch_size=2, cache_dir=tmp_path / "cache")
    write_tiny_export(embedder.folder())
    return embedder


def test_vectors_are_the_models_in_input_order_whatever_the_batching(tiny: OnnxEmbedder) -> None:
    vectors = tiny.embed(TEXTS)
    assert vectors.dtype == np.float32 and vectors.shape == (len(TEXTS), DIM)
    np.testing.assert_allclose(vectors, expected(TEXTS), atol=1e-6)
    one_by_one = np.concatenate([tiny.embed([t]) for t in TEXTS])
    np.testing.assert_allclose(one_by_one, vectors, atol=1e-6)
    assert tiny.dim == DIM


def test_texts_are_cut_at_max_seq_length_from_export_json(tiny: OnnxEmbedder) -> None:
    long_text = "alpha beta gamma delta epsilon zeta zeta zeta"
    got = tiny.embed([long_text])
    np.testing.assert_allclose(got, expected([long_text], max_tokens=5), atol=1e-6)
    assert not np.allclose(got, expected([long_text], max_tokens=8), atol=1e-3)


def test_progress_hears_of_every_batch(tiny: OnnxEmbedder) -> None:
    seen: list[int] = []
    tiny.embed(TEXTS, seen.append)
    assert seen == [2, 2, 2]


def test_the_session_keeps_no_memory_arena(tiny: OnnxEmbedder) -> None:
    # An arena would keep the peak of the largest batch for the life of a server.
    tiny.embed(TEXTS)
    assert tiny.load().session.get_session_options().enable_cpu_mem_arena is False


def test_the_session_keeps_no_memory_pattern_per_shape(tiny: OnnxEmbedder) -> None:
    # Patterns are kept for every input shape ever run: a server re-embedding edited
    # chunks, each at its own length, would grow for hours.
    tiny.embed(TEXTS)
    assert tiny.load().session.get_session_options().enable_mem_pattern is False


def test_no_texts_loads_nothing(model_dir: Path, tmp_path: Path) -> None:
    embedder = OnnxEmbedder(str(model_dir), cache_dir=tmp_path / "empty", export=False)
    assert embedder.embed([]).shape == (0, 384)
    assert not (tmp_path / "empty").exists()


def test_the_export_folder_follows_the_model_files(model_dir: Path, tmp_path: Path) -> None:
    embedder = OnnxEmbedder(str(model_dir), cache_dir=tmp_path / "c")
    first = embedder.folder()
    assert first.parent == tmp_path / "c" and first.name.startswith("my-model-")
    assert OnnxEmbedder(str(model_dir), cache_dir=tmp_path / "c").folder() == first
    (model_dir / "config.json").write_text('{"changed": true}')
    assert embedder.folder() != first


def test_the_default_cache_is_the_users(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert default_cache_dir() == tmp_path / "xdg" / "vault-graphrag" / "onnx"
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert default_cache_dir() == Path.home() / ".cache" / "vault-graphrag" / "onnx"


def test_a_model_that_is_not_a_local_folder_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=r"embedding.model = 'someone/remote-model'"):
        OnnxEmbedder("someone/remote-model", cache_dir=tmp_path).embed(["alpha"])


def test_a_missing_export_is_an_error_naming_the_file_when_exporting_is_off(
    model_dir: Path, tmp_path: Path
) -> None:
    embedder = OnnxEmbedder(str(model_dir), cache_dir=tmp_path / "none", export=False)
    with pytest.raises(ModelFileError) as info:
        embedder.embed(["alpha"])
    assert info.value.path == str(embedder.folder() / "model.onnx")
    assert "missing" in str(info.value)


def _damage(folder: Path, how: str) -> str:
    """Damage the export as ``how`` says; returns the file the error must name."""
    if how == "weights deleted":
        (folder / "model.onnx.data").unlink()
        return "model.onnx.data"
    if how == "weights truncated":
        data = (folder / "model.onnx.data").read_bytes()
        (folder / "model.onnx.data").write_bytes(data[: len(data) // 2])
        return "model.onnx.data"
    if how == "graph garbled":
        size = (folder / "model.onnx").stat().st_size
        (folder / "model.onnx").write_bytes(os.urandom(size))
        return "model.onnx"
    if how == "tokenizer garbled":
        size = (folder / "tokenizer.json").stat().st_size
        (folder / "tokenizer.json").write_bytes(b"{" * size)
        return "tokenizer.json"
    if how == "metadata garbled":
        (folder / "export.json").write_text("{not json")
        return "export.json"
    if how == "metadata without sizes":
        meta = json.loads((folder / "export.json").read_text())
        del meta["files"]
        (folder / "export.json").write_text(json.dumps(meta))
        return "export.json"
    if how == "metadata deleted":
        (folder / "export.json").unlink()
        return "export.json"
    raise AssertionError(how)


@pytest.mark.parametrize(
    ("how", "problem"),
    [
        ("weights deleted", "missing"),
        ("weights truncated", "corrupt: "),
        ("graph garbled", "cannot be loaded"),
        ("tokenizer garbled", "cannot be loaded"),
        ("metadata garbled", "unreadable"),
        ("metadata without sizes", "unreadable"),
        ("metadata deleted", "incomplete"),
    ],
)
def test_a_damaged_export_is_an_error_naming_the_file_and_the_fix(
    tiny: OnnxEmbedder, how: str, problem: str
) -> None:
    folder = tiny.folder()
    culprit = _damage(folder, how)
    with pytest.raises(ModelFileError) as info:
        tiny.embed(["alpha"])
    message = str(info.value)
    assert info.value.path == str(folder / culprit)
    assert problem in message and f"delete {folder}" in message
    # Never re-exported over the damage behind the user's back.
    assert tiny._model is None


def test_batches_are_longest_first_and_bounded_in_texts_and_padded_tokens() -> None:
    lengths = [10, 256, 30, 256, 200, 12, 11]
    groups = batches(lengths, most=3, tokens=600)
    assert sorted(i for g in groups for i in g) == list(range(len(lengths)))
    assert groups == [[1, 3], [4, 2, 5], [6, 0]]
    for group in groups:
        assert len(group) <= 3 and len(group) * max(lengths[i] for i in group) <= 600
    # One text longer than the budget still gets a batch of its own.
    assert batches([5000, 1], most=8, tokens=100) == [[0], [1]]


def test_one_worker_or_several_give_the_same_vectors(model_dir: Path, tmp_path: Path) -> None:
    texts = TEXTS * 5
    outs = []
    for workers in (1, 3):
        embedder = OnnxEmbedder(str(model_dir), 2, tmp_path / "c", workers=workers)
        if not embedder.folder().exists():
            write_tiny_export(embedder.folder())
        seen: list[int] = []
        outs.append(embedder.embed(texts, seen.append))
        assert sum(seen) == len(texts) and len(seen) == 15
    np.testing.assert_array_equal(outs[0], outs[1])
    np.testing.assert_allclose(outs[0], expected(texts), atol=1e-6)
