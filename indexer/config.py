"""Indexing settings (``[index]`` and ``[embedding]`` in configs/default.toml).

They live here rather than in ``graphrag.config`` because the indexer must not
import ``graphrag``; ``graphrag.config`` composes them into the full Settings.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class IndexSettings:
    index_dir: str = ""
    exclude: tuple[str, ...] = ()
    folder_note_names: tuple[str, ...] = ("{folder}", "index", "README")
    folder_note_beside: bool = True
    hierarchy_properties: tuple[str, ...] = ("up", "parent")
    resolve_aliases: bool = True
    chunk_tokens: int = 256
    # A note bigger than this is indexed up to here, with a warning naming it.
    max_note_bytes: int = 8 * 1024 * 1024
    exclude_templates: bool = True
    workers: int = 0
    tokenizer: str = "cl100k_base"


@dataclass(frozen=True)
class EmbeddingSettings:
    backend: str = "auto"
    model: str = "sentence-transformers/all-MiniLM-L6-v2"
    dtype: str = "auto"
    batch_size: int = 64
    device: str = "auto"
    onnx_dir: str = ""


@dataclass(frozen=True)
class IndexConfig:
    """Everything ``build_index`` needs, resolved once."""

    index: IndexSettings = field(default_factory=IndexSettings)
    embedding: EmbeddingSettings = field(default_factory=EmbeddingSettings)
