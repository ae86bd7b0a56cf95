"""Retrieval errors; the base family comes from the indexer."""

from __future__ import annotations

from indexer.errors import (
    ConfigError,
    IndexBusyError,
    IndexMissingError,
    IndexStaleError,
    VaultError,
    VaultRAGError,
)


class NoteNotFoundError(VaultRAGError):
    """No note matches; ``suggestions`` holds the closest uris."""

    def __init__(self, query: str, suggestions: list[str]) -> None:
        self.query = query
        self.suggestions = suggestions
        hint = f"; closest: {', '.join(suggestions)}" if suggestions else ""
        super().__init__(f"no note matches {query!r}{hint}")


class AmbiguousNoteError(VaultRAGError):
    """Several notes match equally well; ``candidates`` lists them."""

    def __init__(self, query: str, candidates: list[str]) -> None:
        self.query = query
        self.candidates = candidates
        super().__init__(
            f"{query!r} matches {len(candidates)} notes: {', '.join(candidates)}; "
            "give the path (uri) instead"
        )


class InvalidRequestError(VaultRAGError):
    """A parameter is out of range; ``field`` names it."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}")


__all__ = [
    "AmbiguousNoteError",
    "ConfigError",
    "IndexBusyError",
    "IndexMissingError",
    "IndexStaleError",
    "InvalidRequestError",
    "NoteNotFoundError",
    "VaultError",
    "VaultRAGError",
]
