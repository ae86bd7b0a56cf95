"""Every exception graphrag raises; the base family comes from the indexer.

Each is exported from ``graphrag``, so a caller can catch exactly what it expects.
"""

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


HOW_TO_CONFIGURE = (
    'Name one with -m MODEL, or set it once in your settings file: [llm] model = "MODEL" '
    "(or the environment: VAULTRAG_LLM__MODEL=MODEL). `llm models` lists the models llm "
    "knows; `llm install llm-ollama` (or llm-gpt4all) adds local models that keep your "
    "notes on this machine. --prompt-only prints the prompt without sending it."
)


class LLMError(VaultRAGError):
    """The language model could not be used or failed; nothing was answered."""


class ModelNotConfiguredError(LLMError):
    def __init__(self) -> None:
        super().__init__(
            f"no language model is configured, so nothing was sent. {HOW_TO_CONFIGURE}"
        )


class UnknownModelError(LLMError):
    """``llm`` has no model by this name; ``suggestions`` are close model ids or aliases."""

    def __init__(self, name: str, suggestions: list[str]) -> None:
        self.name = name
        self.suggestions = suggestions
        close = f" (closest: {', '.join(suggestions)})" if suggestions else ""
        super().__init__(
            f"llm knows no model named {name!r}{close}, so nothing was sent. {HOW_TO_CONFIGURE}"
        )


class ModelCallError(LLMError):
    """The model refused the prompt or its options, or the provider failed."""

    def __init__(self, model: str, message: str) -> None:
        self.model = model
        super().__init__(f"model {model}: {message}")


class ModelOptionsError(ModelCallError):
    """An option the model does not know or a value it refuses; nothing was sent."""


class BatchError(VaultRAGError):
    """The batch cannot start (unreadable input or output); nothing was written."""


class QASetError(VaultRAGError):
    """A question file is unreadable or a line is malformed; ``line`` is 1-based."""

    def __init__(self, path: str, line: int | None, reason: str) -> None:
        self.path = path
        self.line = line
        where = f"{path}, line {line}" if line is not None else path
        super().__init__(f"{where}: {reason}")


__all__ = [
    "BatchError",
    "LLMError",
    "ModelCallError",
    "ModelNotConfiguredError",
    "QASetError",
    "UnknownModelError",
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
