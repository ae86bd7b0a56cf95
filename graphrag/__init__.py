"""index -> answers: focus and query mode, searches, answers, over a vault's index."""

import logging

from graphrag.answer.ask import Answer
from graphrag.api import VaultRAG
from graphrag.config import Settings, load_settings
from graphrag.errors import (
    AmbiguousNoteError,
    ConfigError,
    IndexBusyError,
    IndexMissingError,
    IndexStaleError,
    InvalidRequestError,
    NoteNotFoundError,
    VaultError,
    VaultRAGError,
)
from graphrag.results.focus import GraphRAGResult, Relation
from graphrag.results.query import (
    GraphSearchResult,
    Neighbour,
    NoteRecord,
    QueryResult,
    SearchHit,
    SearchResult,
)
from graphrag.snapshot.filters import Filters
from indexer import __version__

logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = [
    "AmbiguousNoteError",
    "Answer",
    "ConfigError",
    "Filters",
    "GraphRAGResult",
    "GraphSearchResult",
    "IndexBusyError",
    "IndexMissingError",
    "IndexStaleError",
    "InvalidRequestError",
    "Neighbour",
    "NoteNotFoundError",
    "NoteRecord",
    "QueryResult",
    "Relation",
    "SearchHit",
    "SearchResult",
    "Settings",
    "VaultError",
    "VaultRAG",
    "VaultRAGError",
    "__version__",
    "load_settings",
]
