"""A tiny ONNX export, written by hand, for testing the ONNX backend without torch.

The graph does what the real export does at its ends: word vectors looked up by
token id, mean-pooled over the attention mask, L2-normalised. ``expected`` computes
the same in numpy, so a test can check padding, truncation and batch order exactly.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

WORDS = ["[PAD]", "[UNK]", "alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
DIM = 4


def table(dim: int = DIM) -> np.ndarray:
    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(len(WORDS), dim)).astype(np.float32)
    vectors[0] = 0.0
    return vectors


def token_ids(text: str, max_tokens: int) -> list[int]:
    ids = [WORDS.index(w) if w in WORDS else 1 for w in text.lower().split()]
    return ids[:max_tokens]


def expected(texts: list[str], max_tokens: int = 5) -> np.ndarray:
    """What the tiny export returns for ``texts`` (an empty text gives a zero vector)."""
    vectors = table()
    out = np.zeros((len(texts), DIM), dtype=np.float32)
    for row, text in enumerate(texts):
        ids = token_ids(text, max_tokens)
        if ids:
            mean = vectors[ids].mean(axis=0)
            out[row] = mean / max(float(np.linalg.norm(mean)), 1e-12)
    return out


def write_tiny_export(folder: Path, max_tokens: int = 5) -> Path:
    """An export folder as ``indexer/onnx_export.py`` writes one, holding the tiny model."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = Tokenizer(models.WordLevel({w: i for i, w in enumerate(WORDS)}, unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.Lowercase()
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    # Like the real tokenizer.json: its own fixed padding, which the runtime must replace.
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]", length=16)
    tokenizer.save(str(folder / "tokenizer.json"))

    nodes = [
        helper.make_node("Gather", ["table", "input_ids"], ["words"]),
        helper.make_node("Cast", ["attention_mask"], ["maskf"], to=TensorProto.FLOAT),
        helper.make_node("Unsqueeze", ["maskf", "last"], ["mask3"]),
        helper.make_node("Mul", ["words", "mask3"], ["kept"]),
        helper.make_node("ReduceSum", ["kept", "one"], ["summed"], keepdims=0),
        helper.make_node("ReduceSum", ["mask3", "one"], ["count"], keepdims=0),
        helper.make_node("Max", ["count", "tiny"], ["count1"]),
        helper.make_node("Div", ["summed", "count1"], ["mean"]),
        helper.make_node("ReduceL2", ["mean"], ["norm"], axes=[-1], keepdims=1),
        helper.make_node("Max", ["norm", "tiny"], ["norm1"]),
        helper.make_node("Div", ["mean", "norm1"], ["sentence_embedding"]),
    ]
    initialisers = [
        numpy_helper.from_array(table(), "table"),
        numpy_helper.from_array(np.array([-1], dtype=np.int64), "last"),
        numpy_helper.from_array(np.array([1], dtype=np.int64), "one"),
        numpy_helper.from_array(np.array([1e-12], dtype=np.float32), "tiny"),
    ]
    graph = helper.make_graph(
        nodes,
        "tiny",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "tokens"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "tokens"]),
        ],
        [helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", DIM])],
        initialisers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save_model(
        model,
        str(folder / "model.onnx"),
        save_as_external_data=True,
        all_tensors_to_one_file=True,
        location="model.onnx.data",
        size_threshold=64,  # the word table only: shape inputs must stay inline
    )
    meta = {
        "format": 1,
        "source": "tests/support/tiny_onnx.py",
        "fingerprint": folder.name,
        "inputs": ["input_ids", "attention_mask"],
        "output": "sentence_embedding",
        "dim": DIM,
        "max_seq_length": max_tokens,
        "files": {
            name: (folder / name).stat().st_size
            for name in ("model.onnx", "model.onnx.data", "tokenizer.json")
        },
    }
    (folder / "export.json").write_text(json.dumps(meta), encoding="utf-8")
    return folder
