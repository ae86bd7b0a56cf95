"""index -> answers: focus and query mode, searches, answers, over a vault's index."""

import logging

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
    NoteNotFoundError,
    QASetError,
    UnknownModelError,
    VaultError,
    VaultRAGError,
)
from graphrag.results.focus import GraphRAGResult
from graphrag.results.lookup import Neighbour, NoteRecord
from graphrag.results.notes import Relation
from graphrag.results.query import QueryResult
from graphrag.results.search import GraphSearchResult, SearchHit, SearchResult
from graphrag.snapshot.filters import Filters
from indexer import __version__

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
    "Neighbour",
    "NoteNotFoundError",
    "NoteRecord",
    "QASetError",
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
