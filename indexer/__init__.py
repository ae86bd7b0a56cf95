"""vault -> index on disk. Never imports ``graphrag``.

The public names are imported on first use (PEP 562 ``__getattr__``): reading an
index must not pay for the parser, networkx and FAISS that building one needs
(docs/architecture.md, start-up).
"""

import importlib
import logging
from typing import TYPE_CHECKING, Any

from indexer.version import __version__

# Public name -> the module that defines it.
_EXPORTS = {
    "IndexStats": "indexer.index_stats",
    "build_index": "indexer.build",
    "parse_vault": "indexer.read_notes",
    "EmbeddingSettings": "indexer.config",
    "IndexConfig": "indexer.config",
    "IndexSettings": "indexer.config",
    "ConfigError": "indexer.errors",
    "IndexBusyError": "indexer.errors",
    "IndexMissingError": "indexer.errors",
    "IndexStaleError": "indexer.errors",
    "VaultError": "indexer.errors",
    "VaultRAGError": "indexer.errors",
    "IndexSnapshot": "indexer.load",
    "load_index": "indexer.load",
    "ParsedNote": "indexer.parse",
    "parse_note": "indexer.parse",
}

if TYPE_CHECKING:
    from indexer.build import build_index
    from indexer.config import EmbeddingSettings, IndexConfig, IndexSettings
    from indexer.errors import (
        ConfigError,
        IndexBusyError,
        IndexMissingError,
        IndexStaleError,
        VaultError,
        VaultRAGError,
    )
    from indexer.index_stats import IndexStats
    from indexer.load import IndexSnapshot, load_index
    from indexer.parse import ParsedNote, parse_note
    from indexer.read_notes import parse_vault


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'indexer' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # once: later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = [
    "ConfigError",
    "EmbeddingSettings",
    "IndexBusyError",
    "IndexConfig",
    "IndexMissingError",
    "IndexSettings",
    "IndexSnapshot",
    "IndexStaleError",
    "IndexStats",
    "ParsedNote",
    "VaultError",
    "VaultRAGError",
    "__version__",
    "build_index",
    "load_index",
    "parse_note",
    "parse_vault",
]
