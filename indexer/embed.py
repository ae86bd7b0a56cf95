"""Which embedder computes the vectors: the ``embedding.backend`` setting.

It is resolved in one place, ``make_embedder``: a built-in name, or an import spec
``package.module:factory`` whose factory takes the ``EmbeddingSettings`` and returns
an ``Embedder`` (``indexer/embed_base.py``). Tests and other backends plug in that
way, without a hook in the code that opens a vault. The built-ins:

* ``onnx``: ONNX Runtime over an ONNX export of the model (``indexer/onnx_embed.py``);
  no torch at run time, so a question from the shell loads in a fraction of a second.
* ``torch`` / ``sentence-transformers``: the model on torch (``indexer/st_embed.py``),
  bfloat16 on CPUs with native bf16.
* ``auto`` (the default): float32 vectors from ONNX Runtime, or from torch on a CUDA
  device for large jobs (``indexer/auto_embed.py``); torch when ``dtype = "bfloat16"``.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from .auto_embed import AutoEmbedder
from .config import EmbeddingSettings
from .embed_base import (
    BUNDLED_NAMES,
    DEFAULT_MODEL,
    Embedder,
    normalise,
    resolve_device,
    resolve_model_path,
)
from .errors import ConfigError
from .onnx_embed import OnnxEmbedder
from .st_embed import SentenceTransformerEmbedder
from .vector_kind import cpu_has_native_bf16

__all__ = [
    "BACKENDS",
    "AutoEmbedder",
    "BUNDLED_NAMES",
    "DEFAULT_MODEL",
    "Embedder",
    "OnnxEmbedder",
    "SentenceTransformerEmbedder",
    "cpu_has_native_bf16",
    "make_embedder",
    "normalise",
    "resolve_device",
    "resolve_model_path",
]


def _sentence_transformers(settings: EmbeddingSettings) -> Embedder:
    return SentenceTransformerEmbedder(
        settings.model, settings.dtype, settings.batch_size, settings.device
    )


def _onnx(settings: EmbeddingSettings) -> Embedder:
    return OnnxEmbedder(settings.model, settings.batch_size, settings.onnx_dir)


def _auto(settings: EmbeddingSettings) -> Embedder:
    if settings.dtype == "bfloat16":  # asked for by name: only torch makes it
        return _sentence_transformers(settings)
    return AutoEmbedder(settings)


# Built-in backends by name. "auto" is the default: the best backend available here.
BACKENDS: dict[str, Callable[[EmbeddingSettings], Embedder]] = {
    "auto": _auto,
    "onnx": _onnx,
    "torch": _sentence_transformers,
    "sentence-transformers": _sentence_transformers,
}


def make_embedder(settings: EmbeddingSettings) -> Embedder:
    """The embedder ``embedding.backend`` names: a built-in or ``package.module:factory``.

    Raises:
        ConfigError: the name is unknown, the spec cannot be imported, or its factory
            does not return an Embedder (an object with ``name``, ``dim`` and ``embed``).
    """
    spec = settings.backend
    builtin = BACKENDS.get(spec)
    if builtin is not None:
        return builtin(settings)
    where = f"embedding.backend = {spec!r}"
    module_name, colon, attr = spec.partition(":")
    if not colon or not module_name or not attr:
        known = ", ".join(sorted(BACKENDS))
        raise ConfigError(f"{where}: unknown backend (use {known} or package.module:factory)")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"{where}: cannot import {module_name} ({exc})") from exc
    factory = getattr(module, attr, None)
    if not callable(factory):
        raise ConfigError(f"{where}: {module_name} has no callable {attr}")
    embedder = factory(settings)
    if not all(hasattr(embedder, a) for a in ("name", "dim")) or not callable(
        getattr(embedder, "embed", None)
    ):
        raise ConfigError(
            f"{where}: the factory returned {type(embedder).__name__}, not an Embedder "
            "(it needs name, dim and embed(texts))"
        )
    return embedder
