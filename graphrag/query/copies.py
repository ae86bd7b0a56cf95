"""Near-duplicates in query mode's context (docs/architecture.md, "Query mode", packing
step 4): a note whose passage is already shown (90% of its runs of eight words are in
the context), or which holds the same text as a note already in (each holds the
other's passage: a duplicated folder), takes no slot of its own; ``pack.Packing``
names it on the note holding its text."""

from __future__ import annotations

import re
import threading
from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from graphrag.snapshot.corpus import Corpus
    from indexer.load import IndexSnapshot

# Near-duplicates: runs of SHINGLE words, and the share of a passage's runs that must
# be found elsewhere. Eight words and 90% keep apart notes written from one template
# ("This wand has 7 charges ... the *fireball* spell" / "... the *lightning bolt* spell").
SHINGLE = 8
COPY_SHARE = 0.9
MIN_SHINGLES = 10  # shorter passages are cheap, and too short to call copies

_WORD = re.compile(r"\w+", re.U)
_HIGH_BYTES = bytes(c >= 128 for c in range(256))  # bytes of characters other than ASCII
# Each ASCII byte as ``words_of`` reads it: letters lowercased (all ``casefold`` does to
# ASCII), the other non-word characters (not letters, digits, "_") made spaces.
_ASCII_WORDS = bytes(
    c + 32 if 65 <= c <= 90 else c if c >= 128 or chr(c).isalnum() or c == 95 else 32
    for c in range(256)
)


def shingles(text: str) -> frozenset[int]:
    """Hashes of the text's runs of ``SHINGLE`` words, heading lines left out: a
    passage shows its heading path (``Monsters (L) > Lich``) where its copy says
    ``Lich``."""
    return runs_of(words_of(text))


def words_of(text: str) -> list[str]:
    """The words ``shingles`` takes runs of (casefolded, heading lines left out)."""
    if "#" in text:  # else no line is a heading
        text = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith("#"))
    # The words ``_WORD`` finds in the casefolded text, a fraction of the time: the
    # ASCII bytes of the UTF-8 text lowercased and every non-word one made a space (in
    # UTF-8 no other character has an ASCII byte), then split at the spaces; only the
    # pieces holding other characters are casefolded and split by the pattern. The
    # casefolding of a character other than ASCII holds no ASCII non-word character
    # (every code point checked), so the pieces are where the pattern would cut.
    spaced = text.encode("utf-8", "surrogatepass").translate(_ASCII_WORDS)
    if spaced.isascii():
        return spaced.decode("ascii").split()
    high = spaced.translate(_HIGH_BYTES)  # 1 where a byte is not ASCII: found by memchr
    words: list[str] = []
    done = 0  # where the bytes not yet split start
    at = high.find(1)
    while at >= 0:
        start = spaced.rfind(b" ", 0, at) + 1
        end = spaced.find(b" ", at)
        end = len(spaced) if end < 0 else end
        words += spaced[done:start].decode("ascii").split()
        words += _WORD.findall(spaced[start:end].decode("utf-8", "surrogatepass").casefold())
        done = end
        at = high.find(1, end)
    words += spaced[done:].decode("ascii").split()
    return words


def runs_of(words: Sequence[str]) -> frozenset[int]:
    """Hashes of the runs of ``SHINGLE`` words of ``words``."""
    return frozenset(map(hash, zip(*(words[k:] for k in range(SHINGLE)), strict=False)))


class BodyShingles:
    """Notes' whole-text shingles, the most recently used ``size`` kept: one object per
    index generation (``Corpus.derived``), so a duplicated folder's long aggregate
    notes are read and hashed once, not in every query that meets them.

    Kept as arrays of 64-bit hashes, not sets: a set of hashes holds one int object
    per run, and every full collection visits each of them (on obsidian-hub the 512
    kept held 265,000 hashes, and a full collection took 60 ms with them, 25 without);
    a question makes its set again from the array (~30 ns a run, against ~1 us to hash
    one from the text)."""

    def __init__(self, body: Callable[[str], str], size: int = 512) -> None:
        self.body = body
        self.size = size
        self._cache: OrderedDict[str, array[int]] = OrderedDict()
        self._lock = threading.Lock()
        self._pinned: dict[str, array[int]] = {}  # ``pin``: made at the warm-up, kept

    def pin(self, uris: Iterable[str]) -> int:
        """Make the shingles of ``uris`` now and keep them for the generation, outside the
        LRU (the longest notes, ``query.warm``); how many were made."""
        made = 0
        for uri in uris:
            if uri not in self._pinned:
                self._pinned[uri] = array("q", shingles(self.body(uri)))
                made += 1
        return made

    def __call__(self, uri: str) -> frozenset[int]:
        pinned = self._pinned.get(uri)
        if pinned is not None:
            return frozenset(pinned)
        with self._lock:
            kept = self._cache.get(uri)
            if kept is not None:
                self._cache.move_to_end(uri)
                return frozenset(kept)
        got = shingles(self.body(uri))
        with self._lock:
            self._cache[uri] = array("q", got)
            while len(self._cache) > self.size:
                self._cache.popitem(last=False)
        return got


def body_shingles(corpus: Corpus, index: IndexSnapshot) -> BodyShingles:
    """The generation's ``BodyShingles`` (one per corpus), reading bodies from ``index``."""
    return corpus.derived("pack.body_shingles", lambda: BodyShingles(index.body))


class Shown(Protocol):
    """A document in the context, as copy detection sees it."""

    @property
    def uri(self) -> str: ...


@dataclass
class Copies:
    """The shingles of what a packing has shown, to find the document already holding a
    passage. ``bodies`` gives a note's whole-text shingles."""

    bodies: Callable[[str], frozenset[int]] | None = None
    shown: list[frozenset[int]] = field(default_factory=list)  # by document, in order
    # The last text's shingles (``copy_of`` then ``add`` look at the same document), or
    # its words when only its first runs were needed, and the whole-text shingles asked
    # for in this packing, without the shared LRU's lock.
    _last: tuple[str, frozenset[int]] | None = None
    _last_words: tuple[str, list[str]] | None = None
    _body_of: dict[str, frozenset[int]] = field(default_factory=dict)
    # Everything shown, and the whole texts of the first ``_bodies_in`` documents: a
    # passage that is not 90% in these is no copy, found with one set intersection.
    _shown_all: set[int] = field(default_factory=set)
    _bodies_all: set[int] = field(default_factory=set)
    _bodies_in: int = 0

    def add(self, details: str) -> None:
        """A document showing ``details`` was added to the context."""
        self.shown.append(self._shingles(details))
        self._shown_all.update(self.shown[-1])

    def at(self, docs: Sequence[Shown], uri: str, details: str) -> int | None:
        """The position in ``docs`` (the context, whose passages ``add`` was given) of
        the document already holding the passage ``details`` of note ``uri``, or None."""
        if not docs:
            return None
        if self._last is None or self._last[0] != details:
            words = words_of(details)
            self._last_words = (details, words)
            if self._surely_new(docs, words):
                return None
        mine = self._shingles(details)
        if len(mine) < MIN_SHINGLES:
            return None
        need = COPY_SHARE * len(mine)
        if len(mine & self._shown_all) >= need:
            overlap = [len(mine & shown) for shown in self.shown]
            if sum(overlap) >= need:
                return max(range(len(overlap)), key=overlap.__getitem__)
        if self.bodies is None:
            return None
        self._bodies_up_to(docs)
        if len(mine & self._bodies_all) < need:  # no document's whole text holds it
            return None
        theirs_in_mine: frozenset[int] | None = None
        for at, other in enumerate(docs):
            if len(mine & self._body(other.uri)) < need:
                continue
            # Each holds the other's passage: the same text in two notes.
            theirs = self.shown[at]
            if theirs_in_mine is None:
                theirs_in_mine = self._body(uri)
            if len(theirs) >= MIN_SHINGLES and len(theirs & theirs_in_mine) >= (
                COPY_SHARE * len(theirs)
            ):
                return at
        return None

    def _surely_new(self, docs: Sequence[Shown], words: Sequence[str]) -> bool:
        """Is a passage of ``words`` surely no copy, from its first runs alone? Most
        passages weighed are new, and hashing all their runs was most of finding that
        out. A copy has at least ``COPY_SHARE`` of its distinct runs in what is shown or
        in a document's whole text, so more of its first runs missing from both than the
        rest of its runs could make up for settles it (and a passage with too few runs
        is no copy either)."""
        runs = len(words) - SHINGLE + 1
        if runs < MIN_SHINGLES:
            return True
        missing = (1 - COPY_SHARE) * runs + 1  # more than the most a copy can miss
        first = min(runs, int(missing) + SHINGLE)  # a few runs of room for repeats
        if first == runs:
            return False  # as many runs as the whole: hash them all
        self._bodies_up_to(docs)
        known = (self._shown_all, self._bodies_all)
        head = runs_of(words[: first + SHINGLE - 1])
        if len(head.difference(*known)) >= missing:
            return True
        # Notes written from one template open alike (badges, a property block) and
        # differ further on: as many runs again, spread over the rest.
        step = (runs - first) // first
        if step < 2:
            return False  # nearly all of it looked at: hash the whole
        more = {hash(tuple(words[j : j + SHINGLE])) for j in range(first, runs, step)}
        return len(more.union(head).difference(*known)) >= missing

    def _bodies_up_to(self, docs: Sequence[Shown]) -> None:
        """Every document's whole text in ``_bodies_all`` (when there are ``bodies``)."""
        if self.bodies is None:
            return
        for other in docs[self._bodies_in :]:
            self._bodies_all.update(self._body(other.uri))
        self._bodies_in = len(docs)

    def _body(self, uri: str) -> frozenset[int]:
        got = self._body_of.get(uri)
        if got is None:
            got = self._body_of[uri] = self.bodies(uri) if self.bodies is not None else frozenset()
        return got

    def _shingles(self, text: str) -> frozenset[int]:
        if self._last is not None and self._last[0] == text:
            return self._last[1]
        if self._last_words is not None and self._last_words[0] == text:
            got = runs_of(self._last_words[1])
        else:
            got = shingles(text)
        self._last = (text, got)
        return got
