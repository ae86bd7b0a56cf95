"""One exception family for the whole tool; ``graphrag`` re-exports and extends it."""

from __future__ import annotations

import os


class VaultRAGError(Exception):
    """Base class: every error this tool raises on purpose."""


class ConfigError(VaultRAGError):
    """A setting is unknown or has a bad value; the message names the key."""


class VaultError(VaultRAGError):
    """The vault path is missing or is not a folder."""

    def __init__(self, path: str, reason: str) -> None:
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")


class IndexMissingError(VaultRAGError):
    """No usable index at the given directory."""

    def __init__(self, index_dir: str, reason: str = "no index here") -> None:
        self.index_dir = index_dir
        super().__init__(f"{index_dir}: {reason}; run `vault-graphrag index VAULT` first")


class IndexStaleError(VaultRAGError):
    """The index was built by another model or schema and cannot be mixed with new vectors."""


class IndexBusyError(VaultRAGError):
    """Another process is updating this index."""

    def __init__(self, index_dir: str) -> None:
        self.index_dir = index_dir
        super().__init__(f"{index_dir}: another indexer is running (lock held)")


class ModelFileError(VaultRAGError):
    """A file of the embedding model (an ONNX export) is missing, corrupt or cannot be made."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{path}: {reason}")
