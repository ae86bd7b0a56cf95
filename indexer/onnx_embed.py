"""Sentence embeddings with ONNX Runtime: no torch, no sentence-transformers at run time.

``OnnxEmbedder`` runs an ONNX export of the configured sentence-transformers model
(``indexer/onnx_export.py`` makes it once, from the local weights, offline) with the
``tokenizers`` package reading the model's own ``tokenizer.json``. Loading it costs
``import onnxruntime`` and mapping the weights (about 0.3 s here) instead of
``import torch`` plus ``import sentence_transformers`` (about 8 s), which is what a
question from the shell pays. Its vectors are the float32 sentence-transformers
vectors: the export is refused unless they agree within 1e-5 (measured 2e-7).

Exports live in ``embedding.onnx_dir`` (default ``$XDG_CACHE_HOME/vault-graphrag/onnx``,
else ``~/.cache/vault-graphrag/onnx``), one folder per model named by a fingerprint of
the model folder's files (names, sizes, modification times), so every vault on the
machine shares one export and a changed model is exported again. A missing export is
made on first use; a damaged one is an error naming the file, never silently used
(docs/architecture.md, embedding).
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import threading
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

import numpy as np

from .embed_base import BUNDLED_NAMES, DEFAULT_MODEL, normalise, resolve_model_path
from .errors import ConfigError, ModelFileError
from .onnx_model import EXPORT_FORMAT, GRAPH, OnnxModel, open_export

log = logging.getLogger(__name__)

# Padded tokens in one run: 8 chunks of 256 tokens. Larger batches were no faster here
# and a run's memory grows with them (16 x 256 tokens: +200 MB).
TOKENS_PER_BATCH = 2048


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "vault-graphrag" / "onnx"


def model_fingerprint(model_dir: Path) -> str:
    """Names, sizes and modification times of the model's files: cheap enough for every start."""
    digest = hashlib.sha256(f"export format {EXPORT_FORMAT}\n".encode())
    for path in sorted(model_dir.rglob("*")):
        if path.is_file():
            st = path.stat()
            rel = path.relative_to(model_dir).as_posix()
            digest.update(f"{rel}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:16]


class OnnxEmbedder:
    """The configured model through ONNX Runtime; normalised float32 vectors.

    Texts are embedded longest first (little padding) in batches of at most
    ``batch_size`` texts and ``TOKENS_PER_BATCH`` padded tokens, run side by side on
    ``workers`` threads; ``progress`` hears of every batch, in order.
    """

    backend = "onnx"
    effective_dtype = "float32"

    def __init__(
        self,
        model: str = DEFAULT_MODEL,
        batch_size: int = 32,
        cache_dir: str | os.PathLike[str] = "",
        workers: int = 0,
        export: bool = True,
    ) -> None:
        self.name = model
        self.batch_size = max(1, int(batch_size))
        self.cache_dir = Path(cache_dir).expanduser() if str(cache_dir) else default_cache_dir()
        # Batches run side by side on this many threads (0: one per CPU, at most 4),
        # each on one ONNX Runtime thread.
        self.workers = workers or min(os.cpu_count() or 1, 4)
        self.export = export
        self.dim = 384 if model.lower() in BUNDLED_NAMES else 0
        self._model: OnnxModel | None = None
        self._lock = threading.Lock()
        self._pid = os.getpid()

    def folder(self) -> Path:
        """Where this model's export lives (or will)."""
        return self._locate()[1]

    def _locate(self) -> tuple[Path, Path, str]:
        """(model folder, export folder, fingerprint)."""
        source = Path(resolve_model_path(self.name))
        if not source.is_dir():
            raise ConfigError(
                f"embedding.model = {self.name!r}: the onnx backend needs the model as a local "
                "folder (or the bundled all-MiniLM-L6-v2)"
            )
        slug = re.sub(r"[^A-Za-z0-9._-]+", "-", self.name.rstrip("/").split("/")[-1]) or "model"
        fingerprint = model_fingerprint(source)
        return source, self.cache_dir / f"{slug}-{fingerprint}", fingerprint

    def load(self) -> OnnxModel:
        if self._pid != os.getpid():
            # A forked worker (batch): ONNX Runtime's threads did not come along, so the
            # parent's session is not usable here; load afresh (a fraction of a second).
            self._model, self._lock, self._pid = None, threading.Lock(), os.getpid()
        with self._lock:
            if self._model is None:
                source, folder, fingerprint = self._locate()
                model = open_export(folder)
                if model is None:
                    if not self.export:
                        raise ModelFileError(folder / GRAPH, "missing (exporting is turned off)")
                    from .onnx_export import export_model  # once per model: not on every start

                    export_model(source, folder, fingerprint, log.warning)
                    model = open_export(folder)
                    assert model is not None
                self._model = model
                self.dim = int(model.session.get_outputs()[0].shape[-1] or self.dim)
            return self._model

    def embed(
        self, texts: Sequence[str], progress: Callable[[int], None] | None = None
    ) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim or 384), dtype=np.float32)
        model = self.load()
        encodings = model.encode(texts)
        groups = batches([len(e.ids) for e in encodings], self.batch_size)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)

        def run(idx: list[int]) -> np.ndarray:
            return model.run_encoded([encodings[i] for i in idx])

        workers = min(len(groups), self.workers)
        if workers <= 1:
            results: Iterable[np.ndarray] = map(run, groups)
        else:
            from concurrent.futures import ThreadPoolExecutor  # bulk work only

            pool = ThreadPoolExecutor(workers, thread_name_prefix="onnx-embed")
            results = pool.map(run, groups)
        try:
            for idx, vectors in zip(groups, results, strict=True):
                out[idx] = vectors
                if progress is not None:
                    progress(len(idx))
        finally:
            if workers > 1:
                pool.shutdown(cancel_futures=True)
        return normalise(out)


def batches(lengths: Sequence[int], most: int, tokens: int = TOKENS_PER_BATCH) -> list[list[int]]:
    """Indexes of texts grouped for embedding: longest first, so little padding, and each
    group at most ``most`` texts and ``tokens`` tokens once padded (a group of long chunks
    is small, which bounds the memory one run takes; one of questions is large)."""
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    groups: list[list[int]] = []
    for i in order:
        group = groups[-1] if groups else None
        # Longest first: the group's first text sets its padded width.
        if group and len(group) < most and (len(group) + 1) * lengths[group[0]] <= tokens:
            group.append(i)
        else:
            groups.append([i])
    return groups
