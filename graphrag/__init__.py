"""index -> answers: focus and query mode, searches, answers, over a vault's index."""

import logging

from indexer import __version__

from .answer import Answer
from .api import VaultRAG
from .config import Settings, load_settings
from .errors import (
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
from .filters import Filters
from .model import GraphRAGResult, Relation
from .query_model import (
    GraphSearchResult,
    Neighbour,
    NoteRecord,
    QueryResult,
    SearchHit,
    SearchResult,
)

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
