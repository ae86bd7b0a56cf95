"""index -> answers: focus and query mode, searches, answers, over a vault's index.

The public names below are imported on first use (PEP 562 ``__getattr__``), not when
the package is: ``vault-graphrag focus`` must not pay for FAISS, numpy or the model's
libraries that other commands need (docs/architecture.md, start-up).
"""

import importlib
import logging
from typing import TYPE_CHECKING, Any

from indexer import __version__

# Public name -> the module that defines it.
_EXPORTS = {
    "AmbiguousNoteError": "graphrag.errors",
    "Answer": "graphrag.answer.ask",
    "BatchError": "graphrag.errors",
    "ConfigError": "graphrag.errors",
    "Filters": "graphrag.snapshot.filters",
    "GraphRAGResult": "graphrag.results.focus",
    "GraphSearchResult": "graphrag.results.search",
    "IndexBusyError": "graphrag.errors",
    "IndexMissingError": "graphrag.errors",
    "IndexStaleError": "graphrag.errors",
    "InvalidRequestError": "graphrag.errors",
    "LLMError": "graphrag.errors",
    "ModelCallError": "graphrag.errors",
    "ModelNotConfiguredError": "graphrag.errors",
    "ModelOptionsError": "graphrag.errors",
    "Neighbour": "graphrag.results.lookup",
    "NoteNotFoundError": "graphrag.errors",
    "NoteRecord": "graphrag.results.lookup",
    "QASetError": "graphrag.errors",
    "QueryRequest": "graphrag.query.request",
    "QueryResult": "graphrag.results.query",
    "Relation": "graphrag.results.notes",
    "SearchHit": "graphrag.results.search",
    "SearchResult": "graphrag.results.search",
    "Settings": "graphrag.config",
    "UnknownModelError": "graphrag.errors",
    "VaultError": "graphrag.errors",
    "VaultRAG": "graphrag.api",
    "VaultRAGError": "graphrag.errors",
    "load_settings": "graphrag.config",
}

if TYPE_CHECKING:
    from graphrag.answer.ask import Answer
    from graphrag.api import VaultRAG
    from graphrag.config import Settings, load_settings
    from graphrag.errors import (
        AmbiguousNoteError,
        BatchError,
        ConfigError,
        IndexBusyError,
        IndexMissingError,
        IndexStaleError,
        InvalidRequestError,
        LLMError,
        ModelCallError,
        ModelNotConfiguredError,
        ModelOptionsError,
        NoteNotFoundError,
        QASetError,
        UnknownModelError,
        VaultError,
        VaultRAGError,
    )
    from graphrag.query.request import QueryRequest
    from graphrag.results.focus import GraphRAGResult
    from graphrag.results.lookup import Neighbour, NoteRecord
    from graphrag.results.notes import Relation
    from graphrag.results.query import QueryResult
    from graphrag.results.search import GraphSearchResult, SearchHit, SearchResult
    from graphrag.snapshot.filters import Filters


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'graphrag' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # once: later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))


logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = [
    "AmbiguousNoteError",
    "Answer",
    "BatchError",
    "ConfigError",
    "Filters",
    "GraphRAGResult",
    "GraphSearchResult",
    "IndexBusyError",
    "IndexMissingError",
    "IndexStaleError",
    "InvalidRequestError",
    "LLMError",
    "ModelCallError",
    "ModelNotConfiguredError",
    "ModelOptionsError",
    "Neighbour",
    "NoteNotFoundError",
    "NoteRecord",
    "QASetError",
    "QueryRequest",
    "QueryResult",
    "Relation",
    "SearchHit",
    "SearchResult",
    "Settings",
    "UnknownModelError",
    "VaultError",
    "VaultRAG",
    "VaultRAGError",
    "__version__",
    "load_settings",
]
