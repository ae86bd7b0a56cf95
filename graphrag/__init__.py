"""index -> answers: focus mode over a vault's graph (and, later, query mode)."""

import logging

from indexer import __version__

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
from .model import GraphRAGResult

logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = [
    "AmbiguousNoteError",
    "ConfigError",
    "GraphRAGResult",
    "IndexBusyError",
    "IndexMissingError",
    "IndexStaleError",
    "InvalidRequestError",
    "NoteNotFoundError",
    "Settings",
    "VaultError",
    "VaultRAG",
    "VaultRAGError",
    "__version__",
    "load_settings",
]
