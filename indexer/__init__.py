"""vault -> index on disk. Never imports ``graphrag``."""

import logging

from .version import __version__

from .build import IndexStats, build_index, parse_vault  # noqa: E402
from .config import EmbeddingSettings, IndexConfig, IndexSettings  # noqa: E402
from .errors import (  # noqa: E402
    ConfigError,
    IndexBusyError,
    IndexMissingError,
    IndexStaleError,
    VaultError,
    VaultRAGError,
)
from .load import IndexSnapshot, load_index  # noqa: E402
from .parse import ParsedNote, parse_note  # noqa: E402

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
