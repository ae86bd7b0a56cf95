"""Which embedders' vectors may share an index: recorded in the manifest, checked
before an update adds vectors and before a question is compared with them.

No numpy here: ``indexer/fresh.py`` asks this on every command and must stay light
(docs/architecture.md, embedding and start-up).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def cpu_has_native_bf16() -> bool:
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return "avx512_bf16" in flags or "amx_bf16" in flags


# Vectors from these (backend, dtype) pairs agree within 1e-4 in every component, so an
# index made by one can be searched with questions embedded by another. Measured on the
# 120 evaluation questions (benchmarks/RESULTS.md, "Embedding backends"): ONNX against
# torch float32 differ by at most 1.8e-7; bfloat16 against float32 by 3.0e-3 (cosine
# 0.99994), enough to change the top 10 of 2 questions in 30, so bfloat16 is its own kind.
FLOAT32 = frozenset({("onnx", "float32"), ("torch", "float32")})


def embedding_info(embedder: object) -> dict[str, str]:
    """What the manifest records about the vectors ``embedder`` makes."""
    # An embedder from an import spec may say what it is; one that does not is known by
    # its model name alone, as every embedder was before backends were recorded.
    backend = getattr(embedder, "backend", None) or "custom"
    dtype = getattr(embedder, "effective_dtype", None) or "float32"
    return {"backend": str(backend), "dtype": str(dtype)}


def recorded_embedding(manifest: dict[str, Any]) -> dict[str, str]:
    """``embedding_info`` of the embedder that made an index. Indexes made before the
    manifest recorded it were made on torch, in bfloat16 where the CPU has it natively."""
    info = manifest.get("embedding")
    if isinstance(info, dict) and info.get("backend") and info.get("dtype"):
        return {"backend": str(info["backend"]), "dtype": str(info["dtype"])}
    return {"backend": "torch", "dtype": "bfloat16" if cpu_has_native_bf16() else "float32"}


def vectors_differ(manifest: dict[str, Any], embedder: object) -> str | None:
    """Why ``embedder``'s vectors cannot be mixed with the index's; None if they can.

    Same model, and either the same backend and dtype or both in ``FLOAT32``.
    """
    model, name = manifest.get("model"), getattr(embedder, "name", None)
    if model != name:
        return f"embedding model changed from {model} to {name}"
    old, new = recorded_embedding(manifest), embedding_info(embedder)
    key_old, key_new = (old["backend"], old["dtype"]), (new["backend"], new["dtype"])
    if key_old == key_new or (key_old in FLOAT32 and key_new in FLOAT32):
        return None
    return (
        f"embedding vectors changed from {old['backend']} {old['dtype']} "
        f"to {new['backend']} {new['dtype']}"
    )
