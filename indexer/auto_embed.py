"""``embedding.backend = "auto"``: float32 vectors, from whichever backend is fastest here.

Questions and small updates go through ONNX Runtime (``indexer/onnx_embed.py``): it
loads in a fraction of a second and needs no torch. A large job (``BULK`` texts or
more, a first index) goes to torch on CUDA when ``embedding.device`` resolves to a
CUDA device, which embeds tens of times faster than a CPU; on a CPU it stays on ONNX,
which measured faster than torch float32 here and saves torch's import (several
seconds). Both make float32 vectors that agree within 1.8e-7, so an index may mix
them (``indexer/vector_kind.py``). bfloat16 on torch, faster still for bulk work on
CPUs with native bf16, makes vectors that do not mix with float32 ones, so a question
on such an index would need torch too; it is chosen only explicitly
(``backend = "torch"``, ``dtype = "bfloat16"``). Measurements: benchmarks/RESULTS.md,
"Embedding backends"; design: docs/architecture.md, embedding.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .config import EmbeddingSettings
from .embed_base import BUNDLED_NAMES, resolve_device
from .onnx_embed import OnnxEmbedder
from .st_embed import SentenceTransformerEmbedder

# From this many texts on, loading torch on a CUDA device (~10 s) pays for itself.
BULK = 512


class AutoEmbedder:
    """ONNX on CPU; torch float32 for large jobs when there is a CUDA device."""

    effective_dtype = "float32"

    def __init__(self, settings: EmbeddingSettings) -> None:
        self.settings = settings
        self.name = settings.model
        self.dim = 384 if settings.model.lower() in BUNDLED_NAMES else 0
        self.onnx = OnnxEmbedder(settings.model, settings.batch_size, settings.onnx_dir)
        self._gpu: SentenceTransformerEmbedder | None = None
        self._device: str | None = None
        self.backend = "onnx"

    def load(self) -> Any:
        model = self.onnx.load()
        self.dim = self.onnx.dim
        return model

    def bulk_device(self) -> str:
        """Where a large job runs: ``cpu`` (ONNX) or a CUDA device (torch)."""
        if self._device is None:
            self._device = resolve_device(self.settings.device)
        return self._device

    def embed(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        if len(texts) >= BULK and self.bulk_device() != "cpu":
            if self._gpu is None:
                self._gpu = SentenceTransformerEmbedder(
                    self.settings.model, "float32", self.settings.batch_size, self.bulk_device()
                )
            self.backend = "torch"
            vectors = self._gpu.embed(texts, progress)
        else:
            self.backend = "onnx"
            vectors = self.onnx.embed(texts, progress)
        self.dim = int(vectors.shape[1]) if len(vectors) else self.dim
        return vectors
